//! The written blocks still to be verified (fio's io_piece log): per file, by
//! offset, the latest write of each range — a write over part of an older block
//! replaces it, as fio's rbtree does.

use std::collections::BTreeMap;

/// One written block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub file: usize,
    pub offset: u64,
    pub len: usize,
    /// The seed its data came from (None: unknown, verify_only).
    pub seed: Option<u64>,
    /// The job's write counter when it was issued (None: unknown).
    pub numberio: Option<u16>,
    /// Trimmed since written: it must read back as zeros.
    pub trimmed: bool,
    /// The job's write it came from (0-based, in issue order).
    pub seq: u64,
}

#[derive(Default)]
pub struct PieceLog {
    map: BTreeMap<(usize, u64), Piece>,
    /// Writes logged since the map was last brought up to date, in issue order.
    /// Logging a write only appends (fio appends to a list where it can): a B-tree
    /// insert per 4 KiB random write cost a large verify job ~7 % of its time in
    /// cache misses. `settle` sorts them in at once when the log is next read.
    pending: Vec<Piece>,
}

impl PieceLog {
    /// The blocks logged, overlaps resolved (settles the pending writes).
    pub fn len(&mut self) -> usize {
        self.settle();
        self.map.len()
    }

    /// Exact without settling: the latest write is always in the log.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty() && self.pending.is_empty()
    }

    /// Log a write; it replaces the older blocks it overlaps (when the log is read).
    pub fn insert(&mut self, p: Piece) {
        self.pending.push(p);
    }

    /// Bring the map up to date with the pending writes. When none of them
    /// overlaps another or a block already logged (every write of a job with a
    /// random map, or of one sequential pass), they go in sorted, in one build when
    /// the map is empty; otherwise one by one in issue order, each dropping what it
    /// overlaps.
    fn settle(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        let spans = spans_of(&pending);
        let clear_of_map = self.map.is_empty()
            || spans
                .iter()
                .all(|&(file, offset, end)| !self.overlaps(file, offset, end));
        if !(apart(&spans) && clear_of_map) {
            for p in pending {
                self.place(p);
            }
            return;
        }
        pending.sort_unstable_by_key(|p| (p.file, p.offset));
        let sorted = pending.into_iter().map(|p| ((p.file, p.offset), p));
        if self.map.is_empty() {
            self.map = sorted.collect();
        } else {
            self.map.extend(sorted);
        }
    }

    /// Whether [offset, end) of `file` overlaps a logged block.
    fn overlaps(&self, file: usize, offset: u64, end: u64) -> bool {
        self.map
            .range((file, 0)..(file, end))
            .next_back()
            .is_some_and(|(_, q)| q.offset + q.len as u64 > offset)
    }

    /// Log one write now, dropping the older blocks it overlaps.
    fn place(&mut self, p: Piece) {
        let end = p.offset + p.len as u64;
        let overlapping: Vec<(usize, u64)> = self
            .map
            .range((p.file, 0)..(p.file, end))
            .rev()
            .take_while(|(_, q)| q.offset + q.len as u64 > p.offset)
            .map(|(k, _)| *k)
            .collect();
        for k in overlapping {
            self.map.remove(&k);
        }
        self.map.insert((p.file, p.offset), p);
    }

    /// Mark the block written at (file, offset) with `len` bytes trimmed, or drop it
    /// from the log (`keep` false). False when a later write replaced it.
    pub fn trimmed(&mut self, file: usize, offset: u64, len: usize, keep: bool) -> bool {
        self.settle();
        match self.map.get_mut(&(file, offset)) {
            Some(p) if p.len == len => {
                if keep {
                    p.trimmed = true;
                } else {
                    self.map.remove(&(file, offset));
                }
                true
            }
            _ => false,
        }
    }

    /// Take up to `n` blocks, the oldest writes first (fio's io_piece list, kept
    /// when it has a random map).
    pub fn take_oldest(&mut self, n: usize) -> Vec<Piece> {
        // Every block of a random-map job's writes, at its verify phase: all still
        // pending, none overlapping another, logged oldest first. They are the
        // answer as they are (no map to build, no sort by age, no removals).
        if self.map.is_empty()
            && n >= self.pending.len()
            && self.pending.windows(2).all(|w| w[0].seq <= w[1].seq)
            && apart(&spans_of(&self.pending))
        {
            return std::mem::take(&mut self.pending);
        }
        self.settle();
        let mut all: Vec<Piece> = if n >= self.map.len() {
            std::mem::take(&mut self.map).into_values().collect()
        } else {
            self.map.values().copied().collect()
        };
        all.sort_by_key(|p| p.seq);
        if all.len() > n {
            all.truncate(n);
            for p in &all {
                self.map.remove(&(p.file, p.offset));
            }
        }
        all
    }

    /// Take up to `n` blocks, lowest (file, offset) first.
    pub fn take(&mut self, n: usize) -> Vec<Piece> {
        self.settle();
        if n >= self.map.len() {
            return std::mem::take(&mut self.map).into_values().collect();
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match self.map.pop_first() {
                Some((_, p)) => out.push(p),
                None => break,
            }
        }
        out
    }
}

/// Each piece's (file, start, end), sorted.
fn spans_of(pieces: &[Piece]) -> Vec<(usize, u64, u64)> {
    let mut spans: Vec<(usize, u64, u64)> = pieces
        .iter()
        .map(|p| (p.file, p.offset, p.offset + p.len as u64))
        .collect();
    spans.sort_unstable();
    spans
}

/// Whether no two of the sorted `spans` overlap. (Distinct starts too: two empty
/// writes at one offset do not overlap, but the later must be the one kept.)
fn apart(spans: &[(usize, u64, u64)]) -> bool {
    spans
        .windows(2)
        .all(|w| w[0].0 != w[1].0 || (w[0].2 <= w[1].1 && w[0].1 != w[1].1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(offset: u64, len: usize) -> Piece {
        Piece {
            file: 0,
            offset,
            len,
            seed: None,
            numberio: None,
            trimmed: false,
            seq: 0,
        }
    }

    #[test]
    fn a_later_write_replaces_what_it_overlaps() {
        let mut log = PieceLog::default();
        log.insert(piece(0, 4096));
        log.insert(piece(4096, 4096));
        log.insert(piece(8192, 4096));
        log.insert(piece(2048, 4096)); // over the first two
        let all = log.take(10);
        assert_eq!(all, vec![piece(2048, 4096), piece(8192, 4096)]);
    }

    #[test]
    fn take_oldest_is_in_write_order() {
        let mut log = PieceLog::default();
        for (seq, off) in [(0, 8192), (1, 0), (2, 4096)] {
            log.insert(Piece {
                seq,
                ..piece(off, 4096)
            });
        }
        let got: Vec<u64> = log.take_oldest(2).iter().map(|p| p.offset).collect();
        assert_eq!(got, [8192, 0]);
        assert_eq!(log.take(5).len(), 1);
    }

    #[test]
    fn take_is_in_offset_order_and_bounded() {
        let mut log = PieceLog::default();
        for o in [3, 1, 2] {
            log.insert(piece(o * 4096, 4096));
        }
        assert_eq!(log.take(2), vec![piece(4096, 4096), piece(8192, 4096)]);
        assert_eq!(log.len(), 1);
    }

    /// The pending writes settle as the writes one by one would: overlaps drop
    /// the older block, whether they come in one batch or across reads of the log.
    #[test]
    fn settling_matches_writing_one_by_one() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..200 {
            let mut batched = PieceLog::default();
            let mut direct = PieceLog::default();
            let writes = 1 + next(40) as usize;
            for seq in 0..writes as u64 {
                let p = Piece {
                    file: next(2) as usize,
                    seq,
                    // Some rounds never overlap (block-aligned, distinct), some do.
                    ..if round % 2 == 0 {
                        piece(seq * 4096, 4096)
                    } else {
                        piece(next(64) * 512, 512 * (1 + next(16) as usize))
                    }
                };
                batched.insert(p);
                direct.place(p);
                if next(10) == 0 {
                    batched.settle(); // a read of the log in between
                }
            }
            assert_eq!(
                batched.take(usize::MAX),
                direct.take(usize::MAX),
                "round {round}"
            );
        }
    }

    /// take_oldest's shortcut (everything pending, nothing overlapping) gives what
    /// the map gives, in full and in part, with and without overlaps.
    #[test]
    fn take_oldest_matches_writing_one_by_one() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..300 {
            let mut batched = PieceLog::default();
            let mut direct = PieceLog::default();
            let writes = 1 + next(40);
            for seq in 0..writes {
                let p = Piece {
                    file: next(2) as usize,
                    seq,
                    ..if round % 2 == 0 {
                        piece(next(1 << 20) * 4096, 4096) // (distinct but for chance)
                    } else {
                        piece(next(64) * 512, 512 * (1 + next(16) as usize))
                    }
                };
                batched.insert(p);
                direct.place(p);
            }
            let n = if round % 3 == 0 {
                usize::MAX
            } else {
                1 + next(writes) as usize
            };
            assert_eq!(
                batched.take_oldest(n),
                direct.take_oldest(n),
                "round {round}"
            );
            assert_eq!(
                batched.take(usize::MAX),
                direct.take(usize::MAX),
                "round {round}"
            );
        }
    }

    #[test]
    fn is_empty_and_len_see_pending_writes() {
        let mut log = PieceLog::default();
        assert!(log.is_empty());
        log.insert(piece(0, 4096));
        log.insert(piece(0, 4096));
        assert!(!log.is_empty());
        assert_eq!(log.len(), 1);
    }
}
