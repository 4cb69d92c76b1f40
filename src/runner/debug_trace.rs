//! `--debug=process,file,mem,io`: fio-style diagnostic lines (on stdout, as fio), written by
//! an observer on each worker thread (so the I/O loop itself knows nothing of them).
//!
//! Each line is fio's shape: the category padded to 8 columns, the thread's id, then
//! the message (`io       48151 complete: off=0x1000,len=0x1000,ddir=1,file=/tmp/f`).
//! Only `io` looks at every I/O, and only when asked for: it costs a locked write
//! per completion, as fio's does.

use super::debug_line::line;
use super::observer::{Completion, Observer, ObserverFactory, Verdict};
use super::plan::ThreadPlan;
use super::recorder::{ThreadResult, ThreadStats};
use super::resources::buffer_bytes;
use crate::sys::affinity::thread_id;
use ferrio_config::DebugCategory;

/// Which categories the run asked for that threads write lines for.
#[derive(Clone, Copy, Debug, Default)]
pub struct DebugTrace {
    process: bool,
    file: bool,
    mem: bool,
    io: bool,
}

/// The categories this module writes (the help lists them as emitted).
pub const TRACED: [DebugCategory; 4] = [
    DebugCategory::Process,
    DebugCategory::File,
    DebugCategory::Mem,
    DebugCategory::Io,
];

impl DebugTrace {
    /// None when no traced category was asked for.
    pub fn for_categories(cats: &[DebugCategory]) -> Option<DebugTrace> {
        let t = DebugTrace {
            process: cats.contains(&DebugCategory::Process),
            file: cats.contains(&DebugCategory::File),
            mem: cats.contains(&DebugCategory::Mem),
            io: cats.contains(&DebugCategory::Io),
        };
        (t.process || t.file || t.mem || t.io).then_some(t)
    }
}

impl ObserverFactory for DebugTrace {
    fn observers(&self, plan: &ThreadPlan, _start_ns: u64) -> Vec<Box<dyn Observer>> {
        // --debug=job:N: the thread's spec says whether it writes at all.
        let d = plan.spec.compat.debug;
        let this = DebugTrace {
            process: self.process && d.has(DebugCategory::Process),
            file: self.file && d.has(DebugCategory::File),
            mem: self.mem && d.has(DebugCategory::Mem),
            io: self.io && d.has(DebugCategory::Io),
        };
        let tid = thread_id();
        let name = &plan.spec.name;
        if this.process {
            line(
                "process",
                tid,
                format_args!("thread started: job '{name}', clone {}", plan.clone),
            );
        }
        if this.file {
            for f in &plan.files {
                let kind = if f.block_device {
                    "block device"
                } else if f.device {
                    "device"
                } else {
                    "file"
                };
                line(
                    "file",
                    tid,
                    format_args!(
                        "setup {kind} {}: offset=0x{:x}, size=0x{:x}",
                        f.path.display(),
                        f.region.start,
                        f.region.len
                    ),
                );
            }
        }
        if this.mem {
            let bytes = buffer_bytes(&plan.spec, plan.caps);
            line(
                "mem",
                tid,
                format_args!(
                    "io buffers: {bytes} bytes, iodepth={}, mem={:?}",
                    plan.spec.iodepth, plan.spec.engine.mem
                ),
            );
        }
        if !(this.process || this.io) {
            return Vec::new();
        }
        let files = plan
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        vec![Box::new(TraceObserver {
            tid,
            io: this.io,
            process: this.process,
            files,
        })]
    }
}

/// Per-thread: `io` lines per completion, `process` at the thread's end.
struct TraceObserver {
    tid: u32,
    io: bool,
    process: bool,
    /// The thread's file names, for io lines (a completion has no file index; a
    /// single-file job, the common case, names it).
    files: Vec<String>,
}

impl Observer for TraceObserver {
    fn next_due_ns(&self) -> u64 {
        u64::MAX
    }

    fn observe(&mut self, _now_ns: u64, _stats: &ThreadStats) -> Verdict {
        Verdict::Continue
    }

    fn wants_completions(&self) -> bool {
        self.io
    }

    fn completed(&mut self, c: &Completion) {
        let file = match self.files.as_slice() {
            [one] => one.as_str(),
            _ => "(one of the job's files)",
        };
        line(
            "io",
            self.tid,
            format_args!(
                "complete: off=0x{:x},len=0x{:x},ddir={},file={file}, lat={} ns",
                c.offset, c.bytes, c.ddir, c.lat_ns
            ),
        );
    }

    fn finish(self: Box<Self>, _now_ns: u64, stats: &ThreadStats, _result: &mut ThreadResult) {
        if self.process {
            line(
                "process",
                self.tid,
                format_args!(
                    "thread exited: {} I/Os",
                    stats.dir.iter().map(|d| d.total_ios).sum::<u64>()
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::worker::tests::plan_of;

    #[test]
    fn only_debug_io_asks_for_every_completion() {
        // (Each completion costs the hot path a call: only --debug=io wants them.)
        let mut plan = plan_of("size=64k", true);
        let all: Vec<DebugCategory> = DebugCategory::all().collect();
        std::sync::Arc::make_mut(&mut plan.spec).compat.debug =
            ferrio_config::DebugSet::of(&all, None);
        let wants = |cats: &[DebugCategory]| {
            let t = DebugTrace::for_categories(cats).unwrap();
            let obs = t.observers(&plan, 0);
            obs.iter()
                .map(|o| o.wants_completions())
                .collect::<Vec<_>>()
        };
        assert_eq!(wants(&[DebugCategory::Io]), [true]);
        assert_eq!(wants(&[DebugCategory::Process]), [false]);
        assert!(wants(&[DebugCategory::Mem]).is_empty());
        assert!(DebugTrace::for_categories(&[]).is_none());
    }
}
