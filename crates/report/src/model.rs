//! The data a report is printed from: a snapshot of a finished (or interrupted) run.
//!
//! The runner fills these structs; every printer reads them. Rates (bw, IOPS) are
//! NOT stored: printers derive them from bytes, counts and runtimes exactly as fio does
//! (e.g. bw_bytes = io_bytes * 1000 / runtime_ms with integer division).

use ferrio_stats::{DepthHistogram, LatencyBuckets, LatencyHistogram, PrioLat, SampleStats};

/// Index of a data direction in the `[_; 3]` arrays: read, write, trim (fio's DDIR order).
pub const DDIR_READ: usize = 0;
pub const DDIR_WRITE: usize = 1;
pub const DDIR_TRIM: usize = 2;

/// A whole run.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunReport {
    /// Printed where fio prints its version ("fio version" in JSON), e.g. "ferrio-0.1.0".
    pub version: String,
    /// Unix time of the end of the run, seconds and milliseconds.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    /// ctime-style local time string, e.g. "Sun Nov 22 03:32:27 2026" (no newline).
    pub time: String,
    /// Options from [global] sections / before the first --name, as given (JSON "global options";
    /// the key is omitted when empty, as fio does).
    pub global_options: Vec<(String, String)>,
    /// One entry per reported job (after group_reporting merging), in job order.
    pub jobs: Vec<JobReport>,
    /// One entry per reporting group, ascending groupid.
    pub groups: Vec<GroupReport>,
    /// /proc/diskstats deltas for the devices the jobs touched.
    pub disk_util: Vec<DiskUtil>,
    /// Which clock timed the run ("cpu", "clock_gettime", "gettimeofday", "virtual").
    pub clock_source: String,
    /// --idle-prof: how idle the CPUs were during the run.
    pub cpu_idleness: Option<CpuIdleness>,
    /// ferrio: per-interval samples of the jobs (JSON `"ferrio_intervals"`).
    pub series: Vec<crate::series::JobSeries>,
}

/// fio's "CPU idleness" section (--idle-prof=system|percpu).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuIdleness {
    /// Idle share of all CPUs, percent.
    pub system: f64,
    /// Idle share of each CPU, percent (--idle-prof=percpu only).
    pub percpu: Option<Vec<f64>>,
    /// Time of one calibrated unit of work, microseconds: mean and standard deviation.
    pub unit_mean_us: f64,
    pub unit_stddev: f64,
}

/// One reported job (or a whole group when group_reporting merged its threads).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobReport {
    pub name: String,
    pub description: Option<String>,
    pub groupid: u32,
    pub error: i32,
    pub pid: u32,
    /// Number of threads merged into this report ("jobs=N" in the normal header).
    pub nr_threads: u32,
    /// ctime-style time at which the job finished (normal output header).
    pub time: String,
    /// Wall seconds since the run started (JSON "elapsed").
    pub elapsed_s: u64,
    /// The job's own options as given, in order (JSON "job options").
    pub job_options: Vec<(String, String)>,
    /// read, write, trim.
    pub dir: [DirReport; 3],
    pub sync: SyncReport,
    /// Milliseconds the job ran (JSON "job_runtime"), excluding ramp time.
    pub job_runtime_ms: u64,
    /// CPU usage in percent of job runtime, and raw counters (getrusage deltas).
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
    pub depth: DepthHistogram,
    /// Completion-latency distribution ("lat (usec): 4=39.45%" lines, JSON latency_ns/us/ms).
    pub lat_buckets: LatencyBuckets,
    /// Percentiles to print, in percent (fio's percentile_list; default 1,5,10,20,30,40,50,60,70,80,90,95,99,99.5,99.9,99.95,99.99).
    pub percentile_list: Vec<f64>,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    /// 1024 or 1000 (kb_base) and 0/1/8 (unit_base, as in fio: 0 = auto (bytes), 1 = bits, 8 = bytes).
    pub kb_base: u32,
    pub unit_base: u32,
    /// significant_figures (0 = fio's default 4): see [`crate::units::sig_figs`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub sig_figs: u32,
    /// The job's iodepth, or with latency_target the depth its search settled on
    /// (printed as "latency   : ... depth=N", JSON latency_depth).
    pub iodepth: u32,
    /// latency_target (ns), latency_window (µs) and latency_percentile, as fio
    /// prints them beside the depth (0, 0, 100 without a target; None is fio's
    /// default 100).
    pub latency_target_ns: u64,
    pub latency_window_us: u64,
    pub latency_percentile: Option<f64>,
    /// Steady-state detection results (ss_dur > 0), or None.
    pub steadystate: Option<SteadyStateReport>,
    /// Errors counted under continue_on_error; None when the job does not continue
    /// on any error (fio then prints no `errors` line and no total_err/first_error).
    pub errors: Option<ErrorTotals>,
    /// zonemode=zbd: zone resets (fio's "; N zone resets" on the write line).
    pub zone_resets: u64,
    /// block_error_percentiles=1: each trim block's info word ([`crate::blockinfo`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub block_infos: Option<Vec<u32>>,
    /// ferrio: statistics an engine or a feature published (printed after fio's).
    #[cfg_attr(feature = "serde", serde(default))]
    pub extra: Vec<crate::extra::ExtraStat>,
    /// unified_rw_reporting; a `Mixed` job's statistics are all in `dir[0]`
    /// ([`crate::unified::fold_mixed`]).
    pub unified: Unified,
}

/// fio's total_err_count and first_error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ErrorTotals {
    pub total: u64,
    /// errno of the first error (0: none).
    pub first_error: i32,
}

/// Statistics of one data direction.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DirReport {
    pub io_bytes: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// Milliseconds of this direction's runtime (fio's ts->runtime[ddir]).
    pub runtime_ms: u64,
    pub slat: LatencyHistogram,
    pub clat: LatencyHistogram,
    pub lat: LatencyHistogram,
    /// ferrio (due_lat=1): latency from each I/O's due time under its rate
    /// (coordinated omission), empty unless asked for. Printed after fio's fields.
    pub due_lat: LatencyHistogram,
    /// Periodic bandwidth samples in KiB/s (fio's bw_log samples, every bw_avg_time ms).
    pub bw_samples: SampleStats,
    /// Periodic IOPS samples.
    pub iops_samples: SampleStats,
    /// This job's share of its group's aggregate bandwidth, percent (normal "per=", JSON "bw_agg").
    pub bw_agg_pct: f64,
    /// Latencies per I/O priority (fio's clat_prio: clat, or lat with
    /// lat_percentiles), in fio's order; printed when two or more have samples
    /// (JSON "prios"). Empty when the job's priorities are not told apart.
    #[cfg_attr(feature = "serde", serde(default))]
    pub prios: Vec<PrioLat>,
}

impl DirReport {
    /// fio's sum_thread_stats for one direction: counts and bytes add up, the runtime is
    /// the longest, latencies pool, and bw/IOPS rates add (fio adds the threads' rates,
    /// it does not pool the samples). Used for group_reporting and unified_rw_reporting.
    pub fn add(&mut self, other: &DirReport) {
        self.io_bytes += other.io_bytes;
        self.total_ios += other.total_ios;
        self.short_ios += other.short_ios;
        self.drop_ios += other.drop_ios;
        self.runtime_ms = self.runtime_ms.max(other.runtime_ms);
        self.slat.merge(&other.slat);
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
        self.due_lat.merge(&other.due_lat);
        self.bw_samples.merge_sum(&other.bw_samples);
        self.iops_samples.merge_sum(&other.iops_samples);
        for p in &other.prios {
            ferrio_stats::prio::add_prio(&mut self.prios, p.ioprio, &p.lat);
        }
    }
}

/// fsync/fdatasync statistics (JSON "sync").
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SyncReport {
    pub total_ios: u64,
    pub lat: LatencyHistogram,
}

/// "Run status group N (all jobs):" aggregate.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GroupReport {
    pub groupid: u32,
    /// Its jobs' unified_rw_reporting, combined as fio does ([`Unified::or`]).
    pub unified: Unified,
    pub kb_base: u32,
    pub unit_base: u32,
    /// significant_figures of the group's last job, as fio takes it (0 = 4).
    #[cfg_attr(feature = "serde", serde(default))]
    pub sig_figs: u32,
    pub dir: [GroupDir; 3],
}

/// One direction of a group: fio's group_run_stats.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GroupDir {
    pub io_bytes: u64,
    /// Aggregate bandwidth, bytes/s: io_bytes * 1000 / max_run_ms.
    pub agg_bw: u64,
    /// Smallest and largest per-thread bandwidth, bytes/s.
    pub min_bw: u64,
    pub max_bw: u64,
    /// Shortest and longest per-thread runtime, ms.
    pub min_run_ms: u64,
    pub max_run_ms: u64,
}

/// One device's /proc/diskstats delta over the run (fio's disk_util).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    /// Percent of the run the device was busy.
    pub util: f64,
}

/// What the normal format prints for a job before it starts:
/// `t: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1`
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JobHeader {
    pub name: String,
    pub groupid: u32,
    /// The rw value as fio prints it (e.g. "randrw", "read").
    pub rw: String,
    /// Per direction (min, max) block size in bytes.
    pub bs: [(u64, u64); 3],
    pub ioengine: String,
    pub iodepth: u32,
    /// The job's significant_figures (0 = 4).
    #[cfg_attr(feature = "serde", serde(default))]
    pub sig_figs: u32,
}

/// Steady-state detection results of a job (fio's "steadystate" object and line).
///
/// The window arrays hold one value per check interval, oldest first, always
/// `intervals` long: like fio, a window that never filled is padded with zeros and
/// the means divide by `intervals`.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SteadyStateReport {
    /// ss_dur in whole seconds (JSON "duration").
    pub duration_s: u64,
    /// ss_interval and ss_ramp in milliseconds.
    pub interval_ms: u64,
    pub ramp_ms: u64,
    /// Number of measurements in a full window.
    pub intervals: usize,
    /// Measurements actually in the window (< intervals when it never filled).
    pub filled: usize,
    /// Measurements taken since the job started (after ss_ramp); the window's
    /// first measurement is number `measured - filled + 1`.
    pub measured: u64,
    /// Whether every criterion held on the same window (the job stopped there).
    pub attained: bool,
    /// The criteria, in the order given; the first is the one fio's fields describe.
    pub criteria: Vec<SteadyStateCriterion>,
    /// All directions together: IOPS and bytes/s per interval, mean completion
    /// latency (ns) per interval.
    pub iops: Vec<u64>,
    pub bw: Vec<u64>,
    pub lat_ns: Vec<u64>,
    /// Per direction (read, write, trim) IOPS and bytes/s per interval.
    pub dir_iops: [Vec<u64>; 3],
    pub dir_bw: [Vec<u64>; 3],
    /// Completion and total latency over the window alone, per direction.
    pub window_clat: [ferrio_stats::steadystate::SparseHistogram; 3],
    pub window_lat: [ferrio_stats::steadystate::SparseHistogram; 3],
}

/// One criterion's state on the reported window.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SteadyStateCriterion {
    /// fio's criterion name ("iops", "bw_slope", "write_clat_p99_slope", "iops_snia").
    pub name: String,
    /// The tracked quantity for the normal line: "iops", "bw", "lat", "clat_p99", ...
    pub metric: String,
    /// "deviation", "slope" or "snia".
    pub test: String,
    /// The threshold (percent when `pct`); for SNIA the range and slope limits.
    pub limit: f64,
    pub pct: bool,
    pub snia_limits: (f64, f64),
    /// fio's criterion value, max_deviation and slope (0 when not computed, as fio).
    pub criterion: f64,
    pub max_deviation: f64,
    pub slope: f64,
    /// SNIA: range and line excursion in percent of the window average.
    pub range_pct: f64,
    pub excursion_pct: f64,
    /// Whether this criterion holds on the window.
    pub met: bool,
    /// The values it judged, oldest first (zero-padded like the other arrays).
    pub values: Vec<u64>,
}

/// A job's (or group's) unified_rw_reporting mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Unified {
    /// Each direction on its own (fio's default, `none` or `0`).
    #[default]
    None,
    /// One "mixed" direction only (`mixed` or `1`).
    Mixed,
    /// The directions, then the mixed one (`both` or `2`).
    Both,
}

impl Unified {
    /// fio keeps the group's mode as the OR of its jobs' values (0, 1, 2).
    pub fn or(self, other: Unified) -> Unified {
        match (self as u8) | (other as u8) {
            0 => Unified::None,
            1 => Unified::Mixed,
            2 => Unified::Both,
            // Mixed and both jobs in one group: fio prints neither label nor line.
            _ => Unified::None,
        }
    }
}
