//! Per-priority latency statistics (fio's clat_prio): one histogram per I/O priority
//! a direction used, kept when per-command priorities (cmdprio) are in use, and
//! merged by priority value across threads (group_reporting) as fio's
//! sum_clat_prio_stats does.

use crate::LatencyHistogram;

/// The latencies of one I/O priority (`ioprio`: class << 13 | hint << 3 | level).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PrioLat {
    pub ioprio: u32,
    pub lat: LatencyHistogram,
}

impl PrioLat {
    /// The priority class (fio prints `ioprio >> 13`).
    pub fn class(&self) -> u32 {
        self.ioprio >> 13
    }
    /// The priority level (fio prints `ioprio & 7`).
    pub fn level(&self) -> u32 {
        self.ioprio & 7
    }
    /// The priority hint (fio 3.4x prints `(ioprio >> 3) & 1023`).
    pub fn hint(&self) -> u32 {
        (self.ioprio >> 3) & 1023
    }
}

/// Whether any priority carries a hint: the reports then print fio 3.4x's
/// class/level/hint form (fio 3.33, which has no hints, prints class/level).
pub fn any_hint(prios: &[PrioLat]) -> bool {
    prios.iter().any(|p| p.hint() != 0)
}

/// Add `lat` into the entry for `ioprio`, appending one when there is none; nothing
/// happens for an empty histogram (fio allocates no entry for it).
pub fn add_prio(into: &mut Vec<PrioLat>, ioprio: u32, lat: &LatencyHistogram) {
    if lat.count() == 0 {
        return;
    }
    match into.iter_mut().find(|p| p.ioprio == ioprio) {
        Some(p) => p.lat.merge(lat),
        None => into.push(PrioLat {
            ioprio,
            lat: lat.clone(),
        }),
    }
}

/// How many entries have samples (fio prints per-priority lines only from two).
pub fn with_samples(prios: &[PrioLat]) -> usize {
    prios.iter().filter(|p| p.lat.count() > 0).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &[u64]) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        for &x in v {
            h.record(x);
        }
        h
    }

    #[test]
    fn entries_merge_by_priority_in_first_seen_order() {
        let mut all = Vec::new();
        add_prio(&mut all, 8192, &h(&[100, 200]));
        add_prio(&mut all, 0, &h(&[]));
        add_prio(&mut all, 0, &h(&[50]));
        add_prio(&mut all, 8192, &h(&[300]));
        assert_eq!(all.len(), 2);
        assert_eq!(
            (all[0].ioprio, all[0].lat.count(), all[0].lat.max()),
            (8192, 3, 300)
        );
        assert_eq!(
            (all[1].class(), all[1].level(), all[1].lat.count()),
            (0, 0, 1)
        );
        assert_eq!(with_samples(&all), 2);
        let p = PrioLat {
            ioprio: (3 << 13) | 7,
            lat: h(&[]),
        };
        assert_eq!((p.class(), p.level()), (3, 7));
        assert_eq!(with_samples(&[p]), 0);
    }
}
