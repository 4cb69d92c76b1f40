//! What the next I/O is: direction, file, offset and length — decided exactly as fio
//! decides them (io_u.c), from fio's generators and seeds (crate::random), so a job
//! issues the same (file, offset, length, direction) sequence as fio (docs/random.md).
//!
//! Per I/O, in fio's order: the file (round robin); the direction (`rwmixread`: a
//! drawn direction sticks for a number of I/Os proportional to the mix); the offset
//! (`rw=...:N`, `percentage_random`, then a uniform block from the offset stream —
//! checked against the random map, which takes the next free block when the drawn one
//! is done — or the LFSR, or a zoned/non-uniform pick); then the length (`bsrange`,
//! `bssplit` from the direction's block-size stream), trimmed to the free run of the
//! random map.

use super::distribution::file_seed;
use super::distribution::BlockPicker;
use super::iolog::IoLogWriter;
use super::plan::ThreadPlan;
use super::region::{NextIo, Region};
use super::replay::Cursor;
use super::zones::{GenHooks, Strided};
use crate::engine::IoOp;
use crate::random::{Axmap, FioRand, Lfsr, SeedSet, Stream};
use ferrio_config::values::dist::RandomDistribution;
use ferrio_config::{BlockSize, FileService, JobSpec, RandomGenerator, RwKind, RwSequencer};
use limits::OffsetGenerator;

/// One zone of a zoned distribution as fio indexes it: [start, end) in percent of the
/// file (zoned) or in bytes (zoned_abs).
#[derive(Clone, Copy, Debug)]
struct Zone {
    start: u64,
    end: u64,
}

/// How random block numbers are drawn.
#[derive(Clone, Debug)]
enum Dist {
    Uniform,
    /// Per direction, 100 entries: the zone hit by each value 1..=100 of the zone
    /// stream; `bytes` for zoned_abs.
    Zoned {
        table: [Vec<Zone>; 3],
        bytes: bool,
    },
    /// zipf, pareto, normal: one generator per file.
    Model,
    /// sequence:b,b,... (fio 3.42): the n-th I/O of a direction takes entry n mod len;
    /// with `stride`, moved on by len blocks per round.
    Sequence {
        blocks: Vec<u32>,
        stride: bool,
    },
}

#[derive(Clone, Debug)]
struct FileCursor {
    region: Region,
    /// fio's last_pos per direction, relative to region.start: where the last I/O
    /// ended (plus the sequential step), the next sequential offset.
    seq_pos: [u64; 3],
    /// fio's last_start per direction (relative), for rw_sequencer=identical.
    last_start: [Option<u64>; 3],
    map: Option<Axmap>,
    lfsr: Option<Lfsr>,
    spr: Option<sprandom::Sprandom>,
    /// zipf/pareto/normal: the file's own generator (Dist::Model only).
    picker: Option<BlockPicker>,
    /// Bytes of a partial last block after the region.
    tail: u64,
    /// Bytes of the file past the tail (PlannedFile::beyond).
    beyond: u64,
}

/// fio's per-thread generator streams.
#[derive(Clone, Debug)]
struct Streams {
    offset: FioRand,
    bs: [FioRand; 3],
    rwmix: FioRand,
    seq_rand: [FioRand; 3],
    zone: FioRand,
    file: FioRand,
    /// Non-uniform file_service_type.
    file_model: Option<BlockPicker>,
}

impl Streams {
    fn new(
        seeds: &SeedSet,
        use64: bool,
        offset64: bool,
        trimwrite: bool,
        verify: bool,
        fs: FileService,
        files: usize,
    ) -> Streams {
        // fio seeds write's sizes like read's in a verifying job (so a read-verify
        // job draws the sizes its writes drew).
        let write_seed = if verify {
            seeds.get(Stream::BsRead)
        } else {
            seeds.get(Stream::BsWrite)
        };
        // fio seeds trim's sizes like write's for trimwrite, so each pair matches.
        let trim_seed = if trimwrite {
            write_seed
        } else {
            seeds.get(Stream::BsTrim)
        };
        let seq = seeds.get(Stream::SeqRandRead);
        Streams {
            offset: FioRand::new(seeds.get(Stream::Block), offset64),
            bs: [
                FioRand::new(seeds.get(Stream::BsRead), use64),
                FioRand::new(write_seed, use64),
                FioRand::new(trim_seed, use64),
            ],
            rwmix: FioRand::new(seeds.get(Stream::RwMix), false),
            // fio seeds all three from the read one.
            seq_rand: [
                FioRand::new(seq, false),
                FioRand::new(seq, false),
                FioRand::new(seq, false),
            ],
            zone: FioRand::new(seeds.get(Stream::Zone), false),
            file: FioRand::new(seeds.get(Stream::File), use64),
            file_model: files::file_model(fs, files, seeds.get(Stream::File) as u32),
        }
    }
}

/// The per-thread I/O pattern generator.
pub struct Pattern {
    kind: RwKind,
    random: bool,
    /// rw=randxxx:N — a new random offset every N I/Os (fio's ddir_seq_nr), and the
    /// countdown to the next one.
    seq_nr: u64,
    seq_left: u64,
    /// rw=xxx:N for sequential I/O — bytes added to the offset after each I/O; negative
    /// steps go backwards and wrap to the end of the region.
    step: i64,
    sequencer: RwSequencer,
    /// Percent of reads and of writes.
    rwmix: [u64; 2],
    rwmix_ddir: usize,
    rwmix_issues: u64,
    /// A paced mixed job: (now, each direction's due time), set before each I/O.
    pub rate_view: Option<(u64, [Option<u64>; 2])>,
    io_issues: [u64; 3],
    pct_random: [u32; 3],
    bs: [BlockSize; 3],
    /// Granularity of random offsets per direction (fio's ba).
    align: [u64; 3],
    unaligned: bool,
    /// bs_is_seq_rand: block sizes by how the offset was found (sequential: the read
    /// slot, random: the write slot), not by direction.
    bs_seq_rand: bool,
    dist: Dist,
    /// Smallest block over all directions (fio's rw_min_bs): the random map's block.
    map_block: u64,
    files: Vec<FileCursor>,
    /// Round robin's next file.
    next_file: usize,
    file_service: FileService,
    /// The file being served and I/Os left on it before choosing again.
    fs_file: Option<usize>,
    fs_left: u32,
    /// Files done in this pass (fio skips them when choosing).
    done: Vec<bool>,
    /// trimwrite: the block just trimmed, to be written next.
    pending_write: Option<NextIo>,
    seeds: SeedSet,
    /// verify= is set: write sizes are drawn from read's seed (fio's rule).
    verifies: bool,
    use64: bool,
    /// The offset stream is 64-bit: tausworthe64 chosen, or switched to for a file
    /// past the 32-bit generator's reach (limits.rs).
    offset64: bool,
    /// fio reseeds every stream at each new pass when randrepeat is set (and no
    /// randseed was given).
    reseed_each_pass: bool,
    time_based: bool,
    rng: Streams,
    /// write_iolog: every I/O handed out is recorded.
    iolog: Option<IoLogWriter>,
    /// read_iolog: the replay's place in its log (held whole or read in chunks).
    replay: Option<Cursor>,
    /// zonemode=strided (one file only, as fio): the moving window offsets are drawn in.
    strided: Option<Strided>,
    /// Which files are open (fio opens a file when it is first chosen in a pass and
    /// closes it when it is done), at most `openfiles` at once.
    open: files::OpenFiles,
    /// The caller can wait for a file (fio's EBUSY), and this generation did.
    busy_ok: bool,
    file_busy: bool,
    /// zonemode=zbd: its hooks into generation (src/runner/zones/).
    pub zbd: Option<GenHooks>,
    /// random_distribution=sequence ran past the file (fio then issues no more I/O),
    /// with the error when the list itself names a block past it.
    seq_end: Option<Option<sequence::SeqError>>,
    /// A pass ends when every file is done (no io_size= that asks for more), and the
    /// last generation found that.
    end_when_done: bool,
    ran_out: bool,
    /// Passes end as fio's (the worker's `Limits::fio_passes`): when every file is
    /// done, and a new pass closes and starts over every file.
    pub fio_passes: bool,
    issued_in_pass: bool,
    /// The files can run out short of the pass's bytes: a partial last block, or an
    /// offset that did not fit in this pass.
    short_pass: bool,
    has_tails: bool,
    /// --debug=random: write fio's `off rand` / `offset busy` lines.
    trace_random: bool,
    /// `zoned_abs sizes exceed file size` was said (once per thread: fio says it at
    /// every pass it ends, over 100,000 lines a second in a time_based job).
    said_zoned_abs: bool,
    /// The plain random job (`plain_block`): its last_block, which never changes; 0
    /// when the job is not plain. Replay and zbd, set after construction, are checked
    /// per I/O.
    plain_lastb: u64,
}

impl Pattern {
    pub fn new(spec: &JobSpec, regions: &[Region], seeds: &SeedSet) -> Pattern {
        let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
        let trimwrite = spec.rw.kind == RwKind::TrimWrite;
        let align: [u64; 3] = std::array::from_fn(|d| {
            if spec.blockalign[d] > 0 {
                spec.blockalign[d]
            } else {
                spec.bs[d].min.max(1)
            }
        });
        let map_block = limits::map_block(spec);
        let random = spec.rw.random;
        let dist = match &spec.random_distribution {
            RandomDistribution::Random => Dist::Uniform,
            RandomDistribution::Zoned(z) => Dist::Zoned {
                table: std::array::from_fn(|d| {
                    zone_table(z[d].iter().map(|&(a, r)| (a, r as u64)))
                }),
                bytes: false,
            },
            RandomDistribution::ZonedAbs(z) => Dist::Zoned {
                table: std::array::from_fn(|d| zone_table(z[d].iter().copied())),
                bytes: true,
            },
            RandomDistribution::Sequence(blocks) => Dist::Sequence {
                blocks: blocks.clone(),
                stride: spec.random_sequence_stride,
            },
            _ => Dist::Model,
        };
        let use_map = uses_map(spec);
        let use_lfsr = random && spec.random_generator == RandomGenerator::Lfsr;
        let z = &spec.zones;
        let strided = limits::is_strided(spec, regions.len())
            .then(|| Strided::new(z.size, z.range, z.skip, regions[0].len));
        let blocks_of = |r: &Region| limits::draw_blocks(spec, r.len, strided.is_some());
        let most_blocks = regions.iter().map(blocks_of).max().unwrap_or(0);
        let offset_generator = OffsetGenerator::decide(spec, most_blocks);
        let offset64 = offset_generator.is_64(spec);
        let rng = Streams::new(
            seeds,
            use64,
            offset64,
            trimwrite,
            spec.verify.on(),
            spec.file_service,
            regions.len(),
        );
        let files = regions
            .iter()
            .map(|&region| {
                let blocks = blocks_of(&region);
                FileCursor {
                    region,
                    seq_pos: [0; 3],
                    last_start: [None; 3],
                    map: use_map.then(|| Axmap::new(blocks)),
                    // fio refuses to run when this fails; a fallback keeps the job going.
                    lfsr: if use_lfsr {
                        Lfsr::new(blocks.max(1), seeds.get(Stream::Block)).ok()
                    } else {
                        None
                    },
                    spr: sprandom::for_file(spec, region.len, seeds),
                    picker: None,
                    tail: 0,
                    beyond: 0,
                }
            })
            .collect();
        let seq_nr = if random { spec.rw.nr.max(1) as u64 } else { 1 };
        let mut p = Pattern {
            kind: spec.rw.kind,
            random,
            seq_nr,
            // fio starts the countdown at 1: the first I/O draws a new offset.
            seq_left: 1,
            step: if !random && spec.rw.nr != 1 {
                spec.rw.nr
            } else {
                0
            },
            sequencer: spec.rw_sequencer,
            rwmix: [spec.rwmixread as u64, 100 - spec.rwmixread.min(100) as u64],
            rwmix_ddir: 0,
            rwmix_issues: 0,
            rate_view: None,
            io_issues: [0; 3],
            pct_random: spec.percentage_random,
            bs: spec.bs.clone().map(|mut b| {
                // fio sorts bssplit entries by percentage (smallest first; glibc's
                // qsort keeps ties in order) and walks them in that order.
                b.split.sort_by_key(|&(_, pct)| pct);
                b
            }),
            align,
            unaligned: spec.bs_unaligned,
            bs_seq_rand: spec.bs_is_seq_rand,
            dist,
            map_block,
            files,
            next_file: 0,
            file_service: spec.file_service,
            fs_file: None,
            fs_left: 0,
            done: vec![false; regions.len()],
            pending_write: None,
            seeds: seeds.clone(),
            verifies: spec.verify.on(),
            use64,
            offset64,
            // fio turns randrepeat off when randseed is given (its fix-up), so only
            // then do loops repeat.
            reseed_each_pass: spec.randrepeat && !spec.randseed_set,
            time_based: spec.time_based,
            rng,
            trace_random: spec.compat.debug.has(ferrio_config::DebugCategory::Random),
            said_zoned_abs: false,
            iolog: None,
            replay: None,
            strided,
            open: files::OpenFiles::new(regions.len(), spec.local.openfiles),
            busy_ok: false,
            file_busy: false,
            zbd: None,
            seq_end: None,
            end_when_done: spec.io_size.is_none() && !spec.time_based,
            ran_out: false,
            fio_passes: false,
            issued_in_pass: false,
            short_pass: false,
            has_tails: false,
            plain_lastb: 0,
        };
        p.plain_lastb = p.plain_last_block();
        p.seed_models(spec, &vec![(String::new(), 0); regions.len()]);
        p
    }

    /// Whether every I/O is what `generate` makes of a random read or write job with
    /// one file, uniform offsets from the offset stream (no random map, no LFSR), one
    /// block size and no sequential share: the direction, file and length are fixed
    /// and only the offset is drawn. Returns its last_block, 0 if it is not plain.
    fn plain_last_block(&self) -> u64 {
        let d = match self.kind {
            RwKind::Read => 0,
            RwKind::Write => 1,
            _ => return 0,
        };
        let bs = &self.bs[d];
        // --debug=random prints each draw: the general path does.
        if self.random
            && !self.trace_random
            && self.seq_nr == 1
            && self.pct_random[d] >= 100
            && matches!(self.dist, Dist::Uniform)
            && matches!(
                self.file_service,
                FileService::RoundRobin(_) | FileService::Sequential
            )
            && self.files.len() == 1
            && self.files[0].map.is_none()
            && self.files[0].lfsr.is_none()
            && self.strided.is_none()
            && !self.bs_seq_rand
            && bs.max <= bs.min
        {
            self.last_block(0, d)
        } else {
            0
        }
    }

    /// `generate` for a plain job (`is_plain`): the same draw and the same state
    /// changes, in the same order. Every drawn block fits (last_block leaves room for
    /// the block), so no file is ever done.
    #[inline(always)]
    fn plain_block(&mut self) -> NextIo {
        let d = usize::from(self.kind == RwKind::Write);
        let rel = self.rng.offset.scaled(self.plain_lastb) * self.align[d];
        let f = &mut self.files[0];
        let region_len = f.region.len;
        let len = self.bs[d]
            .min
            .max(1)
            .min(region_len - rel.min(region_len.saturating_sub(1)));
        f.last_start[d] = Some(rel);
        f.seq_pos[d] = rel + len;
        self.io_issues[d] += 1;
        self.issued_in_pass = true;
        NextIo {
            op: if d == 0 { IoOp::Read } else { IoOp::Write },
            file: 0,
            offset: f.region.start + rel,
            len,
            follow_up: false,
        }
    }

    /// The pattern of one planned thread, recording to `iolog` if given.
    pub fn for_thread(
        plan: &ThreadPlan,
        regions: &[Region],
        iolog: Option<IoLogWriter>,
    ) -> Pattern {
        let mut p = Pattern::new(&plan.spec, regions, &plan.seeds);
        p.replay = plan.replay.clone().map(Cursor::new);
        let names: Vec<(String, u64)> = plan
            .files
            .iter()
            .map(|f| (f.path.display().to_string(), f.tail))
            .collect();
        for ((f, (_, tail)), planned) in p.files.iter_mut().zip(&names).zip(&plan.files) {
            f.tail = *tail;
            f.beyond = planned.beyond;
        }
        p.has_tails = p.files.iter().any(|f| f.tail > 0);
        p.short_pass = p.has_tails;
        p.seed_models(&plan.spec, &names);
        p.iolog = iolog;
        p
    }

    /// zipf/pareto/normal: each file's generator, seeded from its name as fio does,
    /// over the file's whole size (its partial last block included).
    fn seed_models(&mut self, spec: &JobSpec, names: &[(String, u64)]) {
        if !(self.random && matches!(self.dist, Dist::Model)) {
            return;
        }
        let range = spec.bs[0].min.min(spec.bs[1].min).max(1);
        for (f, (name, tail)) in self.files.iter_mut().zip(names) {
            let n = (f.region.len + tail).div_ceil(range);
            let seed = file_seed(name, &self.seeds);
            f.picker = BlockPicker::new(&spec.random_distribution, n, seed);
        }
    }

    /// The next I/O to issue, at most `max_len` bytes long (the rest of the pass).
    #[inline]
    pub fn next_io(&mut self, max_len: u64) -> NextIo {
        let Some(io) = self.generate(max_len, false) else {
            debug_assert!(self.sequence_ended(), "files start over");
            return self.ended_io();
        };
        self.log_io(&io);
        io
    }

    /// The next I/O, or None when every file has run out of blocks before the pass's
    /// bytes were moved (a size that is not a multiple of the block size): fio ends the
    /// pass there ([`Pattern::take_ran_out`] then says so).
    #[inline]
    pub fn next_io_or_end(&mut self, max_len: u64) -> Option<NextIo> {
        if let Some(io) = self.next_plain_io() {
            return Some(io);
        }
        self.next_io_general(max_len)
    }

    /// A plain random job's next block (what `next_io_or_end` gives it), drawn inline
    /// (no call; nothing to log); None for every other job.
    #[inline(always)]
    pub fn next_plain_io(&mut self) -> Option<NextIo> {
        if self.plain_lastb > 0
            && self.replay.is_none()
            && self.zbd.is_none()
            && self.iolog.is_none()
        {
            return Some(self.plain_block());
        }
        None
    }

    #[inline(never)]
    fn next_io_general(&mut self, max_len: u64) -> Option<NextIo> {
        let end_ok = self.end_when_done || self.fio_passes;
        self.busy_ok = true;
        let io = self.generate(max_len, end_ok);
        self.busy_ok = false;
        let io = io?;
        self.log_io(&io);
        Some(io)
    }

    /// Whether the last [`Pattern::next_io_or_end`] ended the pass (once).
    pub fn take_ran_out(&mut self) -> bool {
        std::mem::take(&mut self.ran_out)
    }

    fn log_io(&mut self, io: &NextIo) {
        if let Some(log) = &mut self.iolog {
            log.io(io.file, io.op, io.offset, io.len);
        }
    }

    /// The next I/O; None (with `end_ok`) when every file is done.
    fn generate(&mut self, max_len: u64, end_ok: bool) -> Option<NextIo> {
        if self.plain_lastb > 0 && self.replay.is_none() && self.zbd.is_none() {
            return Some(self.plain_block());
        }
        if let Some(cursor) = &mut self.replay {
            let e = cursor.next_entry();
            return Some(NextIo {
                op: e.op,
                file: e.file,
                offset: e.offset,
                len: e.len,
                follow_up: false,
            });
        }
        if self.seq_end.is_some() {
            return None;
        }
        if let Some(w) = self.pending_write.take() {
            // randtrimwrite's write takes the trim's block, but fio still counts it
            // toward rw=randtrimwrite:N.
            if self.random {
                self.seq_hit();
            }
            return Some(w);
        }
        // A pick can find the file has nothing left (its random map is full): fio then
        // closes the file, marks it done and fills the I/O again from the start, file
        // and direction included. Once every file is done they all start over.
        let mut attempts = 0;
        let mut restarted = false;
        let (file, d, rel, busy_ok) = loop {
            let Some(file) = self.pick_file() else {
                self.file_busy = true;
                return None;
            };
            let as_write = self.zbd.as_ref().is_some_and(|z| z.reads_as_writes);
            let d = self.pick_ddir().max(usize::from(as_write));
            if let Some(s) = &mut self.strided {
                if s.before(&mut self.files[file].seq_pos[d]) {
                    self.reset_file(file);
                }
            }
            // fio fails an offset whose smallest I/O does not fit the file (a random
            // block past the region's end): the file is done, as when none is left.
            let picked = self.pick_offset(file, d);
            if self.seq_end.is_some() {
                return None;
            }
            let fitting = picked.filter(|&(rel, busy_ok)| self.fits(file, d, rel, busy_ok));
            self.short_pass |= picked.is_some() && fitting.is_none();
            match fitting {
                Some((rel, busy_ok)) => break (file, d, rel, busy_ok),
                None if attempts < 2 * self.files.len() + 2 => {
                    attempts += 1;
                    self.close_file(file);
                    self.fs_file = None;
                    if self.rng.file_model.is_some() {
                        // fio: with a non-uniform file_service_type the file is closed
                        // and starts over; it is never done.
                        self.reset_file(file);
                        continue;
                    }
                    self.done[file] = true;
                    if self.done.iter().all(|&x| x) {
                        // (A pass that finds its files done before any I/O starts
                        // them over, as fio's reopen at a new loop does. Files done
                        // again at once have no block to give, e.g. zoned_abs zones
                        // past the file: fio's pass ends there, with no I/O.)
                        let ended = self.issued_in_pass && (self.short_pass || self.fio_passes);
                        if end_ok && (ended || (restarted && !self.issued_in_pass)) {
                            self.ran_out = true;
                            return None;
                        }
                        for f in 0..self.files.len() {
                            self.reset_file(f);
                        }
                        self.done.fill(false);
                        restarted = true;
                    }
                }
                None => break (file, d, 0, true),
            }
        };
        let region_len = self.files[file].region.len;
        let bs_d = self.bs_dir(d, busy_ok);
        let mut len = self.pick_len(bs_d, rel, region_len);
        // fio issues the last I/O of a pass whole, even past the pass's bytes (it stops
        // once they are reached).
        let _ = max_len;
        if rel < region_len {
            len = len.min(region_len - rel);
        }
        let mark = self.random && !busy_ok;
        match &mut self.zbd {
            Some(z) => z.mark = mark.then_some((file, d, rel)),
            None if mark => len = self.mark_map(file, d, rel, len),
            None => {}
        }
        if let Some(s) = &mut self.strided {
            s.issued(len);
        }
        let f = &mut self.files[file];
        f.last_start[d] = Some(rel);
        let next = rel as i64 + len as i64 + self.step;
        // fio's real_file_size: the whole file, from its first byte.
        let whole = f.region.start + region_len + f.tail + f.beyond;
        let end = f.region.start + rel + len;
        f.seq_pos[d] = if next < 0 {
            // fio: a backward step past the start wraps to the step before the end.
            (region_len as i64 + self.step).max(0) as u64
        } else if self.step > 0 && end < whole && next as u64 >= whole {
            // fio (get_next_seq_offset): a hole that steps past the end of the file
            // wraps; only an I/O that ends at the file's end makes the file done. fio
            // compares the step's place, counted from the region's start, with the
            // file's size counted from byte 0, and wraps to the region's start taken
            // as such a place: so a region that starts past 0, or a file longer than
            // the region, ends its pass at the region's end instead of wrapping.
            f.region.start
        } else {
            next as u64
        };
        self.io_issues[d] += 1;
        let op = match d {
            0 => IoOp::Read,
            1 => IoOp::Write,
            _ => IoOp::Trim,
        };
        let io = NextIo {
            op,
            file,
            offset: f.region.start + rel,
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
        self.issued_in_pass = true;
        Some(io)
    }

    /// zonemode=strided: the window's start (0 otherwise).
    fn window(&self) -> u64 {
        self.strided.as_ref().map_or(0, |s| s.window())
    }

    /// The block-size slot of an I/O: its direction, or with bs_is_seq_rand whether
    /// its offset was drawn (fio's is_random: exactly an offset the map must mark).
    fn bs_dir(&self, d: usize, busy_ok: bool) -> usize {
        match (self.bs_seq_rand, busy_ok) {
            (false, _) => d,
            (true, true) => 0,
            (true, false) => 1,
        }
    }

    /// fio's io_u_fits for the smallest block: the I/O ends within the file (its
    /// partial last block included). With one block size fio checks only that the
    /// I/O starts within the job's size and ends within the file, so a pass's last
    /// block may run past the size into the rest of a longer file. zonemode=zbd
    /// places I/Os itself.
    fn fits(&self, file: usize, d: usize, rel: u64, busy_ok: bool) -> bool {
        let f = &self.files[file];
        let bs = &self.bs[self.bs_dir(d, busy_ok)];
        let minbs = bs.min.max(1);
        let size = f.region.len + f.tail;
        let room = if bs.max <= minbs {
            size + f.beyond
        } else {
            size
        };
        self.zbd.is_some() || (rel < size && rel.saturating_add(minbs) <= room)
    }

    /// Whether an I/O is owed before the pass can end (the write of a trimwrite
    /// pair, a replayed log's syncs after its data).
    pub fn has_pending(&self) -> bool {
        self.pending_write.is_some() || self.replay.as_ref().is_some_and(|c| c.sync_follows())
    }

    /// Blocks in a pass of the random map, summed over files (for tests and sizing).
    pub fn map_blocks(&self) -> u64 {
        self.files
            .iter()
            .map(|f| f.region.len / self.map_block)
            .sum()
    }
}

/// fio keeps a random map only for uniform offsets from tausworthe, with blockalign
/// equal to the block size.
fn uses_map(spec: &JobSpec) -> bool {
    let aligned_like_bs =
        (0..3).all(|d| spec.blockalign[d] == 0 || spec.blockalign[d] == spec.bs[d].min);
    spec.rw.random
        && !spec.norandommap
        && matches!(spec.random_distribution, RandomDistribution::Random)
        && aligned_like_bs
        && spec.random_generator != RandomGenerator::Lfsr
}

/// fio's zone index: entry v-1 is the zone that a draw v in 1..=100 falls in, with the
/// zone's [start, end) in the distribution's unit (percent or bytes).
fn zone_table(zones: impl Iterator<Item = (u32, u64)>) -> Vec<Zone> {
    let mut table = Vec::with_capacity(100);
    let mut start = 0u64;
    for (access, size) in zones {
        for _ in 0..access {
            if table.len() < 100 {
                table.push(Zone {
                    start,
                    end: start + size,
                });
            }
        }
        start += size;
    }
    if table.is_empty() {
        return table;
    }
    while table.len() < 100 {
        let last = table[table.len() - 1];
        table.push(last);
    }
    table
}

mod draw;
mod files;
mod hooks;
pub mod limits;
mod passes;
mod sequence;
pub(crate) mod sprandom;
#[cfg(test)]
mod tests;
