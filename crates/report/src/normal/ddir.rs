//! One data direction of a job (fio's `show_ddir_status`): the `read: IOPS=..` line,
//! the slat/clat/lat summary lines, the percentile tables and the bw/iops sample lines;
//! and the fsync block, which fio prints through the same routine.

use ferrio_stats::{LatencyHistogram, SampleStats};

use super::percentiles::{self, PercentileList};
use crate::model::{JobReport, DDIR_WRITE};
use crate::units::{cfmt, is_pow2_base, num2str, sig_figs, LatUnit, N2sUnit};

/// The block of direction `ddir`; "" when it has no runtime. `kb_base` is the group's.
pub fn render(job: &JobReport, ddir: usize, kb_base: u32) -> String {
    let d = &job.dir[ddir];
    if d.runtime_ms == 0 {
        return String::new();
    }
    let i2p = is_pow2_base(kb_base);
    let rate = N2sUnit::rate_for_unit_base(job.unit_base);
    let runt = d.runtime_ms as u128;
    let sf = sig_figs(job.sig_figs);
    let bw = (1000 * d.io_bytes as u128 / runt) as u64;
    let iops = (1000 * d.total_ios as u128 / runt) as u64;
    let post = if ddir == DDIR_WRITE && job.unified != crate::model::Unified::Mixed {
        format!("; {} zone resets", job.zone_resets)
    } else {
        String::new()
    };
    let mut out = format!(
        "  {}: IOPS={}, BW={} ({})({}/{}msec){}\n",
        crate::unified::dir_name(job, ddir),
        num2str(iops, sf, 1, false, N2sUnit::None),
        num2str(bw, sf, 1, i2p, rate),
        num2str(bw, sf, 1, !i2p, rate),
        num2str(d.io_bytes, sf, 1, i2p, N2sUnit::Byte),
        d.runtime_ms,
        post
    );
    out.push_str(&lat_line("slat", &d.slat));
    out.push_str(&lat_line("clat", &d.clat));
    out.push_str(&lat_line(" lat", &d.lat));
    // fio prints per-priority lines when two or more priorities have samples.
    let by_prio = ferrio_stats::prio::with_samples(&d.prios) >= 2;
    let prio_kind = if job.lat_percentiles { "lat" } else { "clat" };
    // class/level as fio 3.33, class/level/hint as fio 3.4x once a hint is in use.
    let hints = ferrio_stats::prio::any_hint(&d.prios);
    let prio_name = |p: &ferrio_stats::prio::PrioLat| match hints {
        true => format!("{}/{}/{}", p.class(), p.level(), p.hint()),
        false => format!("{}/{}", p.class(), p.level()),
    };
    if by_prio {
        for p in &d.prios {
            let name = format!("{prio_kind} prio {}", prio_name(p));
            out.push_str(&lat_line(&name, &p.lat));
        }
    }

    let list = PercentileList::new(&job.percentile_list);
    if job.slat_percentiles {
        out.push_str(&percentiles::table(&d.slat, &list, "slat"));
    }
    if job.clat_percentiles {
        out.push_str(&percentiles::table(&d.clat, &list, "clat"));
    }
    if job.lat_percentiles {
        out.push_str(&percentiles::table(&d.lat, &list, "lat"));
    }
    if by_prio && (job.clat_percentiles || job.lat_percentiles) {
        let all = if job.lat_percentiles {
            d.lat.count()
        } else {
            d.clat.count()
        };
        for p in d.prios.iter().filter(|p| p.lat.count() > 0) {
            let share = 100.0 * p.lat.count() as f64 / all.max(1) as f64;
            let name = format!("{prio_kind} prio {} ({share:.2}% of IOs)", prio_name(p));
            out.push_str(&percentiles::table(&p.lat, &list, &name));
        }
    }
    // ferrio (due_lat=1): latency from the due time, after fio's lines.
    if d.due_lat.count() > 0 {
        out.push_str(&lat_line("due lat", &d.due_lat));
        out.push_str(&percentiles::table(&d.due_lat, &list, "due lat"));
    }
    out.push_str(&bw_line(&d.bw_samples, d.bw_agg_pct, kb_base));
    out.push_str(&iops_line(&d.iops_samples));
    out
}

/// The fsync/fdatasync block, "" when no sync was timed.
pub fn sync_block(job: &JobReport) -> String {
    let h = &job.sync.lat;
    if h.count() == 0 {
        return String::new();
    }
    let list = PercentileList::new(&job.percentile_list);
    let mut out = String::from("  fsync/fdatasync/sync_file_range:\n");
    out.push_str(&lat_line("sync", h));
    out.push_str(&percentiles::table(h, &list, "sync"));
    out
}

/// `    clat (usec): min=51, max=254, avg=60.50, stdev=18.85` (fio's `display_lat`);
/// "" for an empty histogram.
pub fn lat_line(name: &str, h: &LatencyHistogram) -> String {
    if h.count() == 0 {
        return String::new();
    }
    let (min, max, mean, dev) = (h.min(), h.max(), h.mean(), h.stddev());
    let unit = LatUnit::choose(min, max, dev);
    let div = unit.divisor();
    format!(
        "    {} ({}): min={}, max={}, avg={}, stdev={}\n",
        name,
        unit.name(),
        num2str(min / div, 6, 1, false, N2sUnit::None),
        num2str(max / div, 6, 1, false, N2sUnit::None),
        cfmt(mean / div as f64, 5, 2),
        cfmt(dev / div as f64, 5, 2),
    )
}

/// `   bw (  KiB/s): min= 2000, max= 2008, per=100.00%, avg=2002.67, stdev= 4.62, samples=3`
///
/// Samples are KiB/s; past kb_base² the line switches to "MiB" (fio says "MiB" even with
/// kb_base=1000) and divides by kb_base, truncating min and max.
pub fn bw_line(s: &SampleStats, per: f64, kb_base: u32) -> String {
    if s.samples() == 0 {
        return String::new();
    }
    let kb = if kb_base == 0 { 1024.0 } else { kb_base as f64 };
    let mut unit = if is_pow2_base(kb_base) { "KiB" } else { "kB" };
    let (mut min, mut max) = (s.min() as u64, s.max() as u64);
    let (mut mean, mut dev) = (s.mean(), s.stddev());
    if mean > kb * kb {
        min = (min as f64 / kb) as u64;
        max = (max as f64 / kb) as u64;
        mean /= kb;
        dev /= kb;
        unit = "MiB";
    }
    format!(
        "   bw ({:>5}/s): min={:5}, max={:5}, per={}%, avg={}, stdev={}, samples={}\n",
        unit,
        min,
        max,
        cfmt(per, 3, 2),
        cfmt(mean, 5, 2),
        cfmt(dev, 5, 2),
        s.samples()
    )
}

/// `   iops        : min=  500, max=  502, avg=500.67, stdev= 1.15, samples=3`
pub fn iops_line(s: &SampleStats) -> String {
    if s.samples() == 0 {
        return String::new();
    }
    format!(
        "   iops        : min={:5}, max={:5}, avg={}, stdev={}, samples={}\n",
        s.min() as u64,
        s.max() as u64,
        cfmt(s.mean(), 5, 2),
        cfmt(s.stddev(), 5, 2),
        s.samples()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &[(u64, u64)]) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        for &(ns, n) in v {
            for _ in 0..n {
                h.record(ns);
            }
        }
        h
    }

    fn s(v: &[f64]) -> SampleStats {
        let mut s = SampleStats::default();
        for &x in v {
            s.add(x);
        }
        s
    }

    #[test]
    fn lat_line_units() {
        assert_eq!(lat_line("clat", &LatencyHistogram::new()), "");
        // one sample: stdev 0 keeps nsec even for large values; max shortened to 6 chars
        assert_eq!(
            lat_line("clat", &h(&[(12_345_678, 1)])),
            "    clat (nsec): min=12346k, max=12346k, avg=12345678.00, stdev= 0.00\n"
        );
        assert_eq!(
            lat_line(" lat", &h(&[(3000, 1), (200_000, 1)])),
            "     lat (usec): min=3, max=200, avg=101.50, stdev=139.30\n"
        );
        assert_eq!(
            lat_line("sync", &h(&[(3_000_000, 1), (200_000_000, 1)])),
            "    sync (msec): min=3, max=200, avg=101.50, stdev=139.30\n"
        );
    }

    #[test]
    fn bw_line_labels_and_scaling() {
        assert_eq!(bw_line(&SampleStats::default(), 100.0, 1024), "");
        let small = s(&[2000.0, 2008.0, 2000.0]);
        assert_eq!(
            bw_line(&small, 100.0, 1024),
            "   bw (  KiB/s): min= 2000, max= 2008, per=100.00%, avg=2002.67, stdev= 4.62, samples=3\n"
        );
        assert_eq!(
            bw_line(&small, 49.5, 1000),
            "   bw (   kB/s): min= 2000, max= 2008, per=49.50%, avg=2002.67, stdev= 4.62, samples=3\n"
        );
        // past 1024^2 KiB/s: MiB, min/max truncated
        let big = s(&[1_049_599.0, 2_098_175.0]);
        assert_eq!(
            bw_line(&big, 100.0, 1024),
            "   bw (  MiB/s): min= 1024, max= 2048, per=100.00%, avg=1537.00, stdev=724.08, samples=2\n"
        );
        // exactly kb_base^2 stays in KiB
        let edge = s(&[1_048_576.0]);
        assert!(bw_line(&edge, 100.0, 1024).starts_with("   bw (  KiB/s): min=1048576,"));
    }

    #[test]
    fn iops_line_format() {
        assert_eq!(iops_line(&SampleStats::default()), "");
        assert_eq!(
            iops_line(&s(&[6_804_500.0, 7_396_936.0])),
            "   iops        : min=6804500, max=7396936, avg=7100718.00, stdev=418915.51, samples=2\n"
        );
    }

    #[test]
    fn direction_needs_runtime() {
        let mut job = JobReport::default();
        job.dir[0].io_bytes = 4096;
        job.dir[0].total_ios = 1;
        assert_eq!(render(&job, 0, 1024), "");
        job.dir[0].runtime_ms = 1;
        assert_eq!(
            render(&job, 0, 1024),
            "  read: IOPS=1000, BW=4000KiB/s (4096kB/s)(4096B/1msec)\n"
        );
        // significant_figures=2 shortens every number of the line
        job.sig_figs = 2;
        assert_eq!(
            render(&job, 0, 1024),
            "  read: IOPS=1k, BW=4MiB/s (4MB/s)(4KiB/1msec)\n"
        );
        job.sig_figs = 0;
        job.dir[2] = job.dir[0].clone();
        assert!(render(&job, 2, 1024).starts_with("  trim: IOPS=1000,"));
        job.dir[1] = job.dir[0].clone();
        assert!(render(&job, 1, 1024).ends_with("(4096B/1msec); 0 zone resets\n"));
    }

    #[test]
    fn sync_block_only_with_samples() {
        let mut job = JobReport {
            percentile_list: vec![50.0, 99.0],
            ..Default::default()
        };
        assert_eq!(sync_block(&job), "");
        job.sync.lat = h(&[(98_000, 2)]);
        assert_eq!(
            sync_block(&job),
            "  fsync/fdatasync/sync_file_range:\n    sync (nsec): min=98000, max=98000, avg=98000.00, stdev= 0.00\n    sync percentiles (nsec):\n     |  50th=[97792],  99th=[97792]\n"
        );
    }
}
