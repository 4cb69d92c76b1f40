//! A test engine that does what its script says, on a virtual clock: complete at
//! once after a given service time, accept and complete a given time after the
//! commit, report Busy, transfer fewer bytes, fail with -errno, fail a commit — in
//! any order. It logs what the loop asked of it, so the loop's rules can be checked
//! without a file system and with exact times.

use crate::engine::{Capabilities, IoEngine, IoOp, IoUnit, Queued};
use ferrio_clock::VirtualHandle;
use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};

/// How an I/O ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every byte.
    Full,
    /// This many bytes (a short transfer).
    Short(usize),
    /// -errno.
    Errno(i32),
}

/// What one `queue` call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Complete inside `queue` after `ns` of (virtual) time.
    Now(u64, Outcome),
    /// Accept; complete `ns` after the commit that submits it.
    Later(u64, Outcome),
    /// No room: the loop must reap and queue the same unit again.
    Busy,
    /// The peer ended the stream: the job is over.
    Ended,
}

/// One thing the engine was asked, with the virtual time it was asked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    Queue {
        at: u64,
        unit: usize,
        op: IoOp,
        offset: u64,
        len: usize,
    },
    Commit {
        at: u64,
        n: usize,
    },
    Reap {
        at: u64,
        min: usize,
        max: usize,
        got: usize,
    },
}

/// The script: steps for successive `queue` calls (`then` once they run out), and
/// errnos for commits (None: the commit succeeds).
#[derive(Clone, Debug)]
pub struct Script {
    pub synchronous: bool,
    pub steps: VecDeque<Step>,
    pub then: Step,
    pub commits: VecDeque<Option<i32>>,
}

impl Script {
    /// A synchronous engine whose every I/O takes `ns`.
    pub fn sync(ns: u64) -> Script {
        Script {
            synchronous: true,
            steps: VecDeque::new(),
            then: Step::Now(ns, Outcome::Full),
            commits: VecDeque::new(),
        }
    }

    /// An asynchronous engine whose every I/O takes `ns` after its commit.
    pub fn asynchronous(ns: u64) -> Script {
        Script {
            synchronous: false,
            then: Step::Later(ns, Outcome::Full),
            ..Script::sync(0)
        }
    }

    /// These steps first.
    pub fn first(mut self, steps: &[Step]) -> Script {
        self.steps.extend(steps.iter().copied());
        self
    }
}

struct InFlight {
    done_at: u64,
    seq: u64,
    unit: usize,
    outcome: Outcome,
}

pub struct ScriptedEngine {
    clock: VirtualHandle,
    script: Script,
    /// Accepted, not committed: (unit, service ns, outcome).
    queued: Vec<(usize, u64, Outcome)>,
    flight: Vec<InFlight>,
    seq: u64,
    log: Arc<Mutex<Vec<Call>>>,
}

impl ScriptedEngine {
    /// What the plan must say about this engine (the registry's facts for a real one).
    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            synchronous: self.script.synchronous,
            diskless: true,
            fills_buffers: false,
            virtual_time: true,
            depth_limit: Default::default(),
            accounting: Default::default(),
            queues_when_deep: false,
            prepopulates: false,
            maps_files: false,
            aligned_buffers: false,
            no_extend: false,
        }
    }

    pub fn new(script: Script, clock: VirtualHandle) -> (ScriptedEngine, Arc<Mutex<Vec<Call>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let e = ScriptedEngine {
            clock,
            script,
            queued: Vec::new(),
            flight: Vec::new(),
            seq: 0,
            log: log.clone(),
        };
        (e, log)
    }

    fn record(&self, c: Call) {
        self.log.lock().unwrap().push(c);
    }
}

fn result_of(outcome: Outcome, len: usize) -> i64 {
    match outcome {
        Outcome::Full => len as i64,
        Outcome::Short(n) => n.min(len) as i64,
        Outcome::Errno(e) => -(e as i64),
    }
}

impl IoEngine for ScriptedEngine {
    fn queue(&mut self, index: usize, u: &mut IoUnit) -> Queued {
        self.record(Call::Queue {
            at: self.clock.now_ns(),
            unit: index,
            op: u.op,
            offset: u.offset,
            len: u.len,
        });
        let step = self.script.steps.pop_front().unwrap_or(self.script.then);
        match step {
            Step::Busy => Queued::Busy,
            Step::Ended => Queued::Ended,
            Step::Now(ns, outcome) => {
                self.clock.advance_ns(ns);
                u.result = result_of(outcome, u.len);
                Queued::Completed
            }
            Step::Later(ns, outcome) => {
                u.result = result_of(outcome, u.len);
                self.queued.push((index, ns, outcome));
                Queued::Queued
            }
        }
    }

    fn commit(&mut self) -> io::Result<()> {
        let now = self.clock.now_ns();
        self.record(Call::Commit {
            at: now,
            n: self.queued.len(),
        });
        if let Some(Some(errno)) = self.script.commits.pop_front() {
            self.queued.clear();
            return Err(io::Error::from_raw_os_error(errno));
        }
        for (unit, ns, outcome) in self.queued.drain(..) {
            self.flight.push(InFlight {
                done_at: now + ns,
                seq: self.seq,
                unit,
                outcome,
            });
            self.seq += 1;
        }
        Ok(())
    }

    /// Completions in time order; waiting for one moves the clock to it.
    fn reap(
        &mut self,
        units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        let at = self.clock.now_ns();
        self.flight.sort_by_key(|f| (f.done_at, f.seq));
        let mut got = 0;
        while got < max && !self.flight.is_empty() {
            let next = self.flight[0].done_at;
            if next > self.clock.now_ns() {
                if got >= min {
                    break;
                }
                self.clock.set_ns(next);
            }
            let f = self.flight.remove(0);
            units[f.unit].result = result_of(f.outcome, units[f.unit].len);
            units[f.unit].done_ns = Some(f.done_at);
            done.push(f.unit);
            got += 1;
        }
        self.record(Call::Reap { at, min, max, got });
        Ok(())
    }
}
