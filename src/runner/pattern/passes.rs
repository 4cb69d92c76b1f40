//! Between passes: a new loop or a time-based wrap starts the files over as fio's
//! clear_io_state and fio_file_reset do (positions, random maps, LFSRs, and with
//! randrepeat every stream reseeded).

use super::{Pattern, RwKind, Stream, Streams};

impl Pattern {
    /// Start a new pass (a new loop, or wrapping a time-based run): positions back to
    /// the start, random maps cleared; with randrepeat every stream starts over (fio's
    /// clear_io_state), so each loop repeats the first one's sequence. Returns whether
    /// a file's pass ended, so fio would run clear_io_state (and reseed the buffer
    /// streams too); false for a time-based wrap.
    pub fn reset_pass(&mut self) -> bool {
        self.issued_in_pass = false;
        self.short_pass = self.has_tails;
        if let Some(cursor) = &mut self.replay {
            cursor.rewind();
        }
        if self.fio_passes {
            return self.start_over();
        }
        let mut any_done = false;
        // Files generation found done (no block left, or one past the end) had fio's
        // failed attempt already, and are closed: they start over too.
        let tried = std::mem::replace(&mut self.done, vec![false; self.files.len()]);
        self.fs_file = None;
        for (f, &tried) in tried.iter().enumerate() {
            // fio ends a file's pass when it finds no block left (a full random map,
            // a spent LFSR) or reaches the end sequentially; the failed attempt still
            // draws a direction (and, with the map, an offset). A done file is closed
            // and starts over; any other file carries on where it was, map included.
            let cur = &self.files[f];
            let exhausted = match (&cur.map, &cur.lfsr) {
                (Some(m), _) => m.is_full(),
                (None, Some(l)) => l.is_done(),
                (None, None) => !self.random && cur.seq_pos.iter().any(|&p| p >= cur.region.len),
            };
            // A time-based random job starts a file over only when a random draw finds
            // no block left (fio's get_next_rand_block, `rand_block_or_wrap`), not
            // when its bytes are done: its sequential part goes on from the last I/O.
            let done = tried || (exhausted && !(self.time_based && self.random));
            if !done {
                continue;
            }
            any_done = true;
            // (A time-based job never ends its pass: the attempt happens within an I/O
            // whose direction is already drawn.)
            if self.random && !self.time_based && !tried {
                self.pick_ddir();
            }
            if self.random && self.files[f].map.is_some() && !tried {
                self.rng.offset.draw();
            }
            self.reset_file(f);
            // A time-based job starts the file over in place, without closing it.
            if !self.time_based {
                self.close_file(f);
            }
        }
        self.pending_write = None;
        if self.time_based {
            // fio's time-based run is one pass: no counters reset, no reseeding.
            return false;
        }
        self.rwmix_issues = 0;
        if self.reseed_each_pass && any_done {
            self.reseed();
        }
        any_done
    }

    /// randrepeat between passes: every stream starts again from its seed.
    fn reseed(&mut self) {
        let trimwrite = self.kind == RwKind::TrimWrite;
        self.rng = Streams::new(
            &self.seeds,
            self.use64,
            self.offset64,
            trimwrite,
            self.verifies,
            self.file_service,
            self.files.len(),
        );
    }

    /// fio's clear_io_state between passes: every file is closed (and reset when it
    /// is opened again), the mix's count starts over, and with randrepeat every
    /// stream is seeded again.
    fn start_over(&mut self) -> bool {
        self.done.fill(false);
        self.fs_file = None;
        self.pending_write = None;
        for f in 0..self.files.len() {
            self.reset_file(f);
            self.close_file(f);
        }
        self.rwmix_issues = 0;
        if self.reseed_each_pass {
            self.reseed();
        }
        true
    }

    /// fio's fio_file_reset.
    pub(super) fn reset_file(&mut self, file: usize) {
        let seed = self.seeds.get(Stream::Block);
        let base = self.strided.as_ref().map_or(0, |s| s.window());
        let f = &mut self.files[file];
        f.seq_pos = [base; 3];
        f.last_start = [None; 3];
        if let Some(m) = &mut f.map {
            m.reset();
        }
        if let Some(l) = &mut f.lfsr {
            let _ = l.reset(seed);
        }
    }
}
