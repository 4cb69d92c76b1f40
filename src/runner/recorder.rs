//! Per-thread statistics, owned by the worker and handed to the reporter when the
//! thread ends (inside a [`ThreadResult`]). Recording is plain field updates: no
//! locks, no allocation.

use crate::sys::rusage::Usage;
use ferrio_stats::{DepthHistogram, LatencyBuckets, LatencyHistogram, PrioLat, SampleStats};

/// One direction's counters and distributions.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub io_bytes: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// I/Os that failed (fio counts them as issued, not as moved bytes).
    pub failed_ios: u64,
    pub slat: LatencyHistogram,
    pub clat: LatencyHistogram,
    pub lat: LatencyHistogram,
    /// due_lat=1 (ferrio): completion minus the I/O's due time under its rate (its
    /// start when the direction is not paced). Not a fio statistic: fio measures
    /// from the start, which hides the time a paced I/O waited behind a slow one.
    pub due_lat: LatencyHistogram,
    pub bw_samples: SampleStats,
    pub iops_samples: SampleStats,
    /// cmdprio: latencies per I/O priority, in the slots' order (runner/cmdprio.rs);
    /// empty when the direction gives no I/O a per-command priority.
    pub prios: Vec<PrioLat>,
}

impl DirStats {
    /// cmdprio: one latency of priority slot `slot`; `slots` are every slot's ioprio
    /// value (the entries are made on the first sample, and again after a ramp reset).
    pub fn record_prio(&mut self, slots: &[u32], slot: usize, ns: u64) {
        if self.prios.len() != slots.len() {
            self.prios = slots
                .iter()
                .map(|&ioprio| PrioLat {
                    ioprio,
                    lat: LatencyHistogram::new(),
                })
                .collect();
        }
        if let Some(p) = self.prios.get_mut(slot) {
            p.lat.record(ns);
        }
    }
}

/// Everything one thread measured.
#[derive(Clone, Debug, Default)]
pub struct ThreadStats {
    pub dir: [DirStats; 3],
    pub sync_ios: u64,
    pub sync_lat: LatencyHistogram,
    pub lat_buckets: LatencyBuckets,
    pub depth: DepthHistogram,
    pub usage: Usage,
    /// Microseconds the thread did measured I/O (ramp excluded).
    pub runtime_us: u64,
    /// Per direction, when they differ (a verify job: its writes and its verify
    /// reads run in turn, as fio's ts->runtime[ddir]); None: `runtime_us` for all.
    pub dir_runtime_us: Option<[u64; 3]>,
    /// Errors counted under continue_on_error (fio's total_err_count, first_error).
    /// Kept across the end of ramp_time (fio counts them per thread, not per stats).
    pub errors: ErrorCount,
    /// latency_target: the queue depth the search settled on (0: no target).
    pub latency_depth: u32,
    /// profile=act: ACT's latency slices (runner/act.rs).
    pub act: Option<Box<super::act::ActCounter>>,
}

/// What a thread hands back to the reporter.
#[derive(Debug, Default)]
pub struct ThreadResult {
    pub stats: ThreadStats,
    /// The error that stopped the job: (errno, message). fio stops a job at its
    /// first I/O error unless continue_on_error makes it non-fatal.
    pub error: Option<(i32, String)>,
    /// Clock time the thread started its measured phase and ended.
    pub start_ns: u64,
    pub end_ns: u64,
    /// Nanoseconds from the thread's first I/O to its end, ramp included (JSON "elapsed").
    pub elapsed_ns: u64,
    /// zonemode=zbd: zone resets issued (fio's nr_zone_resets).
    pub zone_resets: u64,
    /// block_error_percentiles=1: the trim blocks' info words (runner/blockinfo.rs).
    pub block_infos: Option<Vec<u32>>,
    /// What the thread still holds that others see: its place in its flow group
    /// (flow=). The runner releases it after acting on the job's end (exitall), so
    /// the other jobs of the group are never unthrottled before exitall stops them.
    pub held: Option<Box<dyn std::any::Any + Send>>,
    /// Statistics the engine and the pacer published (ferrio_report::extra).
    pub extra: Vec<ferrio_report::extra::ExtraStat>,
}

/// fio's error count: every non-fatal error, and the fatal one when
/// continue_on_error covers its type; the first one's errno.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ErrorCount {
    pub total: u64,
    pub first: i32,
}

impl ErrorCount {
    /// Count one error.
    pub fn add(&mut self, errno: i32) {
        self.total += 1;
        if self.total == 1 {
            self.first = errno;
        }
    }
}

/// Which latencies to record (disable_* / gtod_reduce).
#[derive(Clone, Copy, Debug)]
pub struct Recording {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
}

impl ThreadStats {
    /// Account one completed data I/O.
    #[inline(always)]
    pub fn complete(
        &mut self,
        rec: Recording,
        d: usize,
        bytes: u64,
        short: bool,
        clat_ns: u64,
        lat_ns: u64,
    ) {
        let s = &mut self.dir[d];
        s.io_bytes += bytes;
        s.total_ios += 1;
        s.short_ios += short as u64;
        if rec.clat {
            s.clat.record(clat_ns);
            self.lat_buckets.record(clat_ns);
        }
        if rec.lat {
            s.lat.record(lat_ns);
        }
    }

    /// Record `n` completion latencies of `clat_ns` in direction `d` (one batch's
    /// equal clats: the same as `n` clat records of `complete`).
    #[inline(never)]
    pub fn record_clats(&mut self, d: usize, clat_ns: u64, n: u64) {
        self.dir[d].clat.record_n(clat_ns, n);
        self.lat_buckets.record_n(clat_ns, n);
    }

    /// Account one I/O of an engine that does file operations: counted with its
    /// bytes; `clat_ns` when it carried an operation (no lat, no latency bucket).
    #[inline]
    pub fn complete_file_op(&mut self, d: usize, bytes: u64, clat_ns: Option<u64>) {
        let s = &mut self.dir[d];
        s.io_bytes += bytes;
        s.total_ios += 1;
        if let Some(ns) = clat_ns {
            s.clat.record(ns);
        }
    }

    /// Account one submission latency (asynchronous engines only, as in fio).
    #[inline]
    pub fn submitted(&mut self, rec: Recording, d: usize, slat_ns: u64) {
        if rec.slat {
            self.dir[d].slat.record(slat_ns);
        }
    }

    /// Account one fsync/fdatasync.
    pub fn synced(&mut self, lat_ns: u64) {
        self.sync_ios += 1;
        self.sync_lat.record(lat_ns);
    }

    /// Account one sync_file_range: its latency is a sync's, but fio 3.33 counts
    /// the I/O itself in the write direction's short column (its per-direction
    /// issue count for that kind lands there), never in the sync total.
    pub fn range_synced(&mut self, lat_ns: u64) {
        self.sync_lat.record(lat_ns);
        self.dir[1].short_ios += 1;
    }
}

/// Periodic bw/IOPS samples, taken by the worker itself every bwavgtime/iopsavgtime
/// (one comparison per I/O; no helper thread reads the worker's counters).
#[derive(Clone, Debug)]
pub struct Sampler {
    period_ns: [u64; 2],
    last_ns: [u64; 2],
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
    /// The earliest time any sample is due (the hot path compares against this only).
    pub next_due_ns: u64,
}

impl Sampler {
    pub fn new(now_ns: u64, bw_period_ms: u64, iops_period_ms: u64) -> Sampler {
        let period_ns = [
            bw_period_ms.max(1) * 1_000_000,
            iops_period_ms.max(1) * 1_000_000,
        ];
        Sampler {
            period_ns,
            last_ns: [now_ns; 2],
            last_bytes: [0; 3],
            last_ios: [0; 3],
            next_due_ns: now_ns + period_ns[0].min(period_ns[1]),
        }
    }

    /// Take whatever samples are due at `now_ns` (fio: a direction with no I/O in the
    /// interval adds no sample; rates are integers: KiB/s for bw, I/Os per second).
    pub fn sample(&mut self, now_ns: u64, stats: &mut ThreadStats) {
        if now_ns >= self.last_ns[0] + self.period_ns[0] {
            let spent_ms = (now_ns - self.last_ns[0]) / 1_000_000;
            for d in 0..3 {
                let delta = stats.dir[d].io_bytes - self.last_bytes[d];
                self.last_bytes[d] = stats.dir[d].io_bytes;
                if delta > 0 && spent_ms > 0 {
                    let rate = delta * 1000 / spent_ms / 1024;
                    stats.dir[d].bw_samples.add(rate as f64);
                }
            }
            self.last_ns[0] = now_ns;
        }
        if now_ns >= self.last_ns[1] + self.period_ns[1] {
            let spent_ms = (now_ns - self.last_ns[1]) / 1_000_000;
            for d in 0..3 {
                let delta = stats.dir[d].total_ios - self.last_ios[d];
                self.last_ios[d] = stats.dir[d].total_ios;
                if delta > 0 && spent_ms > 0 {
                    let rate = delta * 1000 / spent_ms;
                    stats.dir[d].iops_samples.add(rate as f64);
                }
            }
            self.last_ns[1] = now_ns;
        }
        self.next_due_ns =
            (self.last_ns[0] + self.period_ns[0]).min(self.last_ns[1] + self.period_ns[1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_file_range_is_a_sync_latency_and_a_short_write() {
        // fio 3.33 counts sync_file_range in the write direction's short column.
        let mut s = ThreadStats::default();
        s.range_synced(100);
        s.range_synced(300);
        assert_eq!(
            (s.sync_lat.count(), s.sync_ios, s.dir[1].short_ios),
            (2, 0, 2)
        );
    }

    #[test]
    fn samples_are_integer_rates_over_each_period() {
        let mut s = ThreadStats::default();
        let mut sm = Sampler::new(0, 500, 1000);
        assert_eq!(sm.next_due_ns, 500_000_000);
        s.dir[0].io_bytes = 3 << 20;
        s.dir[0].total_ios = 768;
        sm.sample(500_000_000, &mut s);
        // 3 MiB in 500 ms: 6144 KiB/s; no IOPS sample before its own period.
        assert_eq!(
            (s.dir[0].bw_samples.samples(), s.dir[0].bw_samples.mean()),
            (1, 6144.0)
        );
        assert_eq!(s.dir[0].iops_samples.samples(), 0);
        assert_eq!(s.dir[1].bw_samples.samples(), 0);
        assert_eq!(sm.next_due_ns, 1_000_000_000);
        s.dir[0].io_bytes += 1000;
        s.dir[0].total_ios += 232;
        sm.sample(1_000_000_000, &mut s);
        // 1000 bytes in 500 ms: 1 KiB/s after fio's integer divisions.
        assert_eq!(s.dir[0].bw_samples.samples(), 2);
        assert_eq!(s.dir[0].bw_samples.min(), 1.0);
        assert_eq!(
            (
                s.dir[0].iops_samples.samples(),
                s.dir[0].iops_samples.mean()
            ),
            (1, 1000.0)
        );
    }
}
