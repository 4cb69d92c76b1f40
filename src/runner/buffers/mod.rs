//! Write-buffer contents as fio 3.33 makes them (docs/buffers.md): random (default),
//! zeroes, a pattern, or compressible/dedupable data; filled once per unit at the
//! start, and again before every write with refill_buffers, or stamped per 512-byte
//! block with scramble_buffers. Random contents come from the thread's fio buffer
//! stream (crate::random::fill), so for the same job the bytes are fio's.
//!
//! fio's rules between the options, applied in [`BufferPolicy::with_seeds`]:
//! - buffer_compress_percentage=100 is zero_buffers; another non-zero percentage turns
//!   refill_buffers on unless it was given.
//! - dedupe_percentage turns refill_buffers on (at parse time: a later
//!   refill_buffers=0 wins).
//! - scrambling happens without refill_buffers, only when scramble_buffers is on and
//!   neither a compression/dedupe option was given (any value) nor zero_buffers was
//!   given as on (unless scramble_buffers was given explicitly too).
//! - buffer_pattern turns zeroing and scrambling off and refilling on when the job
//!   reads (crates/config table/buffers.rs).

mod stream;

use crate::random::{fill, FioRand, SeedSet, Stream};
use ferrio_config::ext::DedupeMode;
use ferrio_config::{JobSpec, RandomGenerator};
use std::sync::{Arc, Mutex};
use stream::{BufStream, DedupeSetup, Source};

/// A thread's buffer state shared with the rest of the run.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// Every thread's initial fio buffer stream, in thread order (dedupe_global's
    /// working set draws from all of them).
    pub peers: Arc<[FioRand]>,
    /// The policy after laying out the thread's files: fio lays files out with the
    /// thread's own buffer stream, and its writes go on from there.
    pub laid_out: Arc<Mutex<Option<BufferPolicy>>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    Zero,
    Pattern(Vec<u8>),
    Random,
}

/// How each write buffer is filled, and the thread's buffer streams.
#[derive(Clone, Debug)]
pub struct BufferPolicy {
    pub content: Content,
    /// Regenerate the buffer before every write.
    pub refill: bool,
    /// Stamp offset and time into every 512-byte block before every write.
    pub scramble: bool,
    /// buffer_compress_percentage after fio's fix-up (100 became zero_buffers).
    compress: u32,
    /// Fill chunk by chunk from (possibly dedupe-replayed) seeds: compression or
    /// dedupe was asked for.
    chunked: bool,
    /// buffer_compress_chunk: each chunk is min_not_zero(smallest write, this).
    chunk_option: u64,
    /// Smallest write block size.
    min_write: u64,
    /// Largest block size of any direction: what the first fill covers.
    max_bs: usize,
    /// The job writes (fio fills buffers only then).
    writes: bool,
    /// Each new loop starts the streams over (fio: randrepeat without randseed, as
    /// its fix-up turns randrepeat off when randseed is given; not time_based).
    reseed_each_pass: bool,
    stream: BufStream,
}

impl BufferPolicy {
    /// `size` is the job's size (the working set is a share of it); `global` the
    /// peers' initial buffer streams and this thread's index among them.
    pub fn with_seeds(
        spec: &JobSpec,
        seeds: &SeedSet,
        size: u64,
        global: Option<(&[FioRand], usize)>,
    ) -> Result<BufferPolicy, String> {
        let b = &spec.buffers;
        let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
        let state = FioRand::new(seeds.get(Stream::Buf), use64);
        let (zero, compress) = match b.compress_percentage {
            100 => (true, 0),
            p => (spec.zero_buffers, p),
        };
        // fio never scrambles a verify job's buffers, and turns refill_buffers on for it
        // unless refill_buffers was given.
        let verifying = spec.verify.kind != ferrio_config::ext::verify::VerifyKind::None;
        let refill = spec.refill_buffers || ((compress != 0 || verifying) && !b.refill_set);
        let scramble = spec.scramble_buffers
            && (b.scramble_set || !(spec.zero_buffers && b.zero_set))
            && !b.compress_given
            && !verifying;
        let min_write = spec.bs[1].min.max(1);
        let chunk = match b.compress_chunk {
            0 => min_write,
            c => c.min(min_write),
        };
        let stream = if b.dedupe_percentage == 0 {
            BufStream::new(state)
        } else {
            let unique_pages = size * b.dedupe_working_set_percentage as u64 / 100 / min_write;
            if b.dedupe_mode == DedupeMode::WorkingSet && unique_pages == 0 {
                return Err(format!(
                    "dedupe working set is empty: size {size} × dedupe_working_set_percentage {} % is less than one {min_write}-byte block",
                    b.dedupe_working_set_percentage
                ));
            }
            let setup = DedupeSetup {
                percentage: b.dedupe_percentage,
                mode: b.dedupe_mode,
                decide_seed: seeds.get(Stream::Dedupe),
                index_seed: seeds.get(Stream::DedupeWorkingSet),
                unique_pages,
                advances: min_write / chunk,
            };
            BufStream::with_dedupe(state, use64, setup, global)
        };
        let content = if let Some(p) = spec.buffer_pattern.as_ref().filter(|p| !p.is_empty()) {
            Content::Pattern(p.clone())
        } else if zero {
            Content::Zero
        } else {
            Content::Random
        };
        let max_bs = spec.bs.iter().map(|b| b.max).max().unwrap_or(4096) as usize;
        Ok(BufferPolicy {
            content,
            refill,
            scramble,
            compress,
            chunked: compress != 0 || b.dedupe_percentage != 0,
            chunk_option: b.compress_chunk,
            min_write,
            max_bs,
            writes: spec.writes(),
            reseed_each_pass: spec.randrepeat && !spec.randseed_set && !spec.time_based,
            stream,
        })
    }

    /// fio's fill_io_buffer: `buf` as the options say.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.fill_as(buf, self.min_write);
    }

    /// The contents of a file laid out for the job (fio's extend_file): one fill per
    /// largest write block (each its own buffer, compressed in chunks of at most that
    /// size), so the file holds what fio's layout writes.
    pub fn fill_layout(&mut self, buf: &mut [u8], bs: usize) {
        for piece in buf.chunks_mut(bs.max(1)) {
            let n = piece.len() as u64;
            self.fill_as(piece, n);
        }
    }

    fn fill_as(&mut self, buf: &mut [u8], min_write: u64) {
        if self.chunked {
            let pattern = match &self.content {
                Content::Pattern(p) => &p[..],
                _ => &[],
            };
            // A buffer is dedupable as a whole: one source for all its chunks.
            let mut src = self.stream.pick();
            let mut min_write = min_write;
            let mut at = 0;
            while at < buf.len() {
                let left = (buf.len() - at) as u64;
                min_write = min_write.min(left);
                let this = match self.chunk_option {
                    0 => min_write,
                    c => c.min(min_write),
                } as usize;
                let seed = self.stream.seed(&mut src);
                fill::fill_compressible(&mut buf[at..at + this], seed, self.compress, pattern);
                at += this;
                self.stream.save(&src);
            }
            return;
        }
        match &self.content {
            Content::Pattern(p) => fill::fill_pattern(buf, p),
            Content::Zero => buf.fill(0),
            Content::Random => {
                let mut src = Source::Main;
                let seed = self.stream.seed(&mut src);
                fill::fill_from_seed(buf, seed);
            }
        }
    }

    /// First contents of a unit's buffer (only a writing job's: as fio, which draws
    /// from the buffer stream for these too).
    pub fn init(&mut self, buf: &mut [u8]) {
        if self.writes {
            let n = self.max_bs.min(buf.len());
            self.fill(&mut buf[..n]);
        }
    }

    /// A new loop begins (a file's pass ended, not a time-based wrap): fio reseeds the
    /// buffer streams (clear_io_state), so with refill_buffers each loop writes the
    /// same sequence of contents.
    pub fn new_pass(&mut self) {
        if self.reseed_each_pass {
            self.stream.reseed();
        }
    }

    /// Draw the first fills of `n` units that are never used (fio allocates iodepth
    /// units whatever the engine), leaving the streams where fio's are.
    pub fn skip_units(&mut self, n: usize) {
        if self.writes && n > 0 {
            let mut scratch = vec![0u8; self.max_bs];
            for _ in 0..n {
                self.fill(&mut scratch);
            }
        }
    }

    /// Whether `prepare` does anything (lets the hot path skip the call and a clock read).
    #[inline]
    pub fn per_write_work(&self) -> bool {
        self.refill || self.scramble
    }

    /// Prepare a buffer for one write of `buf.len()` bytes at `offset`; `start_ns` is
    /// the I/O's start time (scramble stamps it; refills happen before it is known).
    #[inline]
    pub fn prepare(&mut self, buf: &mut [u8], offset: u64, start_ns: u64) {
        if self.refill {
            self.fill(buf);
        } else if self.scramble {
            scramble(buf, offset, start_ns);
        }
    }
}

/// fio's small_content_scramble: in every 512-byte block, the block's offset at one
/// of its eight 64-byte lines (the same for the whole buffer, from the time and the
/// offset) and the start time (seconds, nanoseconds) at bytes 48..64.
fn scramble(buf: &mut [u8], offset: u64, start_ns: u64) {
    let (sec, nsec) = (start_ns / 1_000_000_000, start_ns % 1_000_000_000);
    let line = (((nsec ^ offset) & 7) * 64) as usize;
    let mut off = offset;
    for block in buf.chunks_exact_mut(512) {
        block[line..line + 8].copy_from_slice(&off.to_ne_bytes());
        block[48..56].copy_from_slice(&sec.to_ne_bytes());
        block[56..64].copy_from_slice(&nsec.to_ne_bytes());
        off += 512;
    }
}

#[cfg(test)]
mod tests;
