//! The start line of the threads that start together (fio's startup_sem): every
//! thread the runner starts before it next waits (a stonewall, wait_for, the run's
//! end) sets itself up, then waits until all of them have, so no clone's I/O runs
//! while a sibling is still opening its files or allocating its buffers. Without it
//! the first clone of a short job can finish, and with `unlink=1` remove the shared
//! file, before the last one has started.
//!
//! Threads with a `startdelay`, and those of a diskless engine (no shared file to
//! protect, and a net listener's setup waits for its peer), take no place at the line.
//!
//! A thread that ends before the line (an error in its setup) counts as arrived
//! when its ticket is dropped, so the others never wait for it; a stop releases
//! everyone at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

#[derive(Default)]
struct Line {
    registered: usize,
    arrived: usize,
    /// No more threads join: the line opens once every registered one arrived.
    closed: bool,
}

impl Line {
    fn open(&self) -> bool {
        self.closed && self.arrived == self.registered
    }
}

/// One batch's start line, held by the runner while it starts the batch.
#[derive(Default, Clone)]
pub struct StartGate {
    shared: Arc<(Mutex<Line>, Condvar)>,
}

/// A thread's place at the line.
pub struct Ticket {
    shared: Option<Arc<(Mutex<Line>, Condvar)>>,
}

impl StartGate {
    pub fn new() -> StartGate {
        StartGate::default()
    }

    /// A place for one more thread of the batch.
    pub fn ticket(&self) -> Ticket {
        let (line, _) = &*self.shared;
        line.lock().unwrap_or_else(|e| e.into_inner()).registered += 1;
        Ticket {
            shared: Some(self.shared.clone()),
        }
    }

    /// The batch is complete: the line opens when its last thread arrives (at once
    /// if all have).
    pub fn close(&self) {
        let (line, cv) = &*self.shared;
        line.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        cv.notify_all();
    }
}

impl Ticket {
    /// A ticket that waits for nothing (a thread outside any batch).
    pub fn none() -> Ticket {
        Ticket { shared: None }
    }

    /// This thread is set up: wait until the batch's others are too (or a stop).
    pub fn wait(mut self, stop: &AtomicBool) {
        let Some(shared) = self.shared.take() else {
            return;
        };
        let (line, cv) = &*shared;
        let mut l = arrive(line, cv);
        while !l.open() && !stop.load(Ordering::Relaxed) {
            // (The timeout only notices a stop: the last arrival notifies.)
            l = cv
                .wait_timeout(l, Duration::from_millis(10))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

impl Drop for Ticket {
    /// A thread that never reached the line (its setup failed) is not waited for.
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let (line, cv) = &*shared;
            drop(arrive(line, cv));
        }
    }
}

/// One more thread at the line; the last one (of a closed batch) opens it. Only
/// then are the waiters woken: a wake per arrival would be n² for n threads.
fn arrive<'a>(line: &'a Mutex<Line>, cv: &Condvar) -> MutexGuard<'a, Line> {
    let mut l = line.lock().unwrap_or_else(|e| e.into_inner());
    l.arrived += 1;
    if l.open() {
        cv.notify_all();
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn no_thread_passes_before_the_last_is_set_up() {
        let gate = StartGate::new();
        let stop = AtomicBool::new(false);
        let passed = AtomicUsize::new(0);
        std::thread::scope(|s| {
            let tickets: Vec<Ticket> = (0..3).map(|_| gate.ticket()).collect();
            let mut it = tickets.into_iter();
            let late = it.next().unwrap();
            for t in it {
                s.spawn(|| {
                    t.wait(&stop);
                    passed.fetch_add(1, Ordering::SeqCst);
                });
            }
            gate.close();
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(passed.load(Ordering::SeqCst), 0, "one is still setting up");
            late.wait(&stop);
        });
        assert_eq!(passed.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_thread_that_fails_its_setup_is_not_waited_for() {
        let gate = StartGate::new();
        let stop = AtomicBool::new(false);
        let (a, b) = (gate.ticket(), gate.ticket());
        gate.close();
        drop(b);
        a.wait(&stop); // returns
    }

    #[test]
    fn the_line_stays_shut_until_the_batch_is_closed_and_a_stop_opens_it() {
        let gate = StartGate::new();
        let stop = AtomicBool::new(false);
        let passed = AtomicBool::new(false);
        std::thread::scope(|s| {
            let t = gate.ticket();
            s.spawn(|| {
                t.wait(&stop);
                passed.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(Duration::from_millis(50));
            assert!(!passed.load(Ordering::SeqCst), "the batch may still grow");
            stop.store(true, Ordering::SeqCst);
        });
        assert!(passed.load(Ordering::SeqCst));
    }
}
