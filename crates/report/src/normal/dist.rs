//! Percent distributions as fio computes them (`stat_calc_dist`, `stat_calc_lat`),
//! shared by the normal and terse printers.

use crate::model::JobReport;

/// Issued read+write+trim I/Os: the denominator of the depth and latency distributions
/// (fio's `ddir_rw_sum(total_io_u)`; syncs are not counted, so depth 1 may exceed 100%).
pub fn rw_total(job: &JobReport) -> u64 {
    job.dir.iter().map(|d| d.total_ios).sum()
}

/// fio's `stat_calc_dist`: percent of `total` per entry, at least 0.1 for a non-empty entry.
pub fn depth_dist(map: &[u64; 7], total: u64) -> [f64; 7] {
    let mut out = [0.0; 7];
    if total == 0 {
        return out;
    }
    for (o, &m) in out.iter_mut().zip(map) {
        let mut v = m as f64 / total as f64;
        v *= 100.0;
        if v < 0.1 && m != 0 {
            v = 0.1;
        }
        *o = v;
    }
    out
}

/// fio's `stat_calc_lat`: percent of `total` per bucket, at least 0.01 for a non-empty one.
pub fn lat_dist(src: &[u64], total: u64) -> Vec<f64> {
    src.iter()
        .map(|&s| {
            if total == 0 {
                return 0.0;
            }
            let mut v = s as f64 / total as f64;
            v *= 100.0;
            if v < 0.01 && s != 0 {
                v = 0.01;
            }
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_percentages() {
        // fsync=1 run: 127 depth-1 entries over 64 writes -> `1=198.4%`
        let d = depth_dist(&[127, 0, 0, 0, 0, 0, 0], 64);
        assert_eq!(format!("{:3.1}", d[0]), "198.4");
        // tiny shares show as 0.1
        let d = depth_dist(&[10_000, 1, 0, 0, 0, 0, 0], 10_001);
        assert_eq!(d[1], 0.1);
        assert_eq!(d[2], 0.0);
        assert_eq!(depth_dist(&[5, 0, 0, 0, 0, 0, 0], 0), [0.0; 7]);
    }

    #[test]
    fn latency_percentages() {
        // 256 I/Os: 113 -> 44.14%, 1 -> 0.39%
        let d = lat_dist(&[113, 1, 0], 256);
        assert_eq!(format!("{:3.2}", d[0]), "44.14");
        assert_eq!(format!("{:3.2}", d[1]), "0.39");
        assert_eq!(d[2], 0.0);
        // one in a million still shows as 0.01
        let d = lat_dist(&[1], 1_000_000);
        assert_eq!(d[0], 0.01);
        assert_eq!(lat_dist(&[1, 2], 0), vec![0.0, 0.0]);
    }
}
