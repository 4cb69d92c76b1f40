//! fio's check_rand_gen_limits: a file with more blocks than the 32-bit tausworthe
//! generator can reach. Its draw is a 32-bit number scaled to the block count, so
//! past 2^32 blocks most blocks can never be drawn (at 2^40 blocks, only every
//! 256th). When the job did not choose a generator, fio says it switches the offsets
//! to tausworthe64; fio 3.33 to 3.41 only said so (the generator was already seeded:
//! fio issue #2036), fio 3.42 switches for real. ferrio switches as 3.42 does, and
//! keeps 3.33's offsets with `fio_seeds=3.33` (docs/random.md).

use crate::runner::plan::ThreadPlan;
use ferrio_config::{ext::zones::ZoneMode, FioSeeds, JobSpec, RandomGenerator};

/// The most blocks the 32-bit generator covers (fio's FRAND32_MAX).
const FRAND32_MAX: u64 = u32::MAX as u64;

/// What the limit check decided for a job's offset stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetGenerator {
    /// The job's own generator covers every file.
    Covers,
    /// No generator was chosen: the offsets are drawn with tausworthe64.
    Switched,
    /// No generator was chosen, and `fio_seeds=3.33` keeps fio 3.33's 32-bit draw.
    KeptAsFio333,
    /// `random_generator=tausworthe` was chosen: kept, with a warning (as fio).
    KeptAsChosen,
}

impl OffsetGenerator {
    /// fio's decision for a job whose largest file has `blocks` blocks.
    pub fn decide(spec: &JobSpec, blocks: u64) -> OffsetGenerator {
        if !spec.rw.random
            || spec.random_generator != RandomGenerator::Tausworthe
            || blocks <= FRAND32_MAX
        {
            OffsetGenerator::Covers
        } else if spec.sprandom.generator_set {
            OffsetGenerator::KeptAsChosen
        } else if spec.fio_seeds == FioSeeds::Fio333 {
            OffsetGenerator::KeptAsFio333
        } else {
            OffsetGenerator::Switched
        }
    }

    /// Whether the offsets are drawn with the 64-bit generator.
    pub fn is_64(self, spec: &JobSpec) -> bool {
        self == OffsetGenerator::Switched || spec.random_generator == RandomGenerator::Tausworthe64
    }

    /// What to tell the user (fio prints the same facts), or None when nothing
    /// changed.
    pub fn note(self, file: &str, blocks: u64) -> Option<String> {
        let head = format!(
            "file {file} has {blocks} blocks, more than the 32-bit tausworthe random \
             generator reaches ({FRAND32_MAX})"
        );
        let tail = match self {
            OffsetGenerator::Covers => return None,
            OffsetGenerator::Switched => {
                "its offsets are drawn with tausworthe64 (as fio 3.42 does; set \
                 random_generator= to choose)"
            }
            OffsetGenerator::KeptAsFio333 => {
                "fio_seeds=3.33 keeps fio 3.33's draw, which reaches only some of them \
                 (fio 3.33 says it switches to tausworthe64 but does not)"
            }
            OffsetGenerator::KeptAsChosen => {
                "only some of them can be drawn; random_generator=lfsr or tausworthe64 \
                 reaches them all"
            }
        };
        Some(format!("{head}: {tail}"))
    }
}

/// The blocks random offsets are drawn over in a file of `len` bytes: in units of
/// the smallest block size of any direction (fio's rw_min_bs), over the strided
/// window when `zonemode=strided` has one.
pub fn draw_blocks(spec: &JobSpec, len: u64, strided: bool) -> u64 {
    let span = if strided {
        spec.zones.range.max(1)
    } else {
        len
    };
    span / map_block(spec)
}

/// fio's rw_min_bs: the smallest block size of the three directions.
pub fn map_block(spec: &JobSpec) -> u64 {
    (0..3).map(|d| spec.bs[d].min).min().unwrap_or(4096).max(1)
}

/// Whether a job on `files` files draws in a strided window (the one case the
/// pattern sets one up for).
pub fn is_strided(spec: &JobSpec, files: usize) -> bool {
    spec.zones.mode == ZoneMode::Strided && files == 1
}

/// The limit check's note for a planned thread's largest file, or None when its
/// generator covers every file. fio prints it as each thread starts; ferrio once per
/// job, before the run.
pub fn note_for(plan: &ThreadPlan) -> Option<String> {
    let strided = is_strided(&plan.spec, plan.files.len());
    let (blocks, file) = plan
        .files
        .iter()
        .map(|f| (draw_blocks(&plan.spec, f.region.len, strided), f))
        .max_by_key(|&(b, _)| b)?;
    OffsetGenerator::decide(&plan.spec, blocks).note(&file.path.display().to_string(), blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_config::RwKind;

    fn spec(random: bool, generator: Option<RandomGenerator>, seeds: FioSeeds) -> JobSpec {
        let mut s = JobSpec::with_defaults("t", "");
        s.rw.random = random;
        s.rw.kind = RwKind::Read;
        if let Some(g) = generator {
            s.random_generator = g;
            s.sprandom.generator_set = true;
        }
        s.fio_seeds = seeds;
        s
    }

    #[test]
    fn only_a_random_job_past_2_32_blocks_with_the_default_generator_switches() {
        let big = FRAND32_MAX + 1;
        let latest = FioSeeds::Latest;
        let d = |s: &JobSpec, b| OffsetGenerator::decide(s, b);
        assert_eq!(d(&spec(true, None, latest), big), OffsetGenerator::Switched);
        assert_eq!(
            d(&spec(true, None, latest), FRAND32_MAX),
            OffsetGenerator::Covers
        );
        assert_eq!(d(&spec(false, None, latest), big), OffsetGenerator::Covers);
        let chosen = spec(true, Some(RandomGenerator::Tausworthe), latest);
        assert_eq!(d(&chosen, big), OffsetGenerator::KeptAsChosen);
        let lfsr = spec(true, Some(RandomGenerator::Lfsr), latest);
        assert_eq!(d(&lfsr, big), OffsetGenerator::Covers);
        let old = spec(true, None, FioSeeds::Fio333);
        assert_eq!(d(&old, big), OffsetGenerator::KeptAsFio333);
        assert!(OffsetGenerator::Switched.is_64(&spec(true, None, latest)));
        assert!(!OffsetGenerator::KeptAsFio333.is_64(&old));
        let t64 = spec(true, Some(RandomGenerator::Tausworthe64), latest);
        assert!(OffsetGenerator::Covers.is_64(&t64));
        assert_eq!(OffsetGenerator::Covers.note("f", 1), None);
        assert!(OffsetGenerator::Switched
            .note("f", big)
            .unwrap()
            .contains("tausworthe64"));
    }
}
