//! Interval statistics: what a thread did between two snapshots of its cumulative
//! [`ThreadStats`].

use crate::runner::recorder::{DirStats, ThreadStats};
use ferrio_stats::{DepthHistogram, LatencyBuckets};

fn sub<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i].saturating_sub(b[i]))
}

/// `now - then` for two snapshots of one thread (`then` taken first). Counters,
/// histograms, buckets, depths, CPU usage and runtime are differences; the periodic
/// bw/IOPS sample statistics cannot be split and are left empty. If the thread's
/// statistics were reset in between (end of ramp), `now` is returned whole.
pub fn stats_delta(now: &ThreadStats, then: &ThreadStats) -> ThreadStats {
    let reset = (0..3).any(|d| now.dir[d].total_ios < then.dir[d].total_ios)
        || now.runtime_us < then.runtime_us;
    if reset {
        let mut s = now.clone();
        for d in &mut s.dir {
            d.bw_samples = Default::default();
            d.iops_samples = Default::default();
        }
        return s;
    }
    let dir: [DirStats; 3] = std::array::from_fn(|d| {
        let (a, b) = (&now.dir[d], &then.dir[d]);
        DirStats {
            io_bytes: a.io_bytes - b.io_bytes,
            total_ios: a.total_ios - b.total_ios,
            short_ios: a.short_ios.saturating_sub(b.short_ios),
            drop_ios: a.drop_ios.saturating_sub(b.drop_ios),
            failed_ios: a.failed_ios.saturating_sub(b.failed_ios),
            slat: a.slat.delta(&b.slat),
            clat: a.clat.delta(&b.clat),
            lat: a.lat.delta(&b.lat),
            due_lat: a.due_lat.delta(&b.due_lat),
            bw_samples: Default::default(),
            iops_samples: Default::default(),
            // cmdprio: each priority's slot minus the same slot then.
            prios: a
                .prios
                .iter()
                .enumerate()
                .map(|(i, p)| ferrio_stats::PrioLat {
                    ioprio: p.ioprio,
                    lat: match b.prios.get(i) {
                        Some(q) if q.ioprio == p.ioprio => p.lat.delta(&q.lat),
                        _ => p.lat.clone(),
                    },
                })
                .collect(),
        }
    });
    let (da, db) = (&now.depth, &then.depth);
    ThreadStats {
        dir,
        sync_ios: now.sync_ios.saturating_sub(then.sync_ios),
        // The running error count, not a difference.
        errors: now.errors,
        latency_depth: now.latency_depth,
        act: None,
        sync_lat: now.sync_lat.delta(&then.sync_lat),
        lat_buckets: LatencyBuckets {
            ns: sub(&now.lat_buckets.ns, &then.lat_buckets.ns),
            us: sub(&now.lat_buckets.us, &then.lat_buckets.us),
            ms: sub(&now.lat_buckets.ms, &then.lat_buckets.ms),
        },
        depth: DepthHistogram {
            level: sub(&da.level, &db.level),
            submit: sub(&da.submit, &db.submit),
            complete: sub(&da.complete, &db.complete),
            total_submit: da.total_submit.saturating_sub(db.total_submit),
            total_complete: da.total_complete.saturating_sub(db.total_complete),
        },
        usage: now.usage.since(&then.usage),
        runtime_us: now.runtime_us - then.runtime_us,
        dir_runtime_us: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::recorder::Recording;

    const REC: Recording = Recording {
        slat: true,
        clat: true,
        lat: true,
    };

    #[test]
    fn deltas_add_up() {
        let mut s = ThreadStats::default();
        for i in 0..10u64 {
            s.complete(REC, 0, 4096, false, 1000 + i, 1100 + i);
        }
        s.runtime_us = 100;
        let first = s.clone();
        for i in 0..5u64 {
            s.complete(REC, 1, 8192, false, 5000 + i, 6000 + i);
        }
        s.synced(700);
        s.runtime_us = 250;
        let d = stats_delta(&s, &first);
        assert_eq!(d.dir[0].total_ios, 0);
        assert_eq!(d.dir[1].total_ios, 5);
        assert_eq!(d.dir[1].io_bytes, 5 * 8192);
        assert_eq!(d.dir[1].clat.count(), 5);
        assert_eq!(d.dir[1].clat.max(), 5004);
        assert_eq!(d.sync_ios, 1);
        assert_eq!(d.runtime_us, 150);
        assert_eq!(d.lat_buckets.total(), 5);
        // The first interval is the snapshot itself.
        let d0 = stats_delta(&first, &ThreadStats::default());
        assert_eq!(d0.dir[0].total_ios, 10);
        assert_eq!(d0.dir[0].lat.count(), 10);
    }
}
