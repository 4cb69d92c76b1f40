//! How much a job moves: fio's job size (size= against its files' regions) and the
//! bytes of one pass (io_size, or the job size; sprandom's physical size).

use super::region::PlannedFile;
use ferrio_config::values::size::SizeOrPercent;
use ferrio_config::JobSpec;

/// Bytes per pass of a job on `files`. fio moves size= bytes, partial blocks included,
/// unless its files run out of blocks first (the pattern then ends the pass).
pub fn pass_bytes(spec: &JobSpec, files: &[PlannedFile]) -> u64 {
    if spec.sprandom.enabled {
        // fio: sprandom writes the drive's physical size (logical plus spr_op).
        let logical = spec.io_size.unwrap_or(u64::MAX).min(job_size(spec, files));
        let bs = spec.bs[1].min;
        return crate::runner::pattern::sprandom::physical_size(spec.sprandom.op, logical, bs);
    }
    spec.io_size.unwrap_or_else(|| job_size(spec, files))
}

/// fio's job size (its size= after file setup): size=, or the files' total, whichever
/// is smaller (filesize= larger than size= leaves part of each file untouched).
pub(crate) fn job_size(spec: &JobSpec, files: &[PlannedFile]) -> u64 {
    let region_total = files
        .iter()
        .fold(0u64, |a, f| a.saturating_add(f.region.len + f.tail));
    match spec.size {
        Some(SizeOrPercent::Bytes(size)) if spec.filesize.is_some() => region_total.min(size),
        _ => region_total,
    }
}
