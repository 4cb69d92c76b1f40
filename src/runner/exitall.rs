//! exitall / exitall_on_error with fio's exit_what=: when a job ends under them, fio
//! terminates the jobs of its group (`group`, the default), every job running now
//! (`stonewall`: later stonewalled groups still start), or every job (`all`). Each
//! reporting group gets a stop flag of its own; the run-wide stop (signals,
//! triggers) is forwarded to every group's flag.

use ferrio_config::ext::dropin::ExitWhat;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How often the run-wide stop is forwarded to the groups' flags.
const FORWARD_EVERY: std::time::Duration = std::time::Duration::from_millis(5);

pub struct GroupStops {
    global: Arc<AtomicBool>,
    groups: Mutex<BTreeMap<u32, Arc<AtomicBool>>>,
    done: AtomicBool,
}

impl GroupStops {
    pub fn new(global: &Arc<AtomicBool>) -> Arc<GroupStops> {
        Arc::new(GroupStops {
            global: global.clone(),
            groups: Mutex::new(BTreeMap::new()),
            done: AtomicBool::new(false),
        })
    }

    /// The stop flag the threads of group `g` run under (set already when the run
    /// is stopping).
    pub fn for_group(&self, g: u32) -> Arc<AtomicBool> {
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let flag = groups
            .entry(g)
            .or_insert_with(|| Arc::new(AtomicBool::new(false)));
        if self.global.load(Ordering::SeqCst) {
            flag.store(true, Ordering::SeqCst);
        }
        flag.clone()
    }

    /// A job of group `g` ended under exitall: stop what `what` says.
    pub fn exit(&self, g: u32, what: ExitWhat) {
        let groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        match what {
            ExitWhat::Group => {
                if let Some(f) = groups.get(&g) {
                    f.store(true, Ordering::SeqCst);
                }
            }
            // The groups started so far are the ones running (or done).
            ExitWhat::Stonewall => groups
                .values()
                .for_each(|f| f.store(true, Ordering::SeqCst)),
            ExitWhat::All => {
                self.global.store(true, Ordering::SeqCst);
                groups
                    .values()
                    .for_each(|f| f.store(true, Ordering::SeqCst));
            }
        }
    }

    /// Forward the run-wide stop to every group until [`GroupStops::finish`].
    pub fn forward(self: &Arc<Self>) -> std::thread::JoinHandle<()> {
        let me = self.clone();
        std::thread::Builder::new()
            .name("ferrio-stop".into())
            .spawn(move || {
                while !me.done.load(Ordering::SeqCst) {
                    if me.global.load(Ordering::SeqCst) {
                        let groups = me.groups.lock().unwrap_or_else(|e| e.into_inner());
                        groups
                            .values()
                            .for_each(|f| f.store(true, Ordering::SeqCst));
                    }
                    std::thread::sleep(FORWARD_EVERY);
                }
            })
            .expect("spawn the stop forwarder")
    }

    pub fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_what_picks_the_groups() {
        let global = Arc::new(AtomicBool::new(false));
        let s = GroupStops::new(&global);
        let (a, b) = (s.for_group(0), s.for_group(1));
        s.exit(0, ExitWhat::Group);
        assert!(a.load(Ordering::SeqCst) && !b.load(Ordering::SeqCst));
        s.exit(0, ExitWhat::Stonewall);
        assert!(b.load(Ordering::SeqCst) && !global.load(Ordering::SeqCst));
        // A group started after a stonewall exit runs.
        assert!(!s.for_group(2).load(Ordering::SeqCst));
        s.exit(2, ExitWhat::All);
        assert!(global.load(Ordering::SeqCst));
        assert!(
            s.for_group(3).load(Ordering::SeqCst),
            "all: later groups never start"
        );
    }

    #[test]
    fn the_run_wide_stop_reaches_every_group() {
        let global = Arc::new(AtomicBool::new(false));
        let s = GroupStops::new(&global);
        let g = s.for_group(5);
        let h = s.forward();
        global.store(true, Ordering::SeqCst);
        while !g.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        s.finish();
        h.join().unwrap();
    }
}
