//! Whole-job checks that need more than one option (fio's cross-option rules).

use crate::error::ConfigError;
use crate::spec::{ClockSource, JobSpec, RandomGenerator, RwKind};
use crate::table::{METADATA_ENGINES, NO_EXTEND_ENGINES};

/// The engines that can end a loop with syncfs(2) (end_syncfs=1): those fio 3.42
/// flags FIO_SYNCFS or FIO_ASYNCIO_SYNC_SYNCFS that ferrio also has, these and the
/// file-operation engines (METADATA_ENGINES).
const SYNCFS_ENGINES: &[&str] = &[
    "psync",
    "sync",
    "vsync",
    "pvsync",
    "pvsync2",
    "io_uring",
    "libaio",
    "posixaio",
    "falloc",
    "ftruncate",
];

/// Whether `engine` can end a loop with syncfs(2) (see [`SYNCFS_ENGINES`]).
fn syncs_file_systems(engine: &str) -> bool {
    SYNCFS_ENGINES.contains(&engine) || METADATA_ENGINES.contains(&engine)
}

/// Final fix-ups and checks after all options are applied.
pub fn finish(job: &mut JobSpec) -> Result<(), ConfigError> {
    if let Err(e) = local_engines(job) {
        return Err(ConfigError(format!(
            "job '{}': {e} (at {})",
            job.name, job.origin
        )));
    }
    let at = |msg: String| ConfigError(format!("job '{}': {msg} (at {})", job.name, job.origin));
    if job.ramp_time_us > 0 && job.ramp_size > 0 {
        return Err(at(
            "ramp_time and ramp_size cannot both be given: the ramp ends after a time or \
             after an amount of I/O (fio rejects the job too)"
                .into(),
        ));
    }
    if job.readonly && job.writes() {
        return Err(at(format!(
            "rw={} writes or trims, but read-only mode is on (--readonly or readonly=1)",
            job.rw.text
        )));
    }
    if job.hipri
        && job.ioengine != "pvsync2"
        && job.ioengine != "io_uring"
        && job.foreign.engine.is_none()
    {
        return Err(at(format!(
            "option 'hipri' needs ioengine=pvsync2 or io_uring (ioengine is '{}')",
            job.ioengine
        )));
    }
    // ferrio reopens unlinked files under the same descriptor; an engine holding the
    // file itself (a mapping, a registered file) would go on using the deleted one.
    let holds_files = job.ioengine == "mmap"
        || (job.ioengine == "io_uring" && (job.engine.registerfiles || job.engine.sqthread_poll));
    if job.dropin.unlink_each_loop && holds_files {
        return Err(at(format!(
            "unlink_each_loop=1 is not supported with ioengine={}{} yet: the engine would keep using the first pass's deleted files",
            job.ioengine,
            if job.ioengine == "mmap" { "" } else { " and registerfiles/sqthread_poll" }
        )));
    }
    // fio's fixup_options: an engine that cannot grow a file cannot append to one.
    if job.dropin.file_append && NO_EXTEND_ENGINES.contains(&job.ioengine.as_str()) {
        return Err(at(format!(
            "file_append=1 is not possible with ioengine={}, which cannot grow a file (fio: \"can't append/extent with IO engine {}\")",
            job.ioengine, job.ioengine
        )));
    }
    // fio's mmap and libpmem engines (their init) refuse blocks that are not whole
    // pages with fsync or fdatasync, and mmap with direct too: those flush or drop the
    // mapping page by page.
    let syncs = job.fsync > 0 || job.fdatasync > 0;
    let by_page = match job.ioengine.as_str() {
        "mmap" => job.direct || syncs,
        "libpmem" => syncs,
        _ => false,
    };
    if by_page {
        let page = crate::jobfile::subst::page_size();
        let min_bs = job.bs.iter().map(|b| b.min).min().unwrap_or(page);
        if min_bs % page != 0 {
            // (direct matters to mmap only.)
            let why = if job.ioengine == "mmap" && job.direct {
                "direct=1"
            } else if job.fsync > 0 {
                "fsync"
            } else {
                "fdatasync"
            };
            return Err(at(format!(
                "ioengine={} with {why} needs block sizes that are multiples of the page size ({page} bytes), as fio requires; the smallest block size is {min_bs}",
                job.ioengine
            )));
        }
    }
    if job.end_syncfs && job.foreign.engine.is_none() && !syncs_file_systems(&job.ioengine) {
        return Err(at(format!(
            "end_syncfs=1: ioengine={} does not support syncfs (as in fio); engines that do: {}, {}",
            job.ioengine,
            SYNCFS_ENGINES.join(", "),
            METADATA_ENGINES.join(", ")
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
    // min/max come from whichever of bsrange and bssplit came last (a later bs never
    // changes a range: table/io.rs), as fio's options write them; a bsrange after a
    // bssplit keeps the split's sizes, aligned to its min and cut at its max
    // (runner/pattern/draw.rs's pick_len, fio's get_next_buflen).
    for (d, bs) in job.bs.iter().enumerate() {
        if bs.min == 0 || bs.min > bs.max {
            return Err(at(format!(
                "bad block size range {}-{} for direction {d}",
                bs.min, bs.max
            )));
        }
    }
    check_split_above_min(job).map_err(at)?;
    job.pacing.check().map_err(at)?;
    job.compat.check(&job.logs).map_err(at)?;
    job.prio.check().map_err(at)?;
    if job.sprandom.enabled {
        // fio (init.c): random writes only; lfsr and norandommap are set unless given otherwise.
        let writes_randomly = job.rw.random
            && matches!(
                job.rw.kind,
                RwKind::Write | RwKind::ReadWrite | RwKind::TrimWrite
            );
        let lfsr = job.random_generator == RandomGenerator::Lfsr;
        crate::ext::sprandom::check(&job.sprandom, writes_randomly, lfsr, job.norandommap)
            .map_err(at)?;
        job.random_generator = RandomGenerator::Lfsr;
        job.norandommap = true;
    }
    if job.prio.uncached && job.direct {
        // fio sets the flag only on buffered I/O: a no-op here, as there.
        job.warnings.push(
            "uncached=1 has no effect with direct=1 (it applies to buffered I/O only)".into(),
        );
    }
    if job.compat.atomic {
        // fio 3.4x sends RWF_ATOMIC and refuses an engine that cannot; fio 3.33's
        // O_DIRECT open stays (atomic writes need direct I/O anyway).
        crate::ext::compat::check_atomic_engine(&job.ioengine).map_err(at)?;
        job.direct = true; // fio: OS_O_DIRECT | FIO_O_ATOMIC whatever direct= says
    }
    if let Some(cpu) = job.compat.gtod_cpu {
        job.cpus_allowed =
            Some(crate::ext::compat::without_gtod_cpu(job.cpus_allowed.take(), cpu).map_err(at)?);
    }
    let files = if job.filenames.is_empty() {
        job.nrfiles as usize
    } else {
        job.filenames.len()
    };
    let size_bytes = match job.size {
        Some(crate::values::size::SizeOrPercent::Bytes(b)) => Some(b),
        _ => None,
    };
    job.buffers
        .check(job.size.is_some(), size_bytes, job.bs[1].min, files)
        .map_err(at)?;
    if job.compat.block_error_hist {
        crate::ext::compat::check_block_hist(files, size_bytes, job.bs[2].min).map_err(at)?;
    }
    // verify_pattern alone turns on the header+pattern check (fio).
    if !job.verify.pattern.is_empty() && !job.verify.kind_set {
        job.verify.kind = crate::ext::verify::VerifyKind::Pattern;
    }
    if job.verify.kind_set && job.verify.pattern.is_empty() {
        use crate::ext::verify::VerifyKind as V;
        if matches!(job.verify.kind, V::PatternNoHdr | V::Pattern) {
            let name = if job.verify.kind == V::Pattern {
                "pattern_hdr"
            } else {
                "pattern"
            };
            return Err(at(format!("verify={name} needs verify_pattern=")));
        }
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

/// openfiles below nrfiles: the loop opens and closes files during the run, so the
/// engine must take each I/O's descriptor as it comes (not map or register the
/// files once at its start), and the paths that work on every file at once
/// (read_iolog, zonemode=zbd, unlink_each_loop) are refused. (The verify pass opens
/// a closed file itself.)
fn openfiles_below_nrfiles(job: &JobSpec, open: u32) -> Result<(), String> {
    let engine = job.ioengine.as_str();
    let head = format!("openfiles={open} is below nrfiles={}", job.nrfiles);
    // null and sim open no file, the metadata engines none for long: only the
    // order of the I/Os follows openfiles.
    if METADATA_ENGINES.contains(&engine) || ["null", "sim"].contains(&engine) {
        return Ok(());
    }
    // An engine ferrio cannot run is refused by a run anyway; --parse-only accepts.
    if job.foreign.engine.is_some() {
        return Ok(());
    }
    const PER_IO: [&str; 13] = [
        "psync",
        "sync",
        "vsync",
        "pvsync",
        "pvsync2",
        "libaio",
        "io_uring",
        "posixaio",
        "splice",
        "mmap",
        "falloc",
        "ftruncate",
        "e4defrag",
    ];
    if !PER_IO.contains(&engine) {
        return Err(format!(
            "{head}: ioengine={engine} does not open and close files during the run, so openfiles must be at least nrfiles; engines that do: {}, null, sim and the metadata engines",
            PER_IO.join(", ")
        ));
    }
    if engine == "io_uring" && (job.engine.registerfiles || job.engine.sqthread_poll) {
        return Err(format!(
            "{head}: io_uring with registerfiles=1 or sqthread_poll=1 registers every file with the kernel at its start, so openfiles must be at least nrfiles (or use registerfiles=0 and sqthread_poll=0)"
        ));
    }
    let other = if job.logs.read_iolog.is_some() {
        Some("read_iolog")
    } else if job.zones.mode == crate::ext::zones::ZoneMode::Zbd {
        Some("zonemode=zbd")
    } else if job.dropin.unlink_each_loop {
        Some("unlink_each_loop")
    } else {
        None
    };
    if let Some(other) = other {
        return Err(format!(
            "{head}: {other} is not supported with files opened and closed during the run (ioengine={engine}); set openfiles to at least nrfiles"
        ));
    }
    Ok(())
}

/// The local engines' rules (fio's engine init): cpuio and exec pace themselves with
/// a think time after every I/O and use one file; cpuio needs its load, exec its
/// program; openfiles below nrfiles only where files are not held open.
fn local_engines(job: &mut JobSpec) -> Result<(), String> {
    let engine = job.ioengine.as_str();
    if let Some(open) = job.local.openfiles {
        if open < job.nrfiles {
            openfiles_below_nrfiles(job, open)?;
        }
    }
    let think_us = match engine {
        "cpuio" => {
            if job.local.cpuload == 0 {
                return Err(
                    "ioengine=cpuio needs cpuload= (the percentage of a CPU to use)".into(),
                );
            }
            job.local.cpuload = job.local.cpuload.min(100);
            job.local.cpu_think_us(job.local.cpuchunks_us)
        }
        "exec" => {
            if job.local.program.is_none() {
                return Err("ioengine=exec needs program= (the program to run)".into());
            }
            if job.runtime_us.is_none() {
                return Err(
                    "ioengine=exec needs runtime= (the program runs for the job's runtime)".into(),
                );
            }
            // The program runs for the runtime whatever size says (fio: time-based).
            job.time_based = true;
            // fio checks on the program every 50 ms.
            50_000
        }
        _ => return Ok(()),
    };
    job.nrfiles = 1;
    let p = &mut job.pacing;
    p.thinktime_us = think_us;
    p.thinktime_spin_us = 0;
    p.thinktime_blocks = 1;
    p.blocks_type = crate::ext::pacing::ThinkBlocks::Complete;
    Ok(())
}

/// A bssplit entry below the smallest block size (a bsrange after the bssplit set
/// it) is aligned down to 0 by fio's get_next_buflen, and fio ends the job, with no
/// error, the first time it draws that entry (`bssplit=512/10:4k/90 bsrange=4k-64k`
/// stops a 1 MiB job after about a dozen I/Os). Refused here: no zero-length I/O,
/// no silently short run.
fn check_split_above_min(job: &JobSpec) -> Result<(), String> {
    if job.bs_unaligned {
        return Ok(()); // (fio then issues the entry's size as it is)
    }
    let used = if job.bs_is_seq_rand {
        [true, true, false]
    } else {
        job.rw.kind.directions()
    };
    for (d, bs) in job.bs.iter().enumerate().filter(|&(d, _)| used[d]) {
        if let Some(&(small, _)) = bs
            .split
            .iter()
            .find(|&&(size, pct)| pct > 0 && size < bs.min)
        {
            return Err(format!(
                "bssplit entry {small} is below the smallest {} block size {} that the bsrange after it sets: fio aligns it down to 0 and ends the job the first time it draws it; drop the entry, give bsrange before bssplit, or set bs_unaligned=1",
                ["read", "write", "trim"][d],
                bs.min
            ));
        }
    }
    Ok(())
}
