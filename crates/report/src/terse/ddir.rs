//! One direction's terse fields (fio's `show_ddir_status_terse`, version 3):
//! `;io_KiB;bw_KiB/s;iops;runtime_ms`, slat, clat (usec: `;min;max;mean;stdev`),
//! twenty `;P%=usec` percentile fields (`;0%=0` past the list), lat, and
//! `;bw_min;bw_max;share%;bw_mean;bw_stdev`; version 5 adds [`samples`].

use ferrio_stats::LatencyHistogram;

use crate::model::JobReport;
use crate::normal::percentiles::{PercentileList, MAX_LEN};
use crate::units::cfmt;

/// The fields of direction `ddir`; `group_agg` is the group's aggregate bandwidth in bytes/s.
pub fn fields(job: &JobReport, ddir: usize, group_agg: u64) -> String {
    let d = &job.dir[ddir];
    let (mut bw, mut iops) = (0u64, 0u64);
    if d.runtime_ms != 0 {
        let runt = d.runtime_ms as u128;
        bw = ((1000 * d.io_bytes as u128 / runt) / 1024) as u64;
        iops = (1000 * d.total_ios as u128 / runt) as u64;
    }
    let mut out = format!(";{};{};{};{}", d.io_bytes >> 10, bw, iops, d.runtime_ms);
    out.push_str(&lat(&d.slat));
    out.push_str(&lat(&d.clat));

    let list = PercentileList::new(&job.percentile_list);
    let source = if job.lat_percentiles {
        Some(&d.lat)
    } else if job.clat_percentiles {
        Some(&d.clat)
    } else {
        None
    };
    let vals = source.map(|h| list.values_of(h)).unwrap_or_default();
    for i in 0..MAX_LEN {
        match vals.get(i) {
            Some(v) => out.push_str(&format!(";{}%={}", cfmt(list.values[i], 0, 6), v / 1000)),
            None => out.push_str(";0%=0"),
        }
    }
    out.push_str(&lat(&d.lat));

    let s = &d.bw_samples;
    if s.samples() > 0 {
        let mean = s.mean();
        let mut share = 100.0;
        if group_agg != 0 {
            share = mean * 100.0 / (group_agg / 1024) as f64;
            if share > 100.0 {
                share = 100.0;
            }
        }
        out.push_str(&format!(
            ";{};{};{}%;{};{}",
            s.min() as u64,
            s.max() as u64,
            cfmt(share, 0, 6),
            cfmt(mean, 0, 6),
            cfmt(s.stddev(), 0, 6)
        ));
    } else {
        out.push_str(";0;0;0.000000%;0.000000;0.000000");
    }
    out
}

/// `;min;max;mean;stdev` in usec, zeros for an empty histogram.
fn lat(h: &LatencyHistogram) -> String {
    if h.count() == 0 {
        return ";0;0;0.000000;0.000000".to_string();
    }
    format!(
        ";{};{};{};{}",
        h.min() / 1000,
        h.max() / 1000,
        cfmt(h.mean() / 1000.0, 0, 6),
        cfmt(h.stddev() / 1000.0, 0, 6)
    )
}

/// Version 5's extra fields: `;bw_samples;iops_min;iops_max;iops_mean;iops_stdev;iops_samples`.
pub fn samples(job: &JobReport, ddir: usize) -> String {
    let d = &job.dir[ddir];
    let mut out = format!(";{}", d.bw_samples.samples());
    let s = &d.iops_samples;
    if s.samples() > 0 {
        out.push_str(&format!(
            ";{};{};{};{};{}",
            s.min() as u64,
            s.max() as u64,
            cfmt(s.mean(), 0, 6),
            cfmt(s.stddev(), 0, 6),
            s.samples()
        ));
    } else {
        out.push_str(";0;0;0.000000;0.000000;0");
    }
    out
}
