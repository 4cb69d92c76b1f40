//! `--debug=` lines written outside the per-thread observers (debug_trace): one
//! function per event, each called behind a flag the caller cached (a bool in its
//! own state, or the job's [`ferrio_config::DebugSet`]), so a category that is off
//! costs one predictable branch and never a lookup per I/O.
//!
//! What each category writes, and where ferrio's words differ from fio 3.33's, is in
//! docs/dropin.md ("--debug categories").

use super::debug_line::line;
use crate::sys::affinity::thread_id;
use crate::sys::diskstats::DiskCounters;
use ferrio_config::{DebugCategory, JobSpec};
use std::collections::BTreeMap;
use std::fmt::Arguments;
use std::path::Path;
use std::sync::Arc;

/// Write one line of category `c` for the calling thread, in fio's shape.
pub fn say(c: DebugCategory, msg: Arguments) {
    line(c.name(), thread_id(), msg);
}

/// Whether the job's threads write lines of category `c` (for a caller to cache).
#[inline]
pub fn on(spec: &JobSpec, c: DebugCategory) -> bool {
    spec.compat.debug.has(c)
}

/// The spec thread number `number` (fio's, from 1) runs: with `--debug=job:N`
/// every other thread gets a copy that writes no lines; otherwise the spec itself.
pub fn for_thread(spec: &Arc<JobSpec>, number: u64) -> Arc<JobSpec> {
    let d = spec.compat.debug;
    if d.for_thread(number) == d {
        return spec.clone();
    }
    let mut s = (**spec).clone();
    s.compat.debug = d.for_thread(number);
    Arc::new(s)
}

/// `--debug=parse`: the parse lines the configuration made (main's thread).
pub fn parse_lines(msgs: &[(DebugCategory, String)]) {
    for (c, m) in msgs {
        say(*c, format_args!("{m}"));
    }
}

/// `--debug=random`: a thread's seeds, as fio (3.35 and later) lists them when it
/// sets the job up (`system`: drawn from the system, not from randseed).
pub fn seeds(seeds: &crate::random::SeedSet, system: bool) {
    let r = DebugCategory::Random;
    if system {
        say(r, format_args!("using system RNG for random seeds"));
    }
    let all = seeds.all();
    say(r, format_args!("FIO_RAND_NR_OFFS={}", all.len()));
    for (i, s) in all.iter().enumerate() {
        say(r, format_args!("rand_seeds[{i}]={s}"));
    }
}

/// `--debug=diskutil`: `path` is on device `maj/min`, whose disk is `disk` (`new`:
/// first seen, else already in the list), as fio's lines.
pub fn disk_found(path: &Path, (maj, min): (u32, u32), disk: &str, new: bool) {
    let d = DebugCategory::Diskutil;
    say(
        d,
        format_args!("{} belongs to maj/min {maj}/{min}", path.display()),
    );
    if new {
        say(
            d,
            format_args!("add maj/min {maj}/{min}: /sys/block/{disk}"),
        );
        say(d, format_args!("add {disk} to list"));
    } else {
        say(d, format_args!("found {disk} in list"));
    }
}

/// `--debug=diskutil`: the counters read for each reported disk (ferrio reads them
/// all from /proc/diskstats, once before and once after the jobs).
pub fn disk_counters(
    cats: &[DebugCategory],
    disks: &[String],
    counters: &BTreeMap<String, DiskCounters>,
) {
    if !cats.contains(&DebugCategory::Diskutil) || disks.is_empty() {
        return;
    }
    let d = DebugCategory::Diskutil;
    say(d, format_args!("open stat file: /proc/diskstats"));
    for n in disks {
        let ok = counters.get(n);
        if let Some(c) = ok {
            say(
                d,
                format_args!(
                    "{n}: read ios {} merges {} ticks {}, write ios {} merges {} ticks {}, io_ticks {}, in_queue {}",
                    c.read_ios, c.read_merges, c.read_ticks, c.write_ios, c.write_merges,
                    c.write_ticks, c.io_ticks, c.in_queue
                ),
            );
        }
        say(
            d,
            format_args!("{n}: stat read ok? {}", u8::from(ok.is_some())),
        );
    }
    say(d, format_args!("update io ticks"));
}

/// `--debug=mutex`: the main thread waits on job threads (a stonewall, wait_for,
/// the end of the run): `wait on WHAT` now, `done waiting on WHAT` at [`Wait::done`].
pub struct Wait(Option<&'static str>);

impl Wait {
    /// Start a wait on `what`, written when `on`.
    pub fn on(on: bool, what: &'static str) -> Wait {
        if on {
            say(DebugCategory::Mutex, format_args!("wait on {what}"));
        }
        Wait(on.then_some(what))
    }

    /// The wait is over.
    pub fn done(self) {
        if let Some(what) = self.0 {
            say(DebugCategory::Mutex, format_args!("done waiting on {what}"));
        }
    }
}

/// `--debug=net`: one client/server line, when `on`.
pub fn net(on: bool, msg: Arguments) {
    if on {
        say(DebugCategory::Net, msg);
    }
}

/// `--debug=net` on a client: each host added and the job files it gets (fio's
/// `client: added <HOST>` and `client <HOST>: add ini FILE`). Returns whether the
/// category is on, for the connection lines.
pub fn net_hosts<'a>(
    flags: &ferrio_config::GlobalFlags,
    hosts: impl Iterator<Item = (&'a str, Vec<&'a str>)>,
) -> bool {
    let on = flags.debug.contains(&DebugCategory::Net);
    if on {
        for (h, files) in hosts {
            say(DebugCategory::Net, format_args!("client: added <{h}>"));
            for f in files {
                say(
                    DebugCategory::Net,
                    format_args!("client <{h}>: add ini {f}"),
                );
            }
        }
    }
    on
}

/// `--debug=compress`: `input` bytes of samples of log `log` went out as stream
/// `seq`, `output` bytes (fio's lines; ferrio writes a stream in one piece, so one
/// `seq=, chunk=` line).
pub fn deflated(log: &str, seq: u32, input: usize, output: usize) {
    let c = DebugCategory::Compress;
    say(
        c,
        format_args!("deflate input size={input}, seq={seq}, log={log}"),
    );
    say(c, format_args!("seq={seq}, chunk={output}"));
    say(c, format_args!("deflated to size={output}"));
}

/// `--debug=blktrace`: one trace entry stored for replay (fio's `store ddir=D,
/// off=O, len=L, delay=U` line, from [`super::replay::blktrace::debug_store`]).
pub fn blktrace_stored(line: &str) {
    say(DebugCategory::Blktrace, format_args!("{line}"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::worker::tests::plan_of;
    use ferrio_config::DebugSet;

    fn spec_with(set: DebugSet) -> Arc<JobSpec> {
        let mut spec = (*plan_of("size=64k", true).spec).clone();
        spec.compat.debug = set;
        Arc::new(spec)
    }

    #[test]
    fn job_n_leaves_other_threads_silent_and_shares_the_spec_otherwise() {
        let spec = spec_with(DebugSet::of(&[DebugCategory::Io], Some(2)));
        assert!(Arc::ptr_eq(&for_thread(&spec, 2), &spec));
        let other = for_thread(&spec, 1);
        assert!(!on(&other, DebugCategory::Io) && on(&spec, DebugCategory::Io));
        let all = spec_with(DebugSet::of(&[DebugCategory::Io], None));
        assert!(Arc::ptr_eq(&for_thread(&all, 5), &all));
    }
}
