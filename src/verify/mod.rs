//! Data verification (docs/verify.md): every written block carries fio 3.33's
//! verify header and checksum (laid out byte for byte as fio's, so either tool
//! verifies the other's data), the written blocks are logged, and after the
//! writes (or every verify_backlog writes) they are read back and checked, with
//! fio's failure lines. The worker's glue is runner::worker::run::verify.

pub mod block;
pub mod checksum;
pub mod crctest;
mod debug;
pub mod header;
pub mod log;
pub mod phase;
pub mod state;

use crate::random::{FioRand, SeedSet, Stream};
use block::{Expect, Failure, Layout};
use ferrio_config::ext::verify::VerifyKind;
use ferrio_config::JobSpec;
use log::{Piece, PieceLog};
use std::path::Path;

/// A job thread's verify state.
pub struct Verifier {
    pub layout: Layout,
    pub log: PieceLog,
    /// Seeds of the blocks' data: fio's verify_state stream, one seed (the product of
    /// two draws) per block written, so fio checking the file finds the seeds it
    /// expects in its own order.
    seeds: FioRand,
    /// The stream as seeded: a new loop starts from it again with randrepeat.
    seeds_at_start: FioRand,
    reseed_each_pass: bool,
    /// fio's trim_state: which logged writes trim_percentage picks.
    trim_rng: FioRand,
    /// fio's numberio: the job's writes so far (16 bits in the header).
    numberio: u16,
    /// verify_backlog: the log's length reached a multiple of the backlog at a
    /// write (fio's trigger, `io_hist_len % verify_backlog == 0`) since the last
    /// round.
    pub backlog_reached: bool,
    pub backlog: u64,
    pub batch: u64,
    pub fatal: bool,
    pub dump: bool,
    /// --aux-path: the directory of the dump files (None: the working directory).
    aux: Option<std::path::PathBuf>,
    /// Check the header's seed (verify_header_seed).
    check_seed: bool,
    /// Check numberio (fio: fixed block size, not time_based).
    check_numberio: bool,
    /// verify_only: nothing is written, what is on disk is checked.
    pub only: bool,
    pub do_verify: bool,
    /// The job only reads: each read is checked as it completes.
    pub inline_reads: bool,
    /// The verify phase's blocks: each read of one is checked.
    pub phase: phase::Phase,
    /// trim_percentage: blocks picked to be trimmed, oldest first.
    pub trims: std::collections::VecDeque<(usize, u64, usize)>,
    pub trim_percentage: u32,
    pub trim_backlog: u64,
    pub trim_batch: u64,
    pub trim_zero: bool,
    /// The log's length reached a multiple of trim_backlog (fio's
    /// `io_hist_len % trim_backlog == 0`, checked before the next I/O): a round is due.
    pub trim_reached: bool,
    /// Microseconds per direction (fio's per-direction runtime): the write phases
    /// count for the job's own directions, the verify phases for reads.
    pub dir_us: [u64; 3],
    /// loops=N, or a writing job that may run more passes (io_size=, or passes
    /// shorter than size): the blocks are checked after each pass, as fio's.
    pub each_loop: bool,
    /// Bytes the verify phases read back so far: fio's keep_running counts them
    /// toward io_size (its io_bytes hold every read and write).
    pub read_back: u64,
    /// verify_state_save: the writes so far, for the state file.
    pub tracker: state::Tracker,
    /// verify_state_load: the state the verify pass stops at.
    pub loaded: Option<state::State>,
    /// fio checks the blocks in the order written when it keeps a random map (its
    /// io_piece list), else by offset (its rbtree): the order the state applies in.
    write_order: bool,
    /// --debug=verify: write fio's verify lines (checked once per block, never per byte).
    debug: bool,
}

/// Whether the header's write number is checked (fio 3.4x's verify_write_sequence):
/// as given, else on except for verify_only=1 and for norandommap=1 with an engine
/// that is not synchronous at iodepth > 1 (blocks may be rewritten out of order).
fn write_sequence_checked(spec: &JobSpec) -> bool {
    let v = &spec.verify;
    v.write_sequence.unwrap_or_else(|| {
        let sync = crate::engine::capabilities_of(&spec.ioengine).is_some_and(|c| c.synchronous);
        !(verify_only(spec) || (spec.norandommap && !sync && spec.iodepth > 1))
    })
}

/// verify_only=1 in a job that writes. fio's dry run replaces only the writing
/// job's I/O (`td->o.verify_only && td_write(td)`): a job that only reads does its
/// reads and checks each one, as it does without verify_only.
fn verify_only(spec: &JobSpec) -> bool {
    spec.verify.only && spec.writes()
}

impl Verifier {
    /// The same verifier, checking nothing (verify=null's): for an engine that keeps
    /// no data (null, sim), where fio still runs the read phase and checks nothing.
    pub fn pretend(mut self) -> Verifier {
        self.layout.kind = VerifyKind::Null;
        self.layout.pattern.clear();
        self.layout.pattern_offsets.clear();
        self.check_seed = false;
        self.check_numberio = false;
        self
    }

    /// The verifier of a job thread, None when the job does not verify.
    pub fn new(spec: &JobSpec, thread: u16, rand: &SeedSet) -> Option<Verifier> {
        let v = &spec.verify;
        if !v.on() {
            return None;
        }
        let use64 = spec.random_generator == ferrio_config::RandomGenerator::Tausworthe64;
        let seeds = FioRand::new(rand.get(Stream::Verify), use64);
        let fixed = spec.bs[1].min == spec.bs[1].max && spec.bs[1].split.len() <= 1;
        let only = verify_only(spec);
        Some(Verifier {
            layout: Layout::for_job(spec, thread),
            log: PieceLog::default(),
            seeds,
            seeds_at_start: seeds,
            // As the offsets (fio's clear_io_state: randrepeat, and no randseed given).
            reseed_each_pass: spec.randrepeat && !spec.randseed_set,
            trim_rng: FioRand::new(rand.get(Stream::Trim), use64),
            numberio: 0,
            backlog_reached: false,
            backlog: v.backlog,
            batch: if v.backlog_batch > 0 {
                v.backlog_batch
            } else {
                v.backlog
            },
            fatal: v.fatal,
            dump: v.dump,
            aux: v.aux_path.clone(),
            check_seed: v.header_seed && !only,
            check_numberio: fixed && !spec.time_based && write_sequence_checked(spec),
            only,
            do_verify: v.do_verify,
            inline_reads: !spec.writes(),
            phase: Default::default(),
            trims: Default::default(),
            trim_percentage: v.trim_percentage,
            trim_backlog: v.trim_backlog,
            trim_batch: if v.trim_batch > 0 {
                v.trim_batch
            } else {
                v.trim_backlog
            },
            trim_zero: v.trim_zero,
            trim_reached: false,
            dir_us: [0; 3],
            // A writing job's verify phase reopens its files (fio's clear_io_state),
            // so another pass may follow any pass (keep_running): each is checked
            // first, verify_only's dry passes too.
            each_loop: !spec.time_based
                && ((spec.loops > 1 && (v.do_verify || only)) || (v.do_verify && spec.writes())),
            read_back: 0,
            tracker: state::Tracker::new(spec.iodepth as usize).fsynced(v.policy_fsynced),
            loaded: None,
            write_order: spec.rw.random
                && !spec.norandommap
                && spec.random_generator != ferrio_config::RandomGenerator::Lfsr,
            debug: spec.compat.debug.has(ferrio_config::DebugCategory::Verify),
        })
    }

    /// Whether `stamp` writes every byte of a block (all kinds but verify=null):
    /// a refill before it would be thrown away.
    pub fn fills_blocks(&self) -> bool {
        self.layout.kind != VerifyKind::Null
    }

    /// A block is written: fill `buf` with its data and headers, and log it.
    pub fn stamp(&mut self, buf: &mut [u8], file: usize, offset: u64, time_ns: u64) {
        let seed = self.next_seed();
        let nio = self.numberio;
        self.numberio = self.numberio.wrapping_add(1);
        let seq = self.tracker.writes;
        self.tracker.wrote(file, offset);
        self.layout.fill(buf, offset, seed, nio, time_ns);
        if self.debug {
            debug::filled(&self.layout, buf);
        }
        // verify=null logs too: its blocks are read back, and pass (fio's "pretend").
        self.log.insert(Piece {
            file,
            offset,
            len: buf.len(),
            seed: Some(seed),
            numberio: Some(nio),
            trimmed: false,
            seq,
        });
        if self.backlog > 0 {
            // Overwrites replace their blocks, as in fio's rbtree: count what is left.
            let logged = self.log.len() as u64;
            self.backlog_reached |= logged > 0 && logged.is_multiple_of(self.backlog);
        }
        if self.trim_backlog > 0 && self.trim_percentage > 0 {
            // fio's io_u_should_trim: this share of the logged writes, at random (a
            // draw of its trim stream at most max / 100 · percentage).
            let r = self.trim_rng.draw();
            if r <= (self.trim_rng.max() / 100) * self.trim_percentage as u64 {
                self.trims.push_back((file, offset, buf.len()));
            }
            // (An overwrite replaces its block, and with trim_verify_zero=0 a trimmed
            // block leaves the log, as in fio's io_hist.)
            let logged = self.log.len() as u64;
            self.trim_reached |= logged > 0 && logged.is_multiple_of(self.trim_backlog);
        }
    }

    /// A block written with no data to stamp (verify_only: the workload would write
    /// it; a diskless engine: it has no buffer), logged to be read back unchecked.
    pub fn would_write(&mut self, file: usize, offset: u64, len: usize) {
        let seq = self.tracker.writes;
        self.tracker.wrote(file, offset);
        self.log.insert(Piece {
            file,
            offset,
            len,
            seed: None,
            numberio: None,
            trimmed: false,
            seq,
        });
    }

    /// The next block's seed, as fio's fill_verify_pattern draws it. With
    /// verify_pattern fio draws none and its header holds the unit's unset seed, 0.
    fn next_seed(&mut self) -> u64 {
        if !self.layout.pattern.is_empty() {
            return 0;
        }
        self.seeds.next_seed()
    }

    /// A new loop begins: with randrepeat fio seeds the stream again (clear_io_state),
    /// so each loop's blocks carry the same seeds; without, it goes on.
    pub fn new_pass(&mut self) {
        if self.reseed_each_pass {
            self.seeds = self.seeds_at_start;
        }
    }

    /// Whether fio reads the blocks back in the order written (see `write_order`).
    pub fn in_write_order(&self) -> bool {
        self.write_order
    }

    /// verify_state_load: cut the verify pass (`pieces`, in the order they are
    /// checked) at the first block the loaded state does not show as written.
    pub fn cut_at_state(&self, pieces: &mut Vec<Piece>) {
        let Some(s) = &self.loaded else {
            return;
        };
        let mut order: Vec<usize> = (0..pieces.len()).collect();
        if self.write_order {
            order.sort_by_key(|&i| pieces[i].seq);
        }
        let Some(k) = (0..order.len()).find(|&k| {
            let p = &pieces[order[k]];
            s.stops_at(k as u64, p.file as u64, p.offset)
        }) else {
            return;
        };
        // The same blocks are checked as fio's pass would, in ferrio's order.
        let mut keep = vec![false; pieces.len()];
        for &i in &order[..k] {
            keep[i] = true;
        }
        let mut i = 0;
        pieces.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// --debug=verify: the verify pass starts (fio's "starting loop") or ends.
    pub fn debug_phase(&self, starts: bool) {
        if self.debug {
            debug::phase(starts);
        }
    }

    /// The verify phase's block at (file, offset), if any.
    pub fn phase_piece(&mut self, file: usize, offset: u64) -> Option<Piece> {
        self.phase.find(file, offset)
    }

    /// A trim round is due: the log reached a multiple of trim_backlog since the last
    /// (a round with nothing picked trims nothing, and the next waits for the next
    /// multiple, as fio's check_get_trim).
    pub fn trim_due(&self) -> bool {
        self.trim_reached
    }

    /// A verify_backlog round is due.
    pub fn backlog_due(&self) -> bool {
        self.backlog_reached && !self.log.is_empty()
    }

    /// Check one block read back into `buf`.
    pub fn check(&self, buf: &mut [u8], p: &Piece, path: &Path) -> Vec<Failure> {
        if p.trimmed {
            // fio's verify_trimmed_io_u: zeros, else the first byte that is not.
            return match buf.iter().position(|&b| b != 0) {
                None => Vec::new(),
                Some(i) => vec![Failure {
                    lines: vec![format!(
                        "trim: verify failed at file {} offset {}, length {}, block offset {i}",
                        path.display(),
                        p.offset,
                        buf.len()
                    )],
                    at: p.offset,
                    len: buf.len(),
                    header: true,
                }],
            };
        }
        if self.debug {
            debug::checked(&self.layout, buf, !self.inline_reads);
        }
        let exp = Expect {
            offset: p.offset,
            seed: p.seed.filter(|_| self.check_seed),
            numberio: p.numberio.filter(|_| self.check_numberio),
        };
        // The path as text, copied only if it is not UTF-8.
        let shown;
        let path = match path.to_str() {
            Some(s) => s,
            None => {
                shown = path.display().to_string();
                &shown
            }
        };
        self.layout.check_block(buf, exp, path, self.fatal)
    }

    /// verify_dump: the block as read (and as it should be) next to fio's names,
    /// `<file name>.<offset>.received` / `.expected` (`.hdr_fail` for a bad header),
    /// in the working directory or the --aux-path directory. Returns the lines telling where.
    pub fn dump_failure(&self, f: &Failure, block: &[u8], p: &Piece, path: &Path) -> Vec<String> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let rel = (f.at - p.offset) as usize;
        let got = &block[rel..(rel + f.len).min(block.len())];
        let mut lines = Vec::new();
        let mut put = |kind: &str, bytes: &[u8]| {
            let file = state::in_aux(self.aux.as_deref(), format!("{name}.{}.{kind}", f.at));
            if std::fs::write(&file, bytes).is_ok() {
                lines.push(format!("       {kind} data dumped as {file}"));
            }
        };
        if f.header {
            put("hdr_fail", got);
            return lines;
        }
        put("received", got);
        // The header passed its checks: its seed and counter rebuild the block.
        let h = header::Header::read(got);
        let seed = p.seed.unwrap_or(h.rand_seed);
        if self.layout.kind != VerifyKind::PatternNoHdr || !self.layout.pattern.is_empty() {
            let mut want = vec![0u8; block.len()];
            self.layout.fill(&mut want, p.offset, seed, h.numberio, 0);
            let want = &mut want[rel..rel + got.len()];
            if self.layout.kind != VerifyKind::PatternNoHdr {
                // The same time stamp as written (the header's own checksum with it).
                want[..header::HDR_LEN].copy_from_slice(&got[..header::HDR_LEN]);
            }
            put("expected", want);
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_config::ext::verify::VerifyKind;

    fn verifier(kind: VerifyKind) -> Verifier {
        let mut spec = JobSpec::with_defaults("t", "t.fio:1");
        spec.verify.kind = kind;
        Verifier::new(&spec, 1, &SeedSet::from_seed(42, 1)).expect("verifying")
    }

    #[test]
    fn a_written_block_checks_and_a_changed_one_does_not() {
        let mut v = verifier(VerifyKind::Crc32c);
        let mut buf = vec![0u8; 4096];
        v.stamp(&mut buf, 0, 8192, 5);
        let p = v.log.take(1)[0];
        let path = Path::new("/f");
        assert!(v.check(&mut buf.clone(), &p, path).is_empty());
        buf[100] ^= 1;
        let f = v.check(&mut buf, &p, path);
        assert_eq!(f.len(), 1);
        assert!(f[0].lines[0].starts_with("crc32c: verify failed at file /f offset 8192"));
    }

    #[test]
    fn a_trimmed_block_must_be_zeros() {
        let v = verifier(VerifyKind::Md5);
        let p = Piece {
            file: 0,
            offset: 4096,
            len: 512,
            seed: None,
            numberio: None,
            trimmed: true,
            seq: 0,
        };
        let mut buf = vec![0u8; 512];
        assert!(v.check(&mut buf, &p, Path::new("/f")).is_empty());
        buf[300] = 7;
        let f = v.check(&mut buf, &p, Path::new("/f"));
        assert_eq!(
            f[0].lines,
            ["trim: verify failed at file /f offset 4096, length 512, block offset 300"]
        );
    }

    #[test]
    fn wrong_seed_or_counter_is_a_bad_header() {
        let mut v = verifier(VerifyKind::Xxhash);
        let mut buf = vec![0u8; 4096];
        v.stamp(&mut buf, 0, 0, 0);
        let mut p = v.log.take(1)[0];
        p.seed = p.seed.map(|s| s + 1);
        let f = v.check(&mut buf.clone(), &p, Path::new("/f"));
        assert!(
            f[0].lines[0].starts_with("verify: bad header rand_seed"),
            "{f:?}"
        );
        p.seed = None;
        p.numberio = Some(9);
        let f = v.check(&mut buf, &p, Path::new("/f"));
        assert!(
            f[0].lines[0].starts_with("verify: bad header numberio 0, wanted 9"),
            "{f:?}"
        );
    }

    #[test]
    fn verify_write_sequence_0_skips_only_the_counter() {
        let mut spec = JobSpec::with_defaults("t", "t.fio:1");
        spec.verify.kind = VerifyKind::Crc32c;
        spec.verify.write_sequence = Some(false);
        let mut v = Verifier::new(&spec, 1, &SeedSet::from_seed(42, 1)).expect("verifying");
        let mut buf = vec![0u8; 4096];
        v.stamp(&mut buf, 0, 0, 0);
        let mut p = v.log.take(1)[0];
        // Another job's write of the block (atomic-verify.fio): a counter that is not
        // ours passes, the checksum is still checked.
        p.numberio = Some(9);
        assert!(v.check(&mut buf.clone(), &p, Path::new("/f")).is_empty());
        buf[200] ^= 1;
        assert_eq!(v.check(&mut buf, &p, Path::new("/f")).len(), 1);
    }

    #[test]
    fn verify_write_sequence_defaults_as_fio() {
        let mut spec = JobSpec::with_defaults("t", "t.fio:1");
        spec.ioengine = "libaio".into();
        assert!(write_sequence_checked(&spec));
        spec.norandommap = true;
        assert!(write_sequence_checked(&spec), "iodepth=1");
        spec.iodepth = 8;
        assert!(!write_sequence_checked(&spec), "async, deep, no map");
        spec.verify.write_sequence = Some(true);
        assert!(write_sequence_checked(&spec), "asked for");
        spec.verify.write_sequence = None;
        spec.ioengine = "psync".into();
        assert!(write_sequence_checked(&spec), "synchronous engine");
        spec.verify.only = true;
        assert!(
            write_sequence_checked(&spec),
            "verify_only of a reading job: no dry run"
        );
        spec.rw.kind = ferrio_config::spec::RwKind::Write;
        assert!(!write_sequence_checked(&spec), "verify_only");
    }
}
