//! `filesize=LOW-HIGH`: each file's size, as fio picks it (filesetup.c's
//! `setup_files` and `get_rand_file_size`). A file that exists with a size inside the
//! range keeps it; every other file, in file order, takes the next draw of the job's
//! file-size stream (seeded as fio seeds `file_size_state`, so the sizes repeat fio's
//! with the same seeds): `LOW + (HIGH - LOW) · r / (max + 1)`, rounded down to the
//! smallest block size of any direction.

use crate::random::{FioRand, SeedSet, Stream};
use ferrio_config::{JobSpec, RandomGenerator};

/// The draws of one thread's files.
pub(super) struct FileSizes {
    rand: FioRand,
    low: u64,
    high: u64,
    min_bs: u64,
}

impl FileSizes {
    /// None unless the job gives filesize= as a range.
    pub(super) fn new(spec: &JobSpec, seeds: &SeedSet) -> Option<FileSizes> {
        let (low, high) = spec.filesize.filter(|(low, high)| low != high)?;
        let use64 = spec.random_generator == RandomGenerator::Tausworthe64;
        Some(FileSizes {
            rand: FioRand::new(seeds.get(Stream::FileSize), use64),
            low,
            high,
            min_bs: spec.bs.iter().map(|b| b.min).min().unwrap_or(1).max(1),
        })
    }

    /// The size of the next file, given its current size when it exists.
    pub(super) fn next(&mut self, existing: Option<u64>) -> u64 {
        if let Some(size) = existing.filter(|s| (self.low..=self.high).contains(s)) {
            return size;
        }
        let size = self.low + self.rand.scaled(self.high - self.low);
        size - size % self.min_bs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(range: &str) -> JobSpec {
        let mut s = JobSpec::with_defaults("t", "");
        let (lo, hi) = range.split_once('-').unwrap();
        s.filesize = Some((lo.parse().unwrap(), hi.parse().unwrap()));
        s
    }

    #[test]
    fn a_fixed_size_draws_nothing() {
        assert!(FileSizes::new(&spec("65536-65536"), &SeedSet::from_seed(1, 1)).is_none());
    }

    #[test]
    fn draws_are_in_range_block_aligned_and_an_existing_size_in_range_is_kept() {
        let seeds = SeedSet::from_seed(1234, 1);
        let mut s = FileSizes::new(&spec("65536-262144"), &seeds).unwrap();
        let mut again = FileSizes::new(&spec("65536-262144"), &seeds).unwrap();
        for _ in 0..100 {
            let n = s.next(None);
            assert!(
                (65536..=262144).contains(&n) && n.is_multiple_of(4096),
                "{n}"
            );
            assert_eq!(
                again.next(Some(1 << 30)),
                n,
                "a size out of range is redrawn"
            );
        }
        // A size in range is kept and takes no draw.
        let mut kept = FileSizes::new(&spec("65536-262144"), &seeds).unwrap();
        let mut fresh = FileSizes::new(&spec("65536-262144"), &seeds).unwrap();
        assert_eq!(kept.next(Some(70000)), 70000);
        assert_eq!(kept.next(None), fresh.next(None));
    }
}
