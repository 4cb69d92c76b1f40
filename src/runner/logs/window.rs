//! The averaged-window log writer of one thread: every log_avg_msec (and every
//! log_hist_msec for the histogram log) of the thread's clock it turns the change in
//! the thread's cumulative statistics into fio log lines.

use super::files::LogFiles;
use super::format::{hist_line, sample_line, Columns};
use super::PER_IO_FALLBACK_MS;
use crate::runner::observer::{Completion, Observer, Verdict};
use crate::runner::plan::ThreadPlan;
use crate::runner::recorder::ThreadResult;
use crate::runner::recorder::ThreadStats;
use ferrio_config::ext::logs::WindowValue;
use ferrio_stats::LatencyHistogram;

const FLUSH_NS: u64 = 1_000_000_000;

/// What the previous window ended with, per direction.
#[derive(Clone, Default)]
struct Mark {
    bytes: u64,
    ios: u64,
    /// slat, clat, lat and due_lat (kept only with a latency log).
    lat: Option<Box<[LatencyHistogram; 4]>>,
}

pub struct WindowLogger {
    files: LogFiles,
    /// log_avg_msec=0: one bw/iops/lat entry per I/O (fio's default) instead of windows.
    per_io: bool,
    /// Per-I/O bandwidth / IOPS entries (fio: none with disable_bw_measurement or
    /// gtod_reduce; no IOPS ones once clat, slat and bw are all disabled).
    per_io_bw: bool,
    per_io_iops: bool,
    /// slat entries exist only for asynchronous engines (as fio's slat statistics).
    has_slat: bool,
    cols: Columns,
    value: WindowValue,
    avg_ns: u64,
    hist_ns: u64,
    coarseness: u32,
    bs: [u64; 3],
    /// Time column origin (thread clock) and its Unix time in ms (log_unix_epoch).
    origin_ns: u64,
    origin_unix_ms: Option<u64>,
    next_avg: u64,
    last_avg: u64,
    next_hist: u64,
    last_flush: u64,
    marks: [Mark; 3],
    /// Cumulative clat histograms at the previous histogram entry.
    hist_marks: Option<Box<[LatencyHistogram; 3]>>,
    line: String,
}

fn unix_ms_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl WindowLogger {
    /// The epoch time (ms on the chosen clock) at `start_ns`, for log_unix_epoch and
    /// log_alternate_epoch; None without them. Read before the log files are opened:
    /// read after, the stamps would run ahead by the time the opening took.
    pub fn epoch_origin_ms(plan: &ThreadPlan) -> Option<u64> {
        let spec = &plan.spec.logs;
        (spec.unix_epoch || plan.spec.dropin.alt_epoch).then(|| {
            crate::sys::time::clock_ms(plan.spec.dropin.alt_epoch_clock_id)
                .unwrap_or_else(unix_ms_now)
        })
    }

    pub fn new(
        plan: &ThreadPlan,
        files: LogFiles,
        start_ns: u64,
        origin_unix_ms: Option<u64>,
    ) -> WindowLogger {
        let spec = &plan.spec.logs;
        let avg_ms = if spec.avg_msec == 0 {
            PER_IO_FALLBACK_MS
        } else {
            spec.avg_msec
        };
        let hist_ms = if spec.hist_msec == 0 {
            avg_ms
        } else {
            spec.hist_msec
        };
        let with_lat = files.lat.is_some();
        let mark = Mark {
            lat: with_lat.then(|| Box::new(std::array::from_fn(|_| LatencyHistogram::new()))),
            ..Default::default()
        };
        let hist = files.hist.is_some();
        WindowLogger {
            per_io: spec.avg_msec == 0,
            per_io_bw: !(plan.spec.dropin.disable_bw || plan.spec.gtod_reduce),
            per_io_iops: !(plan.spec.gtod_reduce
                || (plan.spec.dropin.disable_bw
                    && plan.spec.disable_clat
                    && plan.spec.disable_slat)),
            has_slat: !plan.caps.synchronous,
            files,
            cols: Columns {
                both: spec.window_value == WindowValue::Both,
                offset: spec.offset,
                prio: spec.prio,
                issue_time: spec.issue_time,
            },
            value: spec.window_value,
            avg_ns: avg_ms * 1_000_000,
            hist_ns: hist_ms * 1_000_000,
            coarseness: spec.hist_coarseness,
            bs: std::array::from_fn(|d| plan.spec.bs[d].min),
            origin_ns: start_ns,
            origin_unix_ms,
            next_avg: start_ns + avg_ms * 1_000_000,
            last_avg: start_ns,
            next_hist: if hist {
                start_ns + hist_ms * 1_000_000
            } else {
                u64::MAX
            },
            last_flush: start_ns,
            marks: [mark.clone(), mark.clone(), mark],
            hist_marks: hist.then(|| Box::new(std::array::from_fn(|_| LatencyHistogram::new()))),
            line: String::new(),
        }
    }

    fn time_ms(&self, now_ns: u64) -> u64 {
        let ms = now_ns.saturating_sub(self.origin_ns) / 1_000_000;
        self.origin_unix_ms.map_or(ms, |u| u + ms)
    }

    /// The (value, max) pair of an entry for log_window_value.
    fn pick(&self, avg: u64, max: u64) -> u64 {
        if self.value == WindowValue::Max {
            max
        } else {
            avg
        }
    }

    /// The entries of the window ending at `now_ns`.
    fn averages(&mut self, now_ns: u64, stats: &ThreadStats) {
        let spent = now_ns.saturating_sub(self.last_avg);
        let t = self.time_ms(now_ns);
        let cols = self.cols;
        for d in 0..3 {
            let s = &stats.dir[d];
            let m = &self.marks[d];
            let (db, di) = (
                s.io_bytes.saturating_sub(m.bytes),
                s.total_ios.saturating_sub(m.ios),
            );
            if di == 0 || spent == 0 {
                continue;
            }
            if let Some(f) = &self.files.bw {
                let kib = (db as u128 * 1_000_000_000 / spent as u128 / 1024) as u64;
                self.line.clear();
                let v = self.pick(kib, kib);
                sample_line(&mut self.line, cols, t, v, kib, d, 0, 0, 0, 0);
                f.write(&self.line);
            }
            if let Some(f) = &self.files.iops {
                let iops = (di as u128 * 1_000_000_000 / spent as u128) as u64;
                self.line.clear();
                let v = self.pick(iops, iops);
                sample_line(&mut self.line, cols, t, v, iops, d, 0, 0, 0, 0);
                f.write(&self.line);
            }
            if let (Some(files), Some(prev)) = (&self.files.lat, &self.marks[d].lat) {
                let now = [&s.slat, &s.clat, &s.lat, &s.due_lat];
                for k in 0..4 {
                    let file = match k {
                        3 => match &self.files.due_lat {
                            Some(f) => f,
                            None => continue,
                        },
                        _ => &files[k],
                    };
                    let w = now[k].delta(&prev[k]);
                    if w.count() == 0 {
                        continue;
                    }
                    let avg = (w.mean() + 0.5) as u64;
                    self.line.clear();
                    let v = self.pick(avg, w.max());
                    sample_line(&mut self.line, cols, t, v, w.max(), d, 0, 0, 0, 0);
                    file.write(&self.line);
                }
            }
        }
        for d in 0..3 {
            let s = &stats.dir[d];
            let m = &mut self.marks[d];
            m.bytes = s.io_bytes;
            m.ios = s.total_ios;
            if let Some(l) = &mut m.lat {
                l[0].clone_from(&s.slat);
                l[1].clone_from(&s.clat);
                l[2].clone_from(&s.lat);
                l[3].clone_from(&s.due_lat);
            }
        }
        self.last_avg = now_ns;
    }

    /// The histogram entries at `now_ns`.
    fn histograms(&mut self, now_ns: u64, stats: &ThreadStats) {
        let t = self.time_ms(now_ns);
        let (Some(f), Some(marks)) = (&self.files.hist, &mut self.hist_marks) else {
            return;
        };
        for d in 0..3 {
            let clat = &stats.dir[d].clat;
            if clat.count() <= marks[d].count() {
                continue;
            }
            self.line.clear();
            hist_line(
                &mut self.line,
                t,
                d,
                self.bs[d],
                clat,
                &marks[d],
                self.coarseness,
            );
            f.write(&self.line);
            marks[d].clone_from(clat);
        }
    }
}

/// The next time on a fixed schedule `last + k * period` strictly after `now`.
fn next_after(mut t: u64, period: u64, now: u64) -> u64 {
    while t <= now {
        t += period;
    }
    t
}

impl Observer for WindowLogger {
    fn next_due_ns(&self) -> u64 {
        self.next_avg.min(self.next_hist)
    }

    fn observe(&mut self, now_ns: u64, stats: &ThreadStats) -> Verdict {
        if now_ns >= self.next_avg {
            if !self.per_io {
                self.averages(now_ns, stats);
            }
            self.next_avg = next_after(self.next_avg, self.avg_ns, now_ns);
        }
        if now_ns >= self.next_hist {
            self.histograms(now_ns, stats);
            self.next_hist = next_after(self.next_hist, self.hist_ns, now_ns);
        }
        if now_ns.saturating_sub(self.last_flush) >= FLUSH_NS {
            self.files.flush();
            self.last_flush = now_ns;
        }
        Verdict::Continue
    }

    fn wants_completions(&self) -> bool {
        self.per_io
            && (self.files.bw.is_some() || self.files.iops.is_some() || self.files.lat.is_some())
    }

    /// fio's per-I/O entries: latencies in ns, bandwidth as bytes * 10^6 / clat_ns
    /// (fio's add_bw_sample, checked against fio 3.33's logs), IOPS as 1; bs is the
    /// I/O's size, offset its offset. As fio master's: the issue time is the slat
    /// and clat entries' only (lat, bw and iops entries carry 0), and a per-I/O
    /// entry's second value column (log_window_value=both) is 0.
    fn completed(&mut self, c: &Completion) {
        let t = self.time_ms(c.now_ns);
        let cols = self.cols;
        let issue = c.issue_ns.saturating_sub(self.origin_ns);
        let entry = |line: &mut String, file: &super::files::LogFile, value: u64, issue: u64| {
            line.clear();
            sample_line(
                line, cols, t, value, 0, c.ddir, c.bytes, c.offset, issue, c.ioprio,
            );
            file.write(line);
        };
        if let Some(f) = self.files.bw.as_ref().filter(|_| self.per_io_bw) {
            let rate = (c.bytes as u128 * 1_000_000)
                .checked_div(c.clat_ns as u128)
                .unwrap_or(0) as u64;
            entry(&mut self.line, f, rate, 0);
        }
        if let Some(f) = self.files.iops.as_ref().filter(|_| self.per_io_iops) {
            entry(&mut self.line, f, 1, 0);
        }
        if let Some(files) = &self.files.lat {
            if self.has_slat {
                entry(&mut self.line, &files[0], c.slat_ns, issue);
            }
            entry(&mut self.line, &files[1], c.clat_ns, issue);
            entry(&mut self.line, &files[2], c.lat_ns, 0);
        }
        if let Some(f) = &self.files.due_lat {
            entry(
                &mut self.line,
                f,
                c.now_ns
                    .saturating_sub(c.due_ns.min(c.issue_ns - c.slat_ns)),
                0,
            );
        }
    }

    fn stats_reset(&mut self, now_ns: u64) {
        // End of ramp_time: the time column and the windows start over, as the
        // statistics do.
        if let Some(u) = &mut self.origin_unix_ms {
            *u += now_ns.saturating_sub(self.origin_ns) / 1_000_000;
        }
        self.origin_ns = now_ns;
        self.last_avg = now_ns;
        self.next_avg = now_ns + self.avg_ns;
        if self.hist_marks.is_some() {
            self.next_hist = now_ns + self.hist_ns;
        }
        for m in &mut self.marks {
            m.bytes = 0;
            m.ios = 0;
            if let Some(l) = &mut m.lat {
                for h in l.iter_mut() {
                    *h = LatencyHistogram::new();
                }
            }
        }
        if let Some(h) = &mut self.hist_marks {
            for x in h.iter_mut() {
                *x = LatencyHistogram::new();
            }
        }
    }

    fn finish(mut self: Box<Self>, now_ns: u64, stats: &ThreadStats, _r: &mut ThreadResult) {
        // The last, partial window, so that the entries account for every I/O.
        if now_ns > self.last_avg && !self.per_io {
            self.averages(now_ns, stats);
        }
        self.histograms(now_ns, stats);
        self.files.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::logs::files::Shared;
    use crate::runner::worker::tests::plan_of;

    #[test]
    fn averaged_entries_per_window_and_for_the_last_partial_one() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("j");
        let opts = format!(
            "size=64k\nwrite_bw_log={}\nlog_avg_msec=1000",
            prefix.display()
        );
        let plan = plan_of(&opts, true);
        let files = LogFiles::open(
            &plan.spec.logs,
            1,
            &mut Shared::default(),
            false,
            crate::runner::logs::files::Store::of(&plan.spec.logs, &plan.spec.compat),
        )
        .unwrap();
        let mut w = Box::new(WindowLogger::new(&plan, files, 0, None));
        assert_eq!(w.next_due_ns(), 1_000_000_000);
        let mut s = ThreadStats::default();
        s.dir[0].io_bytes = 1 << 20;
        s.dir[0].total_ios = 256;
        // Due exactly at the end of the window.
        w.observe(1_000_000_000, &s);
        assert_eq!(w.next_due_ns(), 2_000_000_000);
        s.dir[0].io_bytes += 512 << 10;
        s.dir[0].total_ios += 128;
        // The job ends half-way through the next window: fio logs that part too.
        w.finish(1_500_000_000, &s, &mut ThreadResult::default());
        let text = std::fs::read_to_string(dir.path().join("j_bw.1.log")).unwrap();
        assert_eq!(text, "1000, 1024, 0, 0, 0\n1500, 1024, 0, 0, 0\n");
    }

    #[test]
    fn per_io_columns_as_fio_master() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j").display().to_string();
        let opts = format!(
            "write_lat_log={p}\nwrite_bw_log={p}\nwrite_iops_log={p}\nlog_offset=1\nlog_issue_time=1\nlog_window_value=both"
        );
        let plan = plan_of(&opts, false);
        let store = crate::runner::logs::files::Store::of(&plan.spec.logs, &plan.spec.compat);
        let files =
            LogFiles::open(&plan.spec.logs, 1, &mut Shared::default(), false, store).unwrap();
        let mut w = Box::new(WindowLogger::new(&plan, files, 1_000, None));
        w.completed(&Completion {
            now_ns: 3_000_001_000,
            ddir: 1,
            bytes: 4096,
            offset: 8192,
            issue_ns: 2_000_001_000,
            due_ns: 1_000,
            slat_ns: 7,
            clat_ns: 1_000_000_000,
            lat_ns: 1_000_000_007,
            ioprio: 0,
        });
        w.finish(
            3_000_001_000,
            &ThreadStats::default(),
            &mut ThreadResult::default(),
        );
        let read =
            |k: &str| std::fs::read_to_string(dir.path().join(format!("j_{k}.1.log"))).unwrap();
        // time, value, max (0 per I/O), ddir, bs, offset, prio, issue time (slat and
        // clat only).
        assert_eq!(read("slat"), "3000, 7, 0, 1, 4096, 8192, 0, 2000000000\n");
        assert_eq!(
            read("clat"),
            "3000, 1000000000, 0, 1, 4096, 8192, 0, 2000000000\n"
        );
        assert_eq!(read("lat"), "3000, 1000000007, 0, 1, 4096, 8192, 0, 0\n");
        assert_eq!(read("bw"), "3000, 4, 0, 1, 4096, 8192, 0, 0\n");
        assert_eq!(read("iops"), "3000, 1, 0, 1, 4096, 8192, 0, 0\n");
    }
}
