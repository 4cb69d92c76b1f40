//! Write-buffer contents: random (default), zeroes, a pattern, refilled per I/O or
//! scrambled per I/O, as fio's zero_buffers / refill_buffers / scramble_buffers /
//! buffer_pattern options ask.

use super::layout::fill_random;
use crate::random::Rng;
use ferrio_config::JobSpec;

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
        }
    }

    /// Initial contents of a freshly allocated buffer.
    pub fn init(&self, buf: &mut [u8], seed: u64) {
        match &self.content {
            Content::Zero => buf.fill(0),
            Content::Random => fill_random(buf, seed),
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
            fill_random(buf, rng.next_u64());
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
        };
        let mut b = [0u8; 5];
        p.init(&mut b, 0);
        assert_eq!(b, [0xde, 0xad, 0xde, 0xad, 0xde]);
        let z = BufferPolicy {
            content: Content::Zero,
            refill: false,
            scramble: false,
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
        };
        let mut b = vec![0u8; 4096];
        p.init(&mut b, 1);
        let before = b.clone();
        let mut rng = Rng::new(3);
        p.prepare(&mut b, 8192, &mut rng);
        assert_ne!(before, b);
    }
}
