//! fio options for log compression, memory and time-keeping placement that fio's job
//! files and harnesses pass (issue 14): `log_compression`, `log_compression_cpus`,
//! `log_store_compressed` and `gtod_cpu` (thp is the mmap engine's). The options are in
//! `table/compat.rs`; docs/dropin.md says what each does in ferrio.

use super::logs::{LogSpec, WindowValue};

/// The job's settings from these options. Defaults are fio's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompatSpec {
    /// log_compression=N: compress the logs in chunks of N bytes of samples (0: off).
    pub log_compression: u64,
    /// log_compression_cpus=: the CPUs fio's compression threads may use (ferrio
    /// compresses on the job's own thread; the list is checked and kept for show).
    pub log_compression_cpus: Option<Vec<usize>>,
    /// log_store_compressed=1: logs are stored as fio's `.log.fz` files (zlib streams
    /// of fio's binary samples), which `--inflate-log` turns back into text.
    pub log_store_compressed: bool,
    /// gtod_cpu=N: the CPU kept for time keeping; the job's threads never run on it.
    pub gtod_cpu: Option<usize>,
    /// block_error_percentiles=1: track each trim block's trims and failures and
    /// report fio's "block lifetime percentiles".
    pub block_error_hist: bool,
    /// atomic=1: fio opens the files O_DIRECT (plus an O_ATOMIC bit Linux ignores).
    pub atomic: bool,
    /// --debug= categories (a run-wide flag, copied to every job): the job's threads
    /// write the lines of these (e.g. the offset generator fio's `random` lines).
    pub debug: super::debug::DebugSet,
    /// profile=act (or --profile=act): count ACT's latency slices and print its
    /// report; the value is the least number of hourly slices shown (0: as many as
    /// the run reached).
    pub act_report: Option<u32>,
}

/// fio's MAX_NR_BLOCK_INFOS: the most trim blocks a block error histogram tracks.
pub const MAX_BLOCK_INFOS: u64 = 8192;

impl CompatSpec {
    /// Chunk size of compressed logs: log_compression, or 1 MiB of samples when only
    /// log_store_compressed is set (fio compresses its whole in-memory log then).
    pub fn chunk_bytes(&self) -> usize {
        match self.log_compression {
            0 => 1 << 20,
            n => n as usize,
        }
    }

    /// Cross-option rules: fio's compressed format holds one value per entry
    /// (time, value, ddir, bs, offset, priority), so columns beyond it are refused.
    pub fn check(&self, logs: &LogSpec) -> Result<(), String> {
        if !self.log_store_compressed {
            return Ok(());
        }
        if logs.hist_log.is_some() {
            return Err("log_store_compressed=1 cannot store write_hist_log: fio's compressed log entries carry one value, not a histogram".into());
        }
        if logs.window_value == WindowValue::Both {
            return Err("log_store_compressed=1 cannot store log_window_value=both: fio's compressed log entries carry one value".into());
        }
        if logs.issue_time {
            return Err("log_store_compressed=1 cannot store log_issue_time=1: fio's compressed log entries have no issue time".into());
        }
        Ok(())
    }
}

/// block_error_percentiles=1 rules (fio's): one file per job, and (when the size is
/// known here) between 1 and 8192 trim blocks in it.
pub fn check_block_hist(files: usize, size: Option<u64>, trim_bs: u64) -> Result<(), String> {
    if files != 1 {
        return Err(format!("block error histogram only available with a single file per job, but {files} files provided"));
    }
    if let Some(n) = size.map(|s| s / trim_bs.max(1)) {
        if n == 0 || n > MAX_BLOCK_INFOS {
            return Err(format!("cannot calculate block histogram with {n} trim blocks, maximum {MAX_BLOCK_INFOS} (size / the trim block size)"));
        }
    }
    Ok(())
}

/// The CPUs this machine has online (from sysfs; what the process may use otherwise).
fn online_cpus() -> Vec<usize> {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|t| crate::values::list::parse_cpus(t.trim()).ok())
        .unwrap_or_else(|| {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            (0..n).collect()
        })
}

/// gtod_cpu=N: the job's CPUs (cpus_allowed, or every online CPU) without CPU N.
pub fn without_gtod_cpu(allowed: Option<Vec<usize>>, cpu: usize) -> Result<Vec<usize>, String> {
    let online = online_cpus();
    if !online.contains(&cpu) {
        return Err(format!(
            "gtod_cpu={cpu} is not an online CPU of this machine"
        ));
    }
    let mut cpus = allowed.unwrap_or(online);
    cpus.retain(|&c| c != cpu);
    if cpus.is_empty() {
        return Err(format!(
            "gtod_cpu={cpu} takes the only CPU the job may use; the job needs another one"
        ));
    }
    Ok(cpus)
}

/// The engines that send RWF_ATOMIC for atomic=1 (fio 3.4x's FIO_ATOMICWRITES).
pub const ATOMIC_ENGINES: &[&str] = &["io_uring", "libaio", "pvsync2"];

/// atomic=1: fio 3.4x refuses an engine that cannot send RWF_ATOMIC ("engine does not
/// support atomic writes") rather than write without it.
pub fn check_atomic_engine(engine: &str) -> Result<(), String> {
    if ATOMIC_ENGINES.contains(&engine) {
        return Ok(());
    }
    Err(format!(
        "atomic=1: ioengine={engine} cannot send atomic writes (RWF_ATOMIC); use one of: {}",
        ATOMIC_ENGINES.join(", ")
    ))
}
