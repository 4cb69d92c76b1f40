//! random_distribution=sequence (fio 3.42): a random job's offsets are a fixed list of
//! block indices, taken in order. As fio's __get_next_rand_offset_sequence: the n-th
//! I/O of a direction (its issue count, never reset between loops) takes entry
//! n mod len; with random_sequence_stride the entry is relative to group n / len, so
//! each round moves on by len blocks. A block at or past the file's end
//! (io_size / the smallest block) ends the I/O; when the list's own entry is past it,
//! that is an error (EINVAL).

use super::{Dist, NextIo, Pattern};
use crate::engine::IoOp;

impl Pattern {
    /// The next block of a sequence distribution; None when it lies past the file,
    /// which ends the job's I/O (recorded in `seq_end`).
    pub(super) fn sequence_block(&mut self, file: usize, d: usize) -> Option<u64> {
        let Dist::Sequence { blocks, stride } = &self.dist else {
            return None;
        };
        let b = sequence_index(blocks, *stride, self.io_issues[d]);
        let f = &self.files[file];
        let size = f.region.len + f.tail;
        let max_blocks = size / self.bs[d].min.max(1);
        if size == 0 || b < max_blocks {
            return Some(b);
        }
        let entry = blocks[(self.io_issues[d] % blocks.len() as u64) as usize];
        let error = (u64::from(entry) >= max_blocks).then(|| SeqError {
            entry,
            max_blocks,
            bs: self.bs[d].min.max(1),
            file,
        });
        self.seq_end = Some(error);
        None
    }

    /// Whether a sequence distribution ran past the file: the job issues no more I/O.
    pub fn sequence_ended(&self) -> bool {
        self.seq_end.is_some()
    }

    /// The error of a sequence distribution whose list names a block past the file
    /// (once), naming the file by `path(index)`.
    pub fn take_sequence_error(&mut self, path: impl Fn(usize) -> String) -> Option<String> {
        let e = self.seq_end.as_mut().and_then(Option::take)?;
        Some(format!(
            "random_distribution=sequence: block {} is past the end of {} ({} blocks of {} bytes)",
            e.entry,
            path(e.file),
            e.max_blocks,
            e.bs
        ))
    }

    /// What `generate` hands out once a sequence ended, where an I/O is required: an
    /// empty one (its callers stop at a zero length or check `sequence_ended`).
    pub(super) fn ended_io(&self) -> NextIo {
        NextIo {
            op: IoOp::Read,
            file: 0,
            offset: self.files.first().map_or(0, |f| f.region.start),
            len: 0,
            follow_up: false,
        }
    }
}

/// A `sequence:` entry past the end of a file.
#[derive(Clone, Copy, Debug)]
pub(super) struct SeqError {
    entry: u32,
    max_blocks: u64,
    bs: u64,
    file: usize,
}

/// fio's block for issue number `n` of a direction.
pub(super) fn sequence_index(blocks: &[u32], stride: bool, n: u64) -> u64 {
    let len = blocks.len().max(1) as u64;
    let entry = blocks.get((n % len) as usize).copied().unwrap_or(0) as u64;
    if stride {
        n / len * len + entry
    } else {
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::sequence_index;

    fn first(blocks: &[u32], stride: bool, n: u64) -> Vec<u64> {
        (0..n).map(|i| sequence_index(blocks, stride, i)).collect()
    }

    #[test]
    fn fixed_sequence_repeats_the_absolute_indices() {
        // fio's sequence-distribution example, first job: 2, 0, 1 over and over.
        assert_eq!(first(&[2, 0, 1], false, 7), [2, 0, 1, 2, 0, 1, 2]);
        assert_eq!(first(&[5], false, 3), [5, 5, 5]);
    }

    #[test]
    fn strided_sequence_moves_on_by_the_list_length() {
        // The example's second job: group 0 is 2, 0, 1; group 1 is 5, 3, 4.
        assert_eq!(first(&[2, 0, 1], true, 6), [2, 0, 1, 5, 3, 4]);
        // An entry may reach past its group (fio adds it to group·len unchecked).
        assert_eq!(first(&[0, 4], true, 4), [0, 4, 2, 6]);
    }
}
