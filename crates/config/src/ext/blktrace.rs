//! Block traces: merging several blktrace files into one before a replay, as fio's
//! `merge_blktrace_file`, `merge_blktrace_scalars` and `merge_blktrace_iters` do
//! (docs/random.md, "Block traces"). The trace itself is named by `read_iolog`
//! (ferrio tells a blktrace from a text iolog by its magic).

/// The merge options of a job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSpec {
    /// merge_blktrace_file=FILE: merge the `:`-separated `read_iolog` traces into
    /// FILE, then replay FILE.
    pub file: Option<String>,
    /// merge_blktrace_scalars=P1:P2..: each trace's times scaled to P % (100).
    /// Empty: every trace at 100 %.
    pub scalars: Vec<u64>,
    /// merge_blktrace_iters=N1:N2..: each trace repeated N times (1). Empty: once each.
    pub iters: Vec<u64>,
}
