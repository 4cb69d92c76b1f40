//! Write-buffer contents: random (default), zeroes, a pattern, refilled per I/O or
//! scrambled per I/O, as fio's zero_buffers / refill_buffers / scramble_buffers /
//! buffer_pattern options ask. Random contents are fio's (crate::random::fill, from
//! the thread's buffer stream): each buffer's first fill, and every refill with
//! refill_buffers, write the same bytes as fio. Scrambling differs (fio stamps the
//! issue time, which no two runs share).

use super::layout::fill_random;
use super::plan::ThreadPlan;
use crate::random::{fill, FioRand, Rng, SeedSet, Stream};
use ferrio_config::{JobSpec, RandomGenerator};
use std::cell::Cell;

#[derive(Clone, Debug)]
pub enum Content {
    Zero,
    Pattern(Vec<u8>),
    Random,
}

/// How each write buffer is prepared before it is issued.
#[derive(Clone, Debug)]
pub struct BufferPolicy {
    pub content: Content,
    /// Regenerate the whole buffer before every write.
    pub refill: bool,
    /// Perturb a few bytes before every write (cheap defeat of dedupe), fio's default.
    pub scramble: bool,
    /// fio's buffer stream (buf_state); None: ferrio's own fill.
    stream: Option<Cell<FioRand>>,
}

impl BufferPolicy {
    pub fn from_spec(spec: &JobSpec) -> BufferPolicy {
        let content = if let Some(p) = &spec.buffer_pattern {
            Content::Pattern(p.clone())
        } else if spec.zero_buffers {
            Content::Zero
        } else {
            Content::Random
        };
        let plain_random = matches!(content, Content::Random);
        BufferPolicy {
            refill: spec.refill_buffers && plain_random,
            scramble: spec.scramble_buffers && plain_random && !spec.refill_buffers,
            content,
            stream: None,
        }
    }

    /// The policy of a planned thread: random contents from its fio buffer stream.
    pub fn for_thread(plan: &ThreadPlan) -> BufferPolicy {
        BufferPolicy::with_seeds(&plan.spec, &plan.seeds)
    }

    pub fn with_seeds(spec: &JobSpec, seeds: &SeedSet) -> BufferPolicy {
        let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
        BufferPolicy {
            stream: Some(Cell::new(FioRand::new(seeds.get(Stream::Buf), use64))),
            ..BufferPolicy::from_spec(spec)
        }
    }

    /// Random contents: fio's fill from the buffer stream, or ferrio's from `seed`.
    fn fill_random(&self, buf: &mut [u8], seed: u64) {
        match &self.stream {
            Some(cell) => {
                let mut r = cell.get();
                fill::fill(&mut r, buf);
                cell.set(r);
            }
            None => fill_random(buf, seed),
        }
    }

    /// Initial contents of a freshly allocated buffer.
    pub fn init(&self, buf: &mut [u8], seed: u64) {
        match &self.content {
            Content::Zero => buf.fill(0),
            Content::Random => self.fill_random(buf, seed),
            Content::Pattern(p) if !p.is_empty() => {
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = p[i % p.len()];
                }
            }
            Content::Pattern(_) => buf.fill(0),
        }
    }

    /// Whether `prepare` does anything (lets the hot path skip the call and a clock read).
    #[inline]
    pub fn per_write_work(&self) -> bool {
        self.refill || self.scramble
    }

    /// Prepare a buffer for one write at `offset`.
    #[inline]
    pub fn prepare(&self, buf: &mut [u8], offset: u64, rng: &mut Rng) {
        if self.refill {
            let seed = rng.next_u64();
            self.fill_random(buf, seed);
        } else if self.scramble && buf.len() >= 16 {
            // Stamp the offset and a random word at a random 512-byte sector.
            let sectors = (buf.len() / 512).max(1) as u64;
            let at = (rng.below(sectors) * 512) as usize;
            let at = at.min(buf.len() - 16);
            buf[at..at + 8].copy_from_slice(&offset.to_le_bytes());
            buf[at + 8..at + 16].copy_from_slice(&rng.next_u64().to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_repeats_and_zero_is_zero() {
        let p = BufferPolicy {
            content: Content::Pattern(vec![0xde, 0xad]),
            refill: false,
            scramble: false,
            stream: None,
        };
        let mut b = [0u8; 5];
        p.init(&mut b, 0);
        assert_eq!(b, [0xde, 0xad, 0xde, 0xad, 0xde]);
        let z = BufferPolicy {
            content: Content::Zero,
            refill: false,
            scramble: false,
            stream: None,
        };
        let mut b = [1u8; 4];
        z.init(&mut b, 0);
        assert_eq!(b, [0; 4]);
    }

    #[test]
    fn scramble_changes_a_random_buffer_between_writes() {
        let p = BufferPolicy {
            content: Content::Random,
            refill: false,
            scramble: true,
            stream: None,
        };
        let mut b = vec![0u8; 4096];
        p.init(&mut b, 1);
        let before = b.clone();
        let mut rng = Rng::new(3);
        p.prepare(&mut b, 8192, &mut rng);
        assert_ne!(before, b);
    }

    #[test]
    fn refills_draw_fios_buffer_stream() {
        let mut spec = JobSpec::with_defaults("t", "");
        spec.refill_buffers = true;
        let seeds = SeedSet::from_seed(1, 1);
        let p = BufferPolicy::with_seeds(&spec, &seeds);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        p.init(&mut a, 0);
        p.prepare(&mut b, 0, &mut Rng::new(9));
        let mut r = FioRand::new(seeds.get(Stream::Buf), false);
        let (mut x, mut y) = (vec![0u8; 4096], vec![0u8; 4096]);
        fill::fill(&mut r, &mut x);
        fill::fill(&mut r, &mut y);
        assert_eq!((a, b), (x, y));
    }
}
