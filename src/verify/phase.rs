//! The verify phase's blocks, found again as their reads complete.
//!
//! fio's io_u carries the io_piece it reads back. Here a completed read is matched to
//! its block by (file, offset): the blocks are kept in the order they are read back,
//! so the one that completes is almost always at, or a few past, a cursor that
//! follows the completions (a sequential walk the CPU prefetches; a binary search or
//! a hash map of a large phase missed the cache once or more per block, up to a
//! microsecond each). A read that completes far out of that order falls back to a
//! map by (file, offset), built the first time one does.

use super::log::Piece;
use std::collections::HashMap;

/// How far past the cursor a completion is looked for before the map: completions
/// come back at most an iodepth out of order, and 256 covers fio's usual depths.
const WINDOW: usize = 256;

#[derive(Default)]
pub struct Phase {
    /// In the order they are read back.
    pieces: Vec<Piece>,
    /// Per piece: its read completed (looked up) already.
    found: Vec<bool>,
    /// Every piece before it has been found.
    cursor: usize,
    /// (file, offset) → index, built on the first lookup outside the window.
    by_key: Option<HashMap<(usize, u64), usize>>,
}

impl Phase {
    /// The blocks of a phase, in the order their reads are issued.
    pub fn new(pieces: Vec<Piece>) -> Phase {
        Phase {
            found: vec![false; pieces.len()],
            pieces,
            cursor: 0,
            by_key: None,
        }
    }

    /// The block read back at (file, offset), if the phase has one.
    pub fn find(&mut self, file: usize, offset: u64) -> Option<Piece> {
        let end = (self.cursor + WINDOW).min(self.pieces.len());
        let near = (self.cursor..end).find(|&i| {
            let p = &self.pieces[i];
            p.offset == offset && p.file == file
        });
        let i = match near {
            Some(i) => i,
            None => *self
                .by_key
                .get_or_insert_with(|| {
                    self.pieces
                        .iter()
                        .enumerate()
                        .map(|(i, p)| ((p.file, p.offset), i))
                        .collect()
                })
                .get(&(file, offset))?,
        };
        self.found[i] = true;
        while self.cursor < self.pieces.len() && self.found[self.cursor] {
            self.cursor += 1;
        }
        Some(self.pieces[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(file: usize, offset: u64) -> Piece {
        Piece {
            file,
            offset,
            len: 4096,
            seed: Some(offset),
            numberio: None,
            trimmed: false,
            seq: 0,
        }
    }

    #[test]
    fn finds_in_order_out_of_order_and_far_away() {
        let pieces: Vec<Piece> = (0..2000u64)
            .map(|i| piece((i % 3) as usize, i * 4096))
            .collect();
        let mut phase = Phase::new(pieces.clone());
        // A few out of order near the cursor, then in order.
        for i in [2usize, 0, 1, 3, 5, 4] {
            assert_eq!(
                phase.find(pieces[i].file, pieces[i].offset),
                Some(pieces[i])
            );
        }
        assert_eq!(phase.cursor, 6);
        assert!(phase.by_key.is_none(), "the window should have done");
        // Far past the window: the map.
        assert_eq!(
            phase.find(pieces[1999].file, pieces[1999].offset),
            Some(pieces[1999])
        );
        assert!(phase.by_key.is_some());
        // Found twice, and behind the cursor: still found.
        assert_eq!(
            phase.find(pieces[0].file, pieces[0].offset),
            Some(pieces[0])
        );
        // Not a block of the phase (another file): none.
        assert_eq!(phase.find(7, 0), None);
        assert_eq!(phase.find(pieces[10].file + 1, pieces[10].offset), None);
    }

    #[test]
    fn an_empty_phase_finds_nothing() {
        assert_eq!(Phase::default().find(0, 0), None);
    }
}
