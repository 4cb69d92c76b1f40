//! The `steadystate  :` line (fio's `show_ss_normal`), one line per further criterion
//! (ferrio), and the latency percentiles of the steady-state window (ferrio).

use super::percentiles::{self, PercentileList};
use crate::model::{JobReport, SteadyStateCriterion, SteadyStateReport};
use crate::units::{cfmt, is_pow2_base, num2str, sig_figs, N2sUnit, SIG_FIGS};

const DIRS: [&str; 3] = ["read", "write", "trim"];

fn mean(v: &[u64]) -> u64 {
    if v.is_empty() {
        0
    } else {
        v.iter().fold(0u64, |a, &b| a.wrapping_add(b)) / v.len() as u64
    }
}

/// `iops mean dev=1.311%`, `bw slope=3031.097`, `write_iops slope=0.052%`,
/// `iops snia range=12.000%, excursion=3.000%`.
fn criterion_text(c: &SteadyStateCriterion) -> String {
    let metric = c.name.trim_end_matches("_slope").trim_end_matches("_snia");
    match c.test.as_str() {
        "snia" => format!(
            "{metric} snia range={}%, excursion={}%",
            cfmt(c.range_pct, 0, 3),
            cfmt(c.excursion_pct, 0, 3)
        ),
        t => format!(
            "{metric}{}={}{}",
            if t == "slope" { " slope" } else { " mean dev" },
            cfmt(c.criterion, 0, 3),
            if c.pct { "%" } else { "" }
        ),
    }
}

/// fio's latency mean for the line: nsec, usec or msec, truncated, 4 figures.
fn lat_text(ns: u64) -> String {
    let (v, unit) = if ns >= 1_000_000 {
        (ns / 1_000_000, "msec")
    } else if ns >= 1000 {
        (ns / 1000, "usec")
    } else {
        (ns, "nsec")
    };
    format!("{}{unit}", num2str(v, SIG_FIGS, 1, false, N2sUnit::None))
}

/// Everything steady state adds to a job's block; "" without ss_dur.
pub fn render(job: &JobReport, kb_base: u32) -> String {
    let Some(ss) = &job.steadystate else {
        return String::new();
    };
    line(job, ss, kb_base) + &extra(job, ss)
}

/// The fio line.
pub fn line(job: &JobReport, ss: &SteadyStateReport, kb_base: u32) -> String {
    let kb = if kb_base == 0 { 1024 } else { kb_base as u64 };
    let i2p = is_pow2_base(kb_base);
    let rate = N2sUnit::rate_for_unit_base(job.unit_base);
    let bw = mean(&ss.bw) / kb;
    let sf = sig_figs(job.sig_figs);
    let primary = ss.criteria.first().cloned().unwrap_or_default();
    let lat = if primary.metric == "lat" {
        format!(", lat={}", lat_text(mean(&ss.lat_ns)))
    } else {
        String::new()
    };
    format!(
        "  steadystate  : attained={}, bw={} ({}), iops={}{}, {}\n",
        if ss.attained { "yes" } else { "no" },
        num2str(bw, sf, kb, i2p, rate),
        num2str(bw, sf, kb, !i2p, rate),
        num2str(mean(&ss.iops), sf, 1, false, N2sUnit::None),
        lat,
        criterion_text(&primary)
    )
}

/// ferrio's lines: further criteria, then the window's latency percentiles.
fn extra(job: &JobReport, ss: &SteadyStateReport) -> String {
    let mut out = String::new();
    for c in ss.criteria.iter().skip(1) {
        out.push_str(&format!(
            "  steadystate  : {}, met={}\n",
            criterion_text(c),
            if c.met { "yes" } else { "no" }
        ));
    }
    let list = PercentileList::new(&job.percentile_list);
    for (h, dir) in ss.window_clat.iter().zip(DIRS) {
        if h.count == 0 || list.values.is_empty() {
            continue;
        }
        let vals = h.percentiles(&list.values);
        out.push_str(&percentiles::render(
            &vals,
            &list,
            &format!("ss window {dir} clat"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_line() {
        // fio 3.33: --ss=iops:50% --ss_dur=3 with the null engine printed
        // "steadystate  : attained=yes, bw=13.2GiB/s (13.8GB/s), iops=3450k, iops mean dev=10.789%".
        let ss = SteadyStateReport {
            attained: true,
            iops: vec![3822676, 3351668, 3176893],
            bw: vec![15657684040, 13728434866, 13012553728],
            criteria: vec![SteadyStateCriterion {
                name: "iops".into(),
                metric: "iops".into(),
                test: "deviation".into(),
                limit: 50.0,
                pct: true,
                criterion: 10.788961,
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            line(&JobReport::default(), &ss, 1024),
            "  steadystate  : attained=yes, bw=13.2GiB/s (13.8GB/s), iops=3450k, iops mean dev=10.789%\n"
        );
    }

    #[test]
    fn nan_like_c() {
        let c = SteadyStateCriterion {
            name: "iops".into(),
            test: "deviation".into(),
            pct: true,
            criterion: f64::NAN,
            ..Default::default()
        };
        assert_eq!(criterion_text(&c), "iops mean dev=nan%");
    }

    #[test]
    fn slope_line_and_extras() {
        // fio 3.33: "attained=no, bw=35.8GiB/s (37.6GB/s), iops=9397k, bw slope=9.246%".
        let mut ss = SteadyStateReport {
            iops: vec![8454625, 9543560, 10192301],
            bw: vec![34630144000, 39090421760, 41747666130],
            criteria: vec![SteadyStateCriterion {
                name: "bw_slope".into(),
                metric: "bw".into(),
                test: "slope".into(),
                pct: true,
                criterion: 9.246078,
                ..Default::default()
            }],
            ..Default::default()
        };
        let job = JobReport::default();
        assert_eq!(
            line(&job, &ss, 1024),
            "  steadystate  : attained=no, bw=35.8GiB/s (37.6GB/s), iops=9397k, bw slope=9.246%\n"
        );
        ss.criteria.push(SteadyStateCriterion {
            name: "write_iops_snia".into(),
            test: "snia".into(),
            range_pct: 12.0,
            excursion_pct: 3.5,
            met: true,
            ..Default::default()
        });
        assert_eq!(
            extra(&job, &ss),
            "  steadystate  : write_iops snia range=12.000%, excursion=3.500%, met=yes\n"
        );
    }
}
