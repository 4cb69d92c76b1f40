//! fio 3.33's `--debug` categories, one table row each (name, what it covers, whether
//! ferrio writes lines for it), and [`DebugSet`], the bits each job carries so that a
//! thread tests one bit per event. The flag's parsing and help are `cli::debug`'s.

/// One `--debug` category (fio's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugCategory {
    Process,
    File,
    Io,
    Mem,
    Blktrace,
    Verify,
    Random,
    Parse,
    Diskutil,
    Job,
    Mutex,
    Profile,
    Time,
    Net,
    Rate,
    Compress,
    Steadystate,
    Helperthread,
    Zbd,
    /// fio 3.4x: sprandom=1's model and regions.
    Sprandom,
}

/// A row: the category, its name, what it covers, and whether ferrio writes anything
/// for it yet (the others are accepted so fio command lines keep working).
pub(crate) struct Row(
    pub DebugCategory,
    pub &'static str,
    pub &'static str,
    pub bool,
);

/// fio 3.33's categories, in fio's order, then fio 3.4x's sprandom.
pub(crate) const CATEGORIES: &[Row] = &[
    Row(
        DebugCategory::Process,
        "process",
        "job threads and processes starting and ending",
        true,
    ),
    Row(
        DebugCategory::File,
        "file",
        "the files each thread does I/O on",
        true,
    ),
    Row(DebugCategory::Io, "io", "each I/O as it completes", true),
    Row(DebugCategory::Mem, "mem", "I/O buffer allocation", true),
    Row(
        DebugCategory::Blktrace,
        "blktrace",
        "blktrace replay: each trace entry stored",
        true,
    ),
    Row(
        DebugCategory::Verify,
        "verify",
        "verify headers filled and checked, the verify pass",
        true,
    ),
    Row(
        DebugCategory::Random,
        "random",
        "random offsets and distributions",
        true,
    ),
    Row(
        DebugCategory::Parse,
        "parse",
        "each option handled (handle_option=NAME, ptr=VALUE)",
        true,
    ),
    Row(
        DebugCategory::Diskutil,
        "diskutil",
        "the disks whose utilization is reported, their stat files",
        true,
    ),
    Row(
        DebugCategory::Job,
        "job",
        "job:N: only job N (from 1) writes lines; job alone: all jobs",
        false,
    ),
    Row(
        DebugCategory::Mutex,
        "mutex",
        "the start barrier each job thread waits on",
        true,
    ),
    Row(
        DebugCategory::Profile,
        "profile",
        "built-in job profiles (--profile=) being loaded",
        true,
    ),
    Row(
        DebugCategory::Time,
        "time",
        "the clock source: its choice, calibration and fallback",
        true,
    ),
    Row(
        DebugCategory::Net,
        "net",
        "client/server connections and commands; net engine setup",
        true,
    ),
    Row(
        DebugCategory::Rate,
        "rate",
        "rate pacing: poisson rates, latency_target depth changes",
        true,
    ),
    Row(
        DebugCategory::Compress,
        "compress",
        "log_compression: chunks deflated and inflated",
        true,
    ),
    Row(
        DebugCategory::Steadystate,
        "steadystate",
        "steady-state checks: each window's values and verdict",
        true,
    ),
    Row(
        DebugCategory::Helperthread,
        "helperthread",
        "the helper thread: its ticks and reports",
        true,
    ),
    Row(
        DebugCategory::Zbd,
        "zbd",
        "zones: device zones, opening, closing and resetting zones",
        true,
    ),
    Row(
        DebugCategory::Sprandom,
        "sprandom",
        "sprandom=1 (fio 3.4x): the model's sizes and regions",
        true,
    ),
];

impl DebugCategory {
    /// Every category, in fio's order.
    pub fn all() -> impl Iterator<Item = DebugCategory> {
        CATEGORIES.iter().map(|r| r.0)
    }

    /// fio's name for the category.
    pub fn name(self) -> &'static str {
        CATEGORIES.iter().find(|r| r.0 == self).map_or("", |r| r.1)
    }
}

/// Compares with the category's name (`--debug=io` gives a category equal to "io").
impl PartialEq<&str> for DebugCategory {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

/// A set of categories as bits: copied into each job's spec, so a thread tests one
/// bit (once, outside its I/O loop, or in a branch that is never taken) per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugSet {
    bits: u32,
    /// job:N: the one thread number (from 1) whose lines are written; 0: all.
    job: u32,
}

impl DebugSet {
    /// The set of `cats`, limited to thread number `job` when given (`job:N`).
    pub fn of(cats: &[DebugCategory], job: Option<u32>) -> DebugSet {
        DebugSet {
            bits: cats.iter().fold(0, |b, &c| b | 1 << c as u32),
            job: job.unwrap_or(0),
        }
    }

    /// What thread number `number` (fio's, from 1) writes: everything, or nothing
    /// when `job:N` names another thread.
    pub fn for_thread(self, number: u64) -> DebugSet {
        match self.job {
            0 => self,
            n if n as u64 == number => self,
            _ => DebugSet::default(),
        }
    }

    /// Whether `c` is in the set.
    #[inline]
    pub fn has(self, c: DebugCategory) -> bool {
        self.bits & (1 << c as u32) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.bits == 0
    }
}
