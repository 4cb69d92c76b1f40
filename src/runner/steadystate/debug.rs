//! `--debug=steadystate` lines: one per measurement (fio's `steadystate_check()`
//! line, with the window's measurement number where fio names its thread and group,
//! since ferrio's windows sum their members first), and one per criterion judged on
//! a full window, in fio's words and numbers (`sum_y: ..., mean: ..., max diff:
//! ..., objective: ..., limit: ...` or `sum_y: ..., sum_xy: ..., slope: ...,
//! criterion: ..., limit: ...`). SNIA criteria, which fio lacks, get ferrio's words.

use crate::runner::debug_hooks::say;
use ferrio_config::DebugCategory::Steadystate;
use ferrio_stats::steadystate::{Judgement, WindowTest};

/// Measurement `index` (`iops`, `bw`: the members' sums) completed; the window now
/// holds `len` of its `n` measurements.
pub(super) fn measured(index: u64, iops: u64, bw: u64, len: usize, n: usize) {
    let n = n.max(1) as u64;
    let tail = index % n;
    let head = if (len as u64) < n { 0 } else { (tail + 1) % n };
    say(
        Steadystate,
        format_args!(
            "steadystate_check() measurement: {index}, iops: {iops}, bw: {bw}, head: {head}, tail: {tail}"
        ),
    );
}

/// A criterion was judged on the full window `ys` (oldest first).
pub(super) fn judged(ys: &[u64], test: WindowTest, j: &Judgement, limit: f64) {
    let sum_y: u64 = ys.iter().sum();
    match test {
        WindowTest::Deviation => say(
            Steadystate,
            format_args!(
                "sum_y: {sum_y}, mean: {:.6}, max diff: {:.6}, objective: {:.6}, limit: {limit:.6}",
                sum_y as f64 / ys.len().max(1) as f64,
                j.max_deviation,
                j.criterion
            ),
        ),
        WindowTest::Slope => {
            let sum_xy: u64 = ys.iter().enumerate().map(|(x, &y)| x as u64 * y).sum();
            say(
                Steadystate,
                format_args!(
                    "sum_y: {sum_y}, sum_xy: {sum_xy}, slope: {:.6}, criterion: {:.6}, limit: {limit:.6}",
                    j.slope, j.criterion
                ),
            )
        }
        WindowTest::Snia {
            range_pct,
            slope_pct,
        } => say(
            Steadystate,
            format_args!(
                "sum_y: {sum_y}, snia range: {:.6}% (limit {range_pct:.6}%), excursion: {:.6}% (limit {slope_pct:.6}%)",
                j.range_pct, j.excursion_pct
            ),
        ),
    }
}
