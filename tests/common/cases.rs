//! Independent cases of one test run a few at a time. Most of a differential case's
//! wall time is waiting (fio's start-up and shut-down polls, process start), which
//! overlaps; each case must use its own files. Every failing case is reported, not
//! just the first, and the test fails if any did.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Cases run at once: enough to overlap the waits, few enough for a 2-core machine.
const WORKERS: usize = 4;

/// Run `check` on every case, `WORKERS` at a time; panic listing every failure.
pub fn each_case<T: Sync>(cases: &[T], check: impl Fn(&T) + Sync) {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS.min(cases.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(case)));
                if let Err(e) = r {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.lock().unwrap().push(format!("case {i}: {msg}"));
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
