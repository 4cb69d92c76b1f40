//! Whole-job checks that need more than one option (fio's cross-option rules).

use crate::error::ConfigError;
use crate::spec::{ClockSource, JobSpec};

/// Final fix-ups and checks after all options are applied.
pub fn finish(job: &mut JobSpec) -> Result<(), ConfigError> {
    let at = |msg: String| ConfigError(format!("job '{}': {msg} (at {})", job.name, job.origin));
    if job.readonly && job.writes() {
        return Err(at(format!(
            "rw={} writes or trims, but read-only mode is on (--readonly or readonly=1)",
            job.rw.text
        )));
    }
    if job.hipri && job.ioengine != "pvsync2" && job.ioengine != "io_uring" {
        return Err(at(format!(
            "option 'hipri' needs ioengine=pvsync2 or io_uring (ioengine is '{}')",
            job.ioengine
        )));
    }
    if job.clocksource == Some(ClockSource::Virtual) && job.ioengine != "sim" {
        return Err(at(format!(
            "clocksource=virtual needs ioengine=sim, the engine that advances virtual time (ioengine is '{}')",
            job.ioengine
        )));
    }
    if job.time_based && job.runtime_us.is_none() {
        // fio: warn and run size-based rather than forever.
        job.time_based = false;
        job.warnings
            .push("time_based needs runtime= (or timeout=); running size-based".into());
    }
    // A bssplit decides the block sizes whatever order bs/bsrange came in (fio).
    for bs in job.bs.iter_mut() {
        if let (Some(first), Some(last)) = (bs.split.first(), bs.split.last()) {
            bs.min = first.0;
            bs.max = last.0;
        }
    }
    for (d, bs) in job.bs.iter().enumerate() {
        if bs.min == 0 || bs.min > bs.max {
            return Err(at(format!(
                "bad block size range {}-{} for direction {d}",
                bs.min, bs.max
            )));
        }
    }
    job.pacing.check().map_err(at)?;
    let files = if job.filenames.is_empty() {
        job.nrfiles as usize
    } else {
        job.filenames.len()
    };
    let size_bytes = match job.size {
        Some(crate::spec::SizeOrPercent::Bytes(b)) => Some(b),
        _ => None,
    };
    job.buffers
        .check(job.size.is_some(), size_bytes, job.bs[1].min, files)
        .map_err(at)?;
    // verify_pattern alone turns on the header+pattern check (fio).
    if !job.verify.pattern.is_empty() && !job.verify.kind_set {
        job.verify.kind = crate::ext::verify::VerifyKind::Pattern;
    }
    if job.verify.kind == crate::ext::verify::VerifyKind::PatternNoHdr
        && job.verify.pattern.is_empty()
    {
        return Err(at("verify=pattern needs verify_pattern=".into()));
    }
    job.verify.check(job.bs[1].min, job.bs[1].max).map_err(at)?;
    // The net engines' rules; fio's bit-based net reports rates in bits by default.
    let (dirs, random) = (job.rw.kind.directions(), job.rw.random);
    if job
        .net
        .finish(&job.ioengine, &job.filenames, dirs, random)
        .map_err(at)?
        && job.unit_base == 0
    {
        job.unit_base = 1;
    }
    if let Some((lo, _)) = job.filesize {
        if lo == 0 {
            return Err(at("filesize must be > 0".into()));
        }
    }
    if let Err(msg) = super::zones::finish(job) {
        return Err(ConfigError(format!(
            "job '{}': {msg} (at {})",
            job.name, job.origin
        )));
    }
    Ok(())
}
