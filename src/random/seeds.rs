//! fio's per-thread seeds: one seed per independent stream (block sizes per direction,
//! rwmix direction, file choice, offsets, buffer contents, ...), all derived from the
//! job's `randseed` and the thread's number, so numjobs clones differ from each other
//! and every stream is independent of how much the others are used.
//!
//! Follows the latest fio (3.35 and later): with `randrepeat=1` (the default) or an
//! explicit `randseed`, seed i of thread t is `S_i · t + i`, where S_0 is randseed
//! multiplied four times by 0x9e370001 and each later S is the previous one multiplied
//! once more (all modulo 2^64); otherwise the seeds are drawn from the system.
//! fio 3.33 and older differ in one place: with randrepeat=1 the offset stream was
//! seeded with 0xb1899bed · t whatever randseed said (see docs/random.md).

/// The streams, in fio's order (the index is part of the seed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    BsRead = 0,
    BsWrite,
    BsTrim,
    Verify,
    RwMix,
    File,
    Block,
    FileSize,
    Trim,
    Buf,
    SeqRandRead,
    SeqRandWrite,
    SeqRandTrim,
    StartDelay,
    Dedupe,
    Poisson,
    Zone,
    Poisson2,
    Poisson3,
    Prio,
    DedupeWorkingSet,
    Fdp,
    SpRandom,
    WriteMode,
}

/// Number of streams in the latest fio.
pub const STREAMS: usize = 24;
const GOLDEN: u64 = 0x9e37_0001;

/// One thread's seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSet {
    seeds: [u64; STREAMS],
    /// fio's 1-based thread number (some per-file seeds use it too).
    pub thread_number: u64,
    /// fio 3.33's seeding (`fio_seeds=3.33`): Some(randrepeat).
    pub fio333: Option<bool>,
}

/// fio 3.33's constant for repeatable offsets.
const FIO333_RANDSEED: u64 = 0xb189_9bed;

impl SeedSet {
    /// Seeds from a known randseed for fio's 1-based `thread_number`.
    pub fn from_seed(randseed: u64, thread_number: u64) -> SeedSet {
        let mut s = randseed;
        for _ in 0..4 {
            s = s.wrapping_mul(GOLDEN);
        }
        let mut seeds = [0u64; STREAMS];
        for (i, out) in seeds.iter_mut().enumerate() {
            *out = s.wrapping_mul(thread_number).wrapping_add(i as u64);
            s = s.wrapping_mul(GOLDEN);
        }
        SeedSet {
            seeds,
            thread_number,
            fio333: None,
        }
    }

    /// fio 3.33's variant: with randrepeat when the thread is seeded
    /// (`repeatable_when_seeded`), the offset stream is seeded with a constant times
    /// the thread number, whatever randseed says; with randrepeat when its files are
    /// set up (`repeatable_at_setup`; fio may have turned it off in between), the
    /// zipf/pareto/normal file seeds come from the file names (distribution.rs).
    pub fn as_fio333(mut self, repeatable_when_seeded: bool, repeatable_at_setup: bool) -> SeedSet {
        if repeatable_when_seeded {
            self.seeds[Stream::Block as usize] = FIO333_RANDSEED.wrapping_mul(self.thread_number);
        }
        self.fio333 = Some(repeatable_at_setup);
        self
    }

    /// fio 3.33's `allrandrepeat=1`: every stream seeded with a constant times the
    /// thread number plus the stream's index, whatever randseed says (then
    /// [`Self::as_fio333`] as for any job).
    pub fn fio333_all_repeatable(thread_number: u64) -> SeedSet {
        let mut seeds = [0u64; STREAMS];
        for (i, out) in seeds.iter_mut().enumerate() {
            *out = FIO333_RANDSEED
                .wrapping_mul(thread_number)
                .wrapping_add(i as u64);
        }
        SeedSet {
            seeds,
            thread_number,
            fio333: None,
        }
    }

    /// Seeds that differ from run to run (randrepeat=0 without randseed).
    pub fn from_entropy(thread_number: u64) -> SeedSet {
        use std::hash::{BuildHasher, Hasher};
        let state = std::collections::hash_map::RandomState::new();
        let mut seeds = [0u64; STREAMS];
        for (i, out) in seeds.iter_mut().enumerate() {
            let mut h = state.build_hasher();
            h.write_usize(i);
            if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
                h.write_u128(t.as_nanos());
            }
            *out = h.finish();
        }
        SeedSet {
            seeds,
            thread_number,
            fio333: None,
        }
    }

    #[inline]
    pub fn get(&self, s: Stream) -> u64 {
        self.seeds[s as usize]
    }

    /// Every stream's seed, in fio's order (for `--debug=random`).
    pub fn all(&self) -> &[u64; STREAMS] {
        &self.seeds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_fios_chain() {
        let a = SeedSet::from_seed(1234, 1);
        let mut s = 1234u64;
        for _ in 0..4 {
            s = s.wrapping_mul(GOLDEN);
        }
        assert_eq!(a.get(Stream::BsRead), s);
        assert_eq!(a.get(Stream::BsWrite), s.wrapping_mul(GOLDEN) + 1);
        // Thread 2 multiplies each chain value by 2.
        let b = SeedSet::from_seed(1234, 2);
        assert_eq!(b.get(Stream::BsRead), s.wrapping_mul(2));
        assert_ne!(a, b);
    }

    #[test]
    fn fio333_seeds_offsets_from_a_constant_with_randrepeat() {
        let a = SeedSet::from_seed(1234, 3).as_fio333(true, true);
        assert_eq!(a.get(Stream::Block), 0xb189_9bed * 3);
        let b = SeedSet::from_seed(1234, 3);
        assert_eq!(
            SeedSet::from_seed(1234, 3)
                .as_fio333(false, false)
                .get(Stream::Block),
            b.get(Stream::Block)
        );
        assert_eq!(a.get(Stream::RwMix), b.get(Stream::RwMix));
    }

    #[test]
    fn entropy_seeds_differ() {
        assert_ne!(SeedSet::from_entropy(1), SeedSet::from_entropy(1));
    }
}
