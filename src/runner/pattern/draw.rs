//! The draws behind each I/O, in fio's order and with fio's arithmetic: the direction
//! (get_rw_ddir), the length (get_next_buflen), the offset (get_next_block with the
//! random map, LFSR, zoned and non-uniform distributions) and the random map's marking.

use super::{Dist, Pattern};
use ferrio_config::{RwKind, RwSequencer};

impl Pattern {
    /// fio's get_rw_ddir: a mixed job keeps its direction until it has issued its
    /// share, then draws again.
    #[inline]
    pub(super) fn pick_ddir(&mut self) -> usize {
        match self.kind {
            RwKind::Read => 0,
            RwKind::Write => 1,
            RwKind::Trim | RwKind::TrimWrite => 2,
            RwKind::ReadWrite => {
                if self.io_issues[self.rwmix_ddir] >= self.rwmix_issues {
                    let v = self.rng.rwmix.between(1, 100);
                    let d = if v <= self.rwmix[0] { 0 } else { 1 };
                    if d != self.rwmix_ddir {
                        let old = self.rwmix_ddir;
                        self.rwmix_issues = self.io_issues[old] * self.rwmix[old ^ 1] / 100;
                    }
                    self.rwmix_ddir = d;
                }
                self.rwmix_ddir = self.rate_ddir(self.rwmix_ddir);
                self.rwmix_ddir
            }
        }
    }

    /// fio's get_next_buflen: a fixed size, or a draw from the direction's stream
    /// (bsrange: min + max·u, aligned down to min; bssplit: the first entry whose
    /// cumulative percentage covers the draw and that fits).
    pub(super) fn pick_len(&mut self, d: usize, rel: u64, region_len: u64) -> u64 {
        let bs = &self.bs[d];
        let (minbs, maxbs) = (bs.min.max(1), bs.max.max(bs.min).max(1));
        if minbs == maxbs {
            return minbs;
        }
        let fits = |len: u64| rel + len <= region_len;
        if !fits(minbs) {
            return minbs;
        }
        let rng = &mut self.rng.bs[d];
        let rmax = rng.max();
        for _ in 0..10_000 {
            let r = rng.draw();
            let mut len = 0;
            if bs.split.is_empty() {
                len = minbs + (maxbs as f64 * (r as f64 / (rmax as f64 + 1.0))) as u64;
            } else {
                let mut perc = 0u64;
                for &(size, p) in &bs.split {
                    if p == 0 {
                        continue;
                    }
                    len = size;
                    perc += p as u64;
                    if r / perc <= rmax / 100 && fits(len) {
                        break;
                    }
                }
            }
            if !self.unaligned {
                if minbs.is_power_of_two() {
                    len &= !(minbs - 1);
                } else {
                    len -= len % minbs;
                }
            }
            len = len.min(maxbs);
            if fits(len) {
                return len;
            }
        }
        minbs
    }

    /// fio's get_next_block: (offset relative to the region, whether the random map
    /// must leave it unmarked).
    pub(super) fn pick_offset(&mut self, file: usize, d: usize) -> Option<(u64, bool)> {
        if !self.random {
            // At its end a file is done (fio fails the I/O, closes the file and, with
            // every file done, starts them over); a time-based run wraps in place.
            let f = &self.files[file];
            if !self.time_based && f.seq_pos[d] >= f.region.len + f.tail {
                return None;
            }
            return Some((self.seq_offset(file, d), true));
        }
        if !self.seq_hit() {
            return match self.sequencer {
                RwSequencer::Sequential => Some((self.seq_or_random(file, d)?, true)),
                RwSequencer::Identical => Some((self.files[file].last_start[d].unwrap_or(0), true)),
            };
        }
        let pct = self.pct_random[d];
        if pct < 100 && self.rng.seq_rand[d].between(1, 100) > pct as u64 {
            return Some((self.seq_or_random(file, d)?, true));
        }
        // An offset past the region is the caller's to refuse (fio fails the I/O).
        let b = self.rand_block_or_wrap(file, d)?;
        Some((b * self.align[d] + self.window(), false))
    }

    /// rw=randxxx:N (fio's ddir_seq_nr): only every N-th I/O draws a new offset.
    pub(super) fn seq_hit(&mut self) -> bool {
        if self.seq_nr == 0 {
            return true;
        }
        self.seq_left -= 1;
        if self.seq_left == 0 {
            self.seq_left = self.seq_nr;
            true
        } else {
            false
        }
    }

    /// fio's get_next_rand_block: a time-based job starts a file over in place when
    /// its blocks are all done; any other job gives up on the I/O (None).
    pub(super) fn rand_block_or_wrap(&mut self, file: usize, d: usize) -> Option<u64> {
        match self.rand_block(file, d) {
            Some(b) => Some(b),
            None if self.time_based || self.rng.file_model.is_some() => {
                self.reset_file(file);
                self.rand_block(file, d)
            }
            None => None,
        }
    }

    /// A sequential offset inside a random job; at the end of the file fio takes a
    /// random block instead (which the random map does not record), and a time-based
    /// job starts the sequence over. Short of the end, in a partial last block, the
    /// offset stands and fails to fit (the file is done).
    pub(super) fn seq_or_random(&mut self, file: usize, d: usize) -> Option<u64> {
        let f = &mut self.files[file];
        let size = f.region.len + f.tail;
        if self.time_based && f.seq_pos[d] >= size {
            // fio's get_next_seq_offset: a time-based job's sequence wraps at the
            // job's size before it looks at the file's end.
            f.seq_pos[d] = 0;
        }
        if f.seq_pos[d] < size + f.beyond {
            return Some(f.seq_pos[d]);
        }
        Some(self.rand_block_or_wrap(file, d)? * self.align[d] + self.window())
    }

    /// The next sequential offset (fio's get_next_seq_offset), wrapping at the end.
    pub(super) fn seq_offset(&mut self, file: usize, d: usize) -> u64 {
        let f = &mut self.files[file];
        // (fio: past io_size, the partial last block included, a time-based pass wraps)
        let len = (f.region.len + f.tail).max(1);
        if f.seq_pos[d] >= len {
            f.seq_pos[d] = 0;
        }
        f.seq_pos[d]
    }

    /// fio's last_block: how many `ba`-sized blocks a random offset may start at.
    pub(super) fn last_block(&self, file: usize, d: usize) -> u64 {
        let strided = self.strided.as_ref().map(|s| s.range());
        let mut max = strided.unwrap_or(self.files[file].region.len);
        let (minbs, ba) = (self.bs[d].min, self.align[d].max(1));
        if minbs > ba {
            max = max.saturating_sub(minbs - ba);
        }
        max / ba
    }

    /// fio's get_next_rand_offset for the configured distribution; None when the
    /// pass has no free block left.
    pub(super) fn rand_block(&mut self, file: usize, d: usize) -> Option<u64> {
        let lastb = self.last_block(file, d);
        if lastb == 0 {
            return None;
        }
        // sprandom=1: its writes follow the SPRandom sequence (which ends the pass).
        let f = &mut self.files[file];
        if let (1, Some(s), Some(l)) = (d, &mut f.spr, &mut f.lfsr) {
            return s.next_block(l);
        }
        match &self.dist {
            Dist::Uniform => self.uniform_block(file, lastb),
            Dist::Model => Some(self.files[file].picker.as_mut()?.pick()),
            Dist::Sequence { .. } => self.sequence_block(file, d),
            Dist::Zoned { table, bytes } => {
                if table[d].is_empty() {
                    return self.uniform_block(file, lastb);
                }
                let v = self.rng.zone.between(1, 100) as usize;
                let z = table[d][v - 1];
                let (base, span) = if *bytes {
                    let ba = self.align[d].max(1);
                    (z.start / ba, z.end / ba - z.start / ba)
                } else {
                    (z.start * lastb / 100, lastb * (z.end - z.start) / 100)
                };
                if *bytes && z.end / self.align[d].max(1) > lastb {
                    // The pass ends here, and the user is told why (fio: at every
                    // such end; here once, see `said_zoned_abs`).
                    if !self.said_zoned_abs {
                        self.said_zoned_abs = true;
                        eprintln!("ferrio: zoned_abs sizes exceed file size");
                    }
                    return None;
                }
                Some(self.uniform_block(file, span)? + base)
            }
        }
    }

    /// fio's __get_next_rand_offset: a block in 0..lastb from the offset stream (or the
    /// next LFSR value); with a random map, a block already done is replaced by the
    /// next free one after it.
    pub(super) fn uniform_block(&mut self, file: usize, lastb: u64) -> Option<u64> {
        let f = &mut self.files[file];
        let b = match &mut f.lfsr {
            Some(l) => l.next_value()?,
            None if self.trace_random => {
                let (r, b) = self.rng.offset.scaled_draw(lastb);
                crate::runner::debug_line::random_line(format_args!("off rand {r}"));
                b
            }
            None => self.rng.offset.scaled(lastb),
        };
        match &f.map {
            Some(m) if m.is_set(b) => {
                if self.trace_random {
                    crate::runner::debug_line::random_line(format_args!(
                        "get_next_rand_offset: offset {b} busy"
                    ));
                }
                m.next_free(b)
            }
            _ => Some(b),
        }
    }

    /// fio's mark_random_map: mark the blocks of the I/O done, stopping at one already
    /// done, and shorten the I/O to what was marked.
    pub(super) fn mark_map(&mut self, file: usize, d: usize, rel: u64, len: u64) -> u64 {
        let minbs = self.bs[d].min.max(1);
        let Some(m) = &mut self.files[file].map else {
            return len;
        };
        let nr = len.div_ceil(minbs);
        let base = self.strided.as_ref().map_or(0, |s| s.window());
        let set = m.set_run((rel - base) / minbs, nr);
        if set > 0 && set * minbs < len {
            set * minbs
        } else {
            len
        }
    }
}
