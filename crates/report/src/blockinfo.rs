//! block_error_percentiles: fio's "block lifetime percentiles" of a job's trim
//! blocks, in the normal output (here) and as JSON "block" (json/job.rs). Each block is one u32, fio's
//! encoding: the state in the top 3 bits, the trims counted in the other 29.
//!
//! As fio's calc_block_percentiles means to: blocks are sorted by category
//! (unwritten, then trimmed or written, then failed), trims, state; a percentile p
//! is the trims of the block at `p * (n - unwritten) / 100 + unwritten`. (fio 3.33
//! sorts the u32s as u64s and aborts on an assertion; ferrio sorts the u32s.)

const SHIFT: u32 = 29;

/// A block's state (fio's enum block_info_state, in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Unwritten = 0,
    Trimmed = 1,
    Written = 2,
    TrimFailure = 3,
    WriteFailure = 4,
}

/// Each state with fio's name for it, in fio's order.
pub const STATES: [(State, &str); 5] = [
    (State::Unwritten, "unwritten"),
    (State::Trimmed, "trimmed"),
    (State::Written, "written"),
    (State::TrimFailure, "trim failure"),
    (State::WriteFailure, "write failure"),
];

impl State {
    pub fn failed(self) -> bool {
        self >= State::TrimFailure
    }
    fn category(self) -> u8 {
        match self {
            State::Unwritten => 0,
            State::Trimmed | State::Written => 1,
            _ => 2,
        }
    }
}

/// One block's info word.
pub fn info(state: State, trims: u32) -> u32 {
    (trims & ((1 << SHIFT) - 1)) | ((state as u32) << SHIFT)
}

pub fn trims_of(b: u32) -> u32 {
    b & ((1 << SHIFT) - 1)
}

pub fn state_of(b: u32) -> State {
    STATES
        .get((b >> SHIFT) as usize)
        .map_or(State::WriteFailure, |s| s.0)
}

/// (percentile, trims) for each entry of `plist` (sorted), or empty when every block
/// is unwritten; and the count of blocks in each state.
pub fn percentiles(plist: &[f64], blocks: &[u32]) -> (Vec<(f64, u32)>, [u32; 5]) {
    let mut sorted = blocks.to_vec();
    sorted.sort_by_key(|&b| (state_of(b).category(), trims_of(b), state_of(b)));
    let mut counts = [0u32; 5];
    for &b in &sorted {
        counts[state_of(b) as usize] += 1;
    }
    let mut plist: Vec<f64> = plist.iter().copied().filter(|p| *p != 0.0).collect();
    plist.sort_by(f64::total_cmp);
    let uninit = sorted
        .iter()
        .take_while(|&&b| state_of(b) == State::Unwritten)
        .count();
    if uninit == sorted.len() {
        return (Vec::new(), counts);
    }
    let n = (sorted.len() - uninit) as f64;
    let out = plist
        .iter()
        .map(|&p| {
            let i = ((p * n / 100.0) as usize + uninit).min(sorted.len() - 1);
            (p, trims_of(sorted[i]))
        })
        .collect();
    (out, counts)
}

/// The normal output's lines (after "latency :"), wrapped at fio's 75 columns.
pub fn render(plist: &[f64], blocks: &[u32]) -> String {
    let (pct, counts) = percentiles(plist, blocks);
    let mut out = String::from("  block lifetime percentiles :\n   |");
    let mut pos = 0;
    for (i, (p, trims)) in pct.iter().enumerate() {
        let end = if i + 1 == pct.len() { '\n' } else { ',' };
        let s = format!(" {p:3.2}th={trims}{end}");
        if pos + s.len() > 75 {
            pos = 0;
            out.push_str("\n   |");
        }
        out.push_str(&s);
        pos += s.len();
    }
    out.push_str("        states               :");
    for (i, (_, name)) in STATES.iter().enumerate() {
        let end = if i + 1 == STATES.len() { '\n' } else { ',' };
        out.push_str(&format!(" {name}={}{end}", counts[i]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIO_LIST: [f64; 17] = [
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ];

    #[test]
    fn percentiles_skip_unwritten_blocks() {
        // 2 unwritten, trims 1..=8 on 8 blocks.
        let mut b = vec![info(State::Unwritten, 0); 2];
        b.extend((1..=8).rev().map(|t| info(State::Trimmed, t)));
        let (p, counts) = percentiles(&[50.0, 1.0, 99.99], &b);
        assert_eq!(p, vec![(1.0, 1), (50.0, 5), (99.99, 8)]);
        assert_eq!(counts, [2, 8, 0, 0, 0]);
        // Failed blocks sort last whatever their trims.
        b.push(info(State::TrimFailure, 0));
        let (p, counts) = percentiles(&[99.99], &b);
        assert_eq!(p, vec![(99.99, 0)]);
        assert_eq!(counts[3], 1);
    }

    #[test]
    fn normal_lines_wrap_at_75_columns_like_fio() {
        let b: Vec<u32> = (0..16).map(|_| info(State::Trimmed, 3)).collect();
        let out = render(&FIO_LIST, &b);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "  block lifetime percentiles :");
        assert_eq!(
            lines[1],
            "   | 1.00th=3, 5.00th=3, 10.00th=3, 20.00th=3, 30.00th=3, 40.00th=3, 50.00th=3,"
        );
        assert!(lines[3].ends_with("99.99th=3"), "{out}");
        assert_eq!(
            lines[4],
            "        states               : unwritten=0, trimmed=16, written=0, trim failure=0, write failure=0"
        );
        // Nothing trimmed: no percentiles, the states on the "|" line (fio's shape).
        let none = render(&FIO_LIST, &[0, 0]);
        assert!(none.contains("   |        states               : unwritten=2,"));
        assert!(percentiles(&FIO_LIST, &[0, 0]).0.is_empty());
    }
}
