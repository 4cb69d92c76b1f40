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
}

impl PieceLog {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Log a write, dropping the older blocks it overlaps.
    pub fn insert(&mut self, p: Piece) {
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
        let mut all: Vec<Piece> = self.map.values().copied().collect();
        all.sort_by_key(|p| p.seq);
        all.truncate(n);
        for p in &all {
            self.map.remove(&(p.file, p.offset));
        }
        all
    }

    /// Take up to `n` blocks, lowest (file, offset) first.
    pub fn take(&mut self, n: usize) -> Vec<Piece> {
        let mut out = Vec::with_capacity(n.min(self.map.len()));
        while out.len() < n {
            match self.map.pop_first() {
                Some((_, p)) => out.push(p),
                None => break,
            }
        }
        out
    }
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
}
