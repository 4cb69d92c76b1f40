//! What the next I/O is: direction, file, offset and length.
//!
//! Follows fio's rules: sequential positions are kept per file and per direction;
//! random offsets come from a per-file random map (every block once per pass, here
//! an O(1) [`Permutation`]) unless `norandommap` or a non-uniform distribution is
//! used; mixed workloads draw the direction per I/O from `rwmixread`; `rw=...:N`
//! and `rw_sequencer` change how often a new offset is generated.

use super::distribution::BlockPicker;
use super::permutation::Permutation;
use crate::engine::IoOp;
use crate::random::Rng;
use ferrio_config::{BlockSize, JobSpec, RandomDistribution, RwKind, RwSequencer};

/// The part of a file a job does I/O to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// First byte (fio's file offset).
    pub start: u64,
    /// Length in bytes (fio's io_size per file).
    pub len: u64,
}

/// One generated I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    pub op: IoOp,
    pub file: usize,
    pub offset: u64,
    pub len: u64,
    /// The write half of a trimwrite pair: it does not count toward the pass's bytes
    /// (fio trims io_size bytes and also writes io_size bytes).
    pub follow_up: bool,
}

#[derive(Clone, Debug)]
struct FileCursor {
    region: Region,
    /// Next sequential position per direction, relative to region.start.
    seq_pos: [u64; 3],
    /// Random map for this pass (None with norandommap or a non-uniform distribution).
    map: Option<Permutation>,
    /// Non-uniform pickers per direction.
    pickers: [Option<BlockPicker>; 3],
    /// Last offset per direction (relative) and I/Os left on it for `rw=...:N`.
    last: [u64; 3],
    repeat_left: [u64; 3],
}

/// The per-thread I/O pattern generator.
pub struct Pattern {
    kind: RwKind,
    random: bool,
    /// rw=randxxx:N — I/Os per generated random offset (1 = a new offset every I/O).
    repeat: u64,
    /// rw=xxx:N for sequential I/O — bytes added to the offset after each I/O; negative
    /// steps go backwards and wrap to the end of the region.
    step: i64,
    sequencer: RwSequencer,
    rwmixread: u32,
    pct_random: [u32; 3],
    bs: [BlockSize; 3],
    /// Granularity of random offsets per direction.
    align: [u64; 3],
    unaligned: bool,
    norandommap: bool,
    uniform: bool,
    /// Smallest block over the directions in use: the random map's block.
    map_block: u64,
    files: Vec<FileCursor>,
    next_file: usize,
    /// trimwrite: the block just trimmed, to be written next.
    pending_write: Option<NextIo>,
    rng: Rng,
}

impl Pattern {
    pub fn new(spec: &JobSpec, regions: &[Region], seed: u64) -> Pattern {
        let mut rng = Rng::new(seed);
        let align: [u64; 3] = std::array::from_fn(|d| {
            if spec.blockalign[d] > 0 {
                spec.blockalign[d]
            } else {
                spec.bs[d].min.max(1)
            }
        });
        let used = spec.rw.kind.directions();
        let map_block = (0..3)
            .filter(|&d| used[d])
            .map(|d| align[d])
            .min()
            .unwrap_or(4096)
            .max(1);
        let uniform = matches!(spec.random_distribution, RandomDistribution::Random);
        let random = spec.rw.random;
        let files = regions
            .iter()
            .map(|&region| new_cursor(region, spec, random, uniform, map_block, &align, &mut rng))
            .collect();
        Pattern {
            kind: spec.rw.kind,
            random,
            repeat: if random { spec.rw.nr.max(1) as u64 } else { 1 },
            step: if !random && spec.rw.nr != 1 {
                spec.rw.nr
            } else {
                0
            },
            sequencer: spec.rw_sequencer,
            rwmixread: spec.rwmixread,
            pct_random: spec.percentage_random,
            bs: spec.bs.clone(),
            align,
            unaligned: spec.bs_unaligned,
            norandommap: spec.norandommap,
            uniform,
            map_block,
            files,
            next_file: 0,
            pending_write: None,
            rng,
        }
    }

    /// Start a new pass (a new loop, or wrapping a time-based run): positions back to
    /// the start, fresh random maps.
    pub fn reset_pass(&mut self) {
        let random = self.random && !self.norandommap && self.uniform;
        for f in &mut self.files {
            f.seq_pos = [0; 3];
            f.repeat_left = [0; 3];
            if random {
                f.map = Some(Permutation::new(
                    f.region.len / self.map_block,
                    &mut self.rng,
                ));
            }
        }
        self.pending_write = None;
    }

    /// The next I/O to issue, at most `max_len` bytes long (the rest of the pass).
    #[inline]
    pub fn next_io(&mut self, max_len: u64) -> NextIo {
        if let Some(w) = self.pending_write.take() {
            return w;
        }
        let d = self.pick_ddir();
        let len = self.pick_len(d).min(max_len);
        let file = self.next_file;
        self.next_file += 1;
        if self.next_file == self.files.len() {
            self.next_file = 0;
        }
        let (offset, len) = self.pick_offset(file, d, len);
        let op = match d {
            0 => IoOp::Read,
            1 => IoOp::Write,
            _ => IoOp::Trim,
        };
        let io = NextIo {
            op,
            file,
            offset,
            len,
            follow_up: false,
        };
        if self.kind == RwKind::TrimWrite {
            self.pending_write = Some(NextIo {
                op: IoOp::Write,
                follow_up: true,
                ..io
            });
        }
        io
    }

    #[inline]
    fn pick_ddir(&mut self) -> usize {
        match self.kind {
            RwKind::Read => 0,
            RwKind::Write => 1,
            RwKind::Trim | RwKind::TrimWrite => 2,
            RwKind::ReadWrite => {
                if self.rng.below(100) < self.rwmixread as u64 {
                    0
                } else {
                    1
                }
            }
        }
    }

    #[inline]
    fn pick_len(&mut self, d: usize) -> u64 {
        let bs = &self.bs[d];
        if !bs.split.is_empty() {
            let v = self.rng.below(100) as u32;
            let mut acc = 0;
            for &(size, pct) in &bs.split {
                acc += pct;
                if v < acc {
                    return size;
                }
            }
            return bs.split[bs.split.len() - 1].0;
        }
        if bs.min == bs.max {
            return bs.min;
        }
        let mut len = bs.min + self.rng.below(bs.max - bs.min + 1);
        if !self.unaligned && bs.min.is_power_of_two() {
            len &= !(bs.min - 1);
        }
        len.max(bs.min)
    }

    fn pick_offset(&mut self, file: usize, d: usize, len: u64) -> (u64, u64) {
        let random = self.random
            && (self.pct_random[d] >= 100 || self.rng.below(100) < self.pct_random[d] as u64);
        let (repeat, step) = (self.repeat, self.step);
        let identical = self.sequencer == RwSequencer::Identical;
        let f = &mut self.files[file];
        let region_len = f.region.len.max(1);
        let rel = if random {
            if f.repeat_left[d] > 0 {
                // rw=randxxx:N — stay on (identical) or next to (sequential) the last offset.
                f.repeat_left[d] -= 1;
                if identical {
                    f.last[d]
                } else {
                    let p = f.last[d] + len;
                    if p + len > region_len {
                        0
                    } else {
                        p
                    }
                }
            } else {
                f.repeat_left[d] = repeat - 1;
                random_offset(f, d, self.map_block, &self.align, &mut self.rng)
            }
        } else {
            let mut p = f.seq_pos[d];
            if p >= region_len {
                p = 0;
            }
            // Sequential: the :N suffix moves the next offset by N more bytes.
            let next = p as i64 + len as i64 + if self.random { 0 } else { step };
            f.seq_pos[d] = if next < 0 {
                (next + region_len as i64).max(0) as u64
            } else {
                next as u64
            };
            p
        };
        f.last[d] = rel;
        let len = len.min(region_len - rel.min(region_len - 1));
        (f.region.start + rel, len)
    }

    /// Whether an I/O is owed before the pass can end (the write of a trimwrite pair).
    pub fn has_pending(&self) -> bool {
        self.pending_write.is_some()
    }

    /// Blocks in a pass of the random map, summed over files (for tests and sizing).
    pub fn map_blocks(&self) -> u64 {
        self.files
            .iter()
            .map(|f| f.region.len / self.map_block)
            .sum()
    }
}

fn new_cursor(
    region: Region,
    spec: &JobSpec,
    random: bool,
    uniform: bool,
    map_block: u64,
    align: &[u64; 3],
    rng: &mut Rng,
) -> FileCursor {
    let map = (random && uniform && !spec.norandommap)
        .then(|| Permutation::new(region.len / map_block, rng));
    let pickers = std::array::from_fn(|d| {
        if random {
            BlockPicker::new(
                &spec.random_distribution,
                d,
                region.len / align[d].max(1),
                align[d],
            )
        } else {
            None
        }
    });
    FileCursor {
        region,
        seq_pos: [0; 3],
        map,
        pickers,
        last: [0; 3],
        repeat_left: [0; 3],
    }
}

fn random_offset(
    f: &mut FileCursor,
    d: usize,
    map_block: u64,
    align: &[u64; 3],
    rng: &mut Rng,
) -> u64 {
    if let Some(p) = &f.pickers[d] {
        return p.pick(rng) * align[d];
    }
    if let Some(map) = &mut f.map {
        let idx = match map.next_index() {
            Some(i) => i,
            None => {
                // The pass used every block (io_size > size): start a new map.
                *map = Permutation::new(f.region.len / map_block, rng);
                map.next_index().unwrap_or(0)
            }
        };
        return idx * map_block;
    }
    let blocks = (f.region.len / align[d].max(1)).max(1);
    rng.below(blocks) * align[d]
}
