//! fio's log line formats (iolog.c `flush_samples` / `flush_hist_samples` as the
//! HOWTO describes them), as pure functions.

use ferrio_stats::histogram::FIO_PLAT_NR;
use ferrio_stats::LatencyHistogram;
use std::fmt::Write;

/// Which optional columns a log line has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// log_window_value=both: a second value column (the window's maximum).
    pub both: bool,
    /// log_offset: an offset column after bs.
    pub offset: bool,
    /// log_prio: the priority column as `0x%04x` (else the RT-class bit, 0 or 1).
    pub prio: bool,
    /// log_issue_time: an issue-time column at the end.
    pub issue_time: bool,
}

/// One entry: `time, value[, max], ddir, bs[, offset], prio[, issue_time]`.
/// Averaged entries have bs, offset and issue time 0 and priority 0, as in fio.
/// `ioprio` is the I/O's priority: printed whole with log_prio, else as fio's
/// realtime-class bit.
#[allow(clippy::too_many_arguments)]
pub fn sample_line(
    out: &mut String,
    c: Columns,
    time_ms: u64,
    value: u64,
    max: u64,
    ddir: usize,
    bs: u64,
    offset: u64,
    issue_ns: u64,
    ioprio: u32,
) {
    let _ = write!(out, "{time_ms}, {value}");
    if c.both {
        let _ = write!(out, ", {max}");
    }
    let _ = write!(out, ", {ddir}, {bs}");
    if c.offset {
        let _ = write!(out, ", {offset}");
    }
    if c.prio {
        let _ = write!(out, ", 0x{ioprio:04x}");
    } else {
        let _ = write!(out, ", {}", u8::from(ioprio >> 13 == 1));
    }
    if c.issue_time {
        let _ = write!(out, ", {issue_ns}");
    }
    out.push('\n');
}

/// Count in fio's histogram bin `i` of `now - then` (fio's last bin also holds every
/// larger value, which ferrio keeps in further buckets).
fn bin(now: &LatencyHistogram, then: &LatencyHistogram, i: usize) -> u64 {
    let one = |k: usize| now.bucket(k).saturating_sub(then.bucket(k));
    if i + 1 < FIO_PLAT_NR {
        one(i)
    } else {
        (i..ferrio_stats::histogram::PLAT_NR).map(one).sum()
    }
}

/// A histogram entry: `time, ddir, bs, b0, b1, ...` with the samples recorded between
/// `then` and `now`, fio's 1856 bins summed in groups of 2^coarseness.
pub fn hist_line(
    out: &mut String,
    time_ms: u64,
    ddir: usize,
    bs: u64,
    now: &LatencyHistogram,
    then: &LatencyHistogram,
    coarseness: u32,
) {
    let stride = 1usize << coarseness.min(6);
    let _ = write!(out, "{time_ms}, {ddir}, {bs}");
    let mut j = 0;
    while j < FIO_PLAT_NR {
        let sum: u64 = (j..(j + stride).min(FIO_PLAT_NR))
            .map(|i| bin(now, then, i))
            .sum();
        let _ = write!(out, ", {sum}");
        j += stride;
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_stats::plat_val_to_idx;

    #[test]
    fn sample_columns_like_fio() {
        let mut s = String::new();
        sample_line(&mut s, Columns::default(), 500, 15860424, 0, 0, 0, 0, 0, 0);
        assert_eq!(s, "500, 15860424, 0, 0, 0\n");
        s.clear();
        let all = Columns {
            both: true,
            offset: true,
            prio: true,
            issue_time: true,
        };
        sample_line(&mut s, all, 300, 10, 20, 1, 0, 0, 0, 0);
        assert_eq!(s, "300, 10, 20, 1, 0, 0, 0x0000, 0\n");
        // An I/O's priority: whole with log_prio, else the realtime-class bit.
        s.clear();
        sample_line(&mut s, all, 1, 2, 2, 0, 4096, 0, 9, (1 << 13) | 4);
        assert_eq!(s, "1, 2, 2, 0, 4096, 0, 0x2004, 9\n");
        for (prio, bit) in [((1 << 13) | 4, "1"), ((2 << 13) | 4, "0"), (3 << 13, "0")] {
            s.clear();
            sample_line(&mut s, Columns::default(), 1, 2, 2, 0, 4096, 0, 0, prio);
            assert_eq!(s, format!("1, 2, 0, 4096, {bit}\n"));
        }
    }

    #[test]
    fn hist_bins_and_coarseness() {
        let then = LatencyHistogram::new();
        let mut now = LatencyHistogram::new();
        now.record(5);
        now.record(1000);
        now.record(1000);
        now.record(100_000_000_000); // beyond fio's range: its last bin
        let mut s = String::new();
        hist_line(&mut s, 501, 0, 4096, &now, &then, 0);
        let f: Vec<u64> = s.trim().split(", ").map(|x| x.parse().unwrap()).collect();
        assert_eq!(f.len(), 3 + 1856);
        assert_eq!(&f[..3], &[501, 0, 4096]);
        assert_eq!(f[3 + 5], 1);
        assert_eq!(f[3 + plat_val_to_idx(1000)], 2);
        assert_eq!(f[3 + 1855], 1);
        assert_eq!(f[3..].iter().sum::<u64>(), 4);
        s.clear();
        hist_line(&mut s, 501, 0, 4096, &now, &then, 6);
        let f: Vec<u64> = s.trim().split(", ").map(|x| x.parse().unwrap()).collect();
        assert_eq!(f.len(), 3 + 29);
        assert_eq!(f[3], 1);
        assert_eq!(f[3..].iter().sum::<u64>(), 4);
    }
}
