//! Signal handlers that live exactly as long as what needs them. A run (and a sweep,
//! and the live reporter) registers its SIGINT/SIGTERM/SIGUSR1 flags through one
//! [`Handlers`] and they are removed when it is dropped: a sweep of thousands of
//! points, or a server taking run after run, keeps a bounded number of handlers
//! instead of piling one set up per run. This is the only module that registers
//! signal handlers (a test checks the source).

use signal_hook::SigId;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Arc;

/// Test-only: set, each run says on stderr how many handlers it registered and
/// removed (`ferrio: signal handlers: N registered for the run, N removed`).
pub const REPORT_ENV: &str = "FERRIO_TEST_REPORT_SIGNALS";

/// Handlers registered by one owner; removed on drop.
#[derive(Debug, Default)]
pub struct Handlers {
    ids: Vec<SigId>,
}

/// What [`Handlers::release`] did: handlers registered, and removed again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Released {
    pub registered: usize,
    pub removed: usize,
}

impl Handlers {
    pub fn new() -> Handlers {
        Handlers::default()
    }

    /// `flag` becomes true when `sig` arrives.
    pub fn flag(&mut self, sig: i32, flag: &Arc<AtomicBool>) {
        if let Ok(id) = signal_hook::flag::register(sig, flag.clone()) {
            self.ids.push(id);
        }
    }

    /// `slot` is set to `value` when `sig` arrives.
    pub fn value(&mut self, sig: i32, slot: &Arc<AtomicUsize>, value: usize) {
        if let Ok(id) = signal_hook::flag::register_usize(sig, slot.clone(), value) {
            self.ids.push(id);
        }
    }

    /// How many handlers this owner holds now.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Removes every handler now and says how many were removed (what a run reports
    /// under [`REPORT_ENV`]).
    pub fn release(mut self) -> Released {
        self.remove()
    }

    fn remove(&mut self) -> Released {
        let registered = self.ids.len();
        let removed = self
            .ids
            .drain(..)
            .filter(|&id| signal_hook::low_level::unregister(id))
            .count();
        Released {
            registered,
            removed,
        }
    }
}

/// The signals `sigs`, delivered one by one to whoever iterates (a server's thread
/// that ends the process on the first; registered once per process).
pub fn watch(sigs: &[i32]) -> Result<signal_hook::iterator::Signals, String> {
    signal_hook::iterator::Signals::new(sigs).map_err(|e| format!("cannot handle signals: {e}"))
}

/// Ends the process as SIGPIPE's default action would if `e` is a broken pipe (the
/// reader of stdout went away: `ferrio ... | head`). Rust ignores SIGPIPE, so such a
/// write fails with EPIPE instead; fio, which leaves SIGPIPE alone, dies of it silently
/// and the shell sees 141. Returns for any other error.
pub fn die_if_broken_pipe(e: &std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        die_by_sigpipe();
    }
}

/// Ends the process by SIGPIPE (its default action: no message, status 141 in the
/// shell).
pub fn die_by_sigpipe() -> ! {
    // SAFETY: signal(2) and raise(3) take no pointers; restoring SIGPIPE's default
    // action and raising it ends the process here.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    // Unreachable unless SIGPIPE is blocked: exit as the shell reports a SIGPIPE death.
    std::process::exit(128 + libc::SIGPIPE)
}

impl Drop for Handlers {
    fn drop(&mut self) {
        self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn handlers_are_removed_and_a_removed_one_no_longer_fires() {
        let sig = signal_hook::consts::SIGUSR2;
        let fired = Arc::new(AtomicBool::new(false));
        let keep = Arc::new(AtomicBool::new(false));
        // One that stays, so the signal never takes its default action here.
        let mut stays = Handlers::new();
        stays.flag(sig, &keep);
        for _ in 0..1000 {
            let mut h = Handlers::new();
            h.flag(sig, &fired);
            assert_eq!(h.len(), 1);
            let r = h.release();
            assert_eq!((r.registered, r.removed), (1, 1));
        }
        // Every flag clone the registrations held was dropped with them.
        assert_eq!(Arc::strong_count(&fired), 1);
        signal_hook::low_level::raise(sig).unwrap();
        assert!(keep.load(Ordering::SeqCst));
        assert!(!fired.load(Ordering::SeqCst));
        drop(stays);
        assert_eq!(Arc::strong_count(&keep), 1);
    }

    #[test]
    fn drop_removes_them_too() {
        let slot = Arc::new(AtomicUsize::new(0));
        {
            let mut h = Handlers::new();
            h.value(signal_hook::consts::SIGUSR2, &slot, 7);
            h.value(signal_hook::consts::SIGWINCH, &slot, 8);
            assert_eq!(Arc::strong_count(&slot), 3);
        }
        assert_eq!(Arc::strong_count(&slot), 1);
    }
}

/// Handlers are registered here only: a `signal_hook` registration anywhere else in
/// src/ would escape the removal above.
#[cfg(test)]
mod only_here {
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    #[test]
    fn no_other_module_registers_signal_handlers() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        assert!(files.len() > 50, "{}", src.display());
        let calls = [
            "signal_hook::flag",
            "signal_hook::iterator",
            "low_level::register",
        ];
        for f in files.iter().filter(|f| !f.ends_with("sys/signals.rs")) {
            let text = std::fs::read_to_string(f).unwrap();
            for c in calls {
                assert!(!text.contains(c), "{} uses {c}", f.display());
            }
        }
    }
}
