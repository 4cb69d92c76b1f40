//! Per-command I/O priorities (cmdprio_percentage, cmdprio_bssplit): which reads
//! and writes carry the cmdprio priority, decided as fio 3.33 decides it
//! (engines/cmdprio.c), so the same seed picks the same I/Os.
//!
//! One draw from the job's prio stream (fio's FIO_RAND_PRIO_CMDS, the 32-bit
//! generator) per read or write handed to the engine, in `0..=99`, and only when the
//! direction (and, with bssplit, the block size) has a non-zero percentage; the I/O
//! gets the priority when the draw is below it. Trims and syncs never draw (fio's
//! engines return before the draw for them).
//!
//! Each direction's priorities are "slots" in fio's order: slot 0 is the job's own
//! priority (prio/prioclass, or 0), then each cmdprio value in the order the options
//! name it. Latencies are recorded per slot (recorder.rs) for the per-priority
//! statistics the report prints (`prios` in JSON).

use crate::random::{FioRand, SeedSet, Stream};
use crate::runner::recorder::ThreadStats;
use ferrio_config::JobSpec;

/// One priority a direction may give: percent, ioprio value, slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Choice {
    perc: u32,
    ioprio: u16,
    slot: u8,
}

/// The choices for one block size (cmdprio_bssplit), or for every size (percentage).
#[derive(Clone, Debug, PartialEq, Eq)]
struct BsChoices {
    /// None: every block size (cmdprio_percentage).
    bs: Option<u64>,
    total: u32,
    choices: Vec<Choice>,
}

/// A thread's cmdprio state.
#[derive(Clone, Debug)]
pub struct CmdPrio {
    rng: FioRand,
    /// Per direction (read, write): the percentages by block size; empty when the
    /// direction never draws.
    dirs: [Vec<BsChoices>; 2],
    /// Per direction: every slot's ioprio value, slot 0 the job's own.
    slots: [Vec<u32>; 2],
    /// The job's own priority (fio's td->ioprio).
    default: u16,
    /// Per unit: the slot of its current I/O.
    unit_slot: Vec<u8>,
    /// Record total latency (lat_percentiles=1) rather than completion latency.
    use_lat: bool,
    /// That latency is measured at all (disable_*lat, gtod_reduce).
    measured: bool,
}

impl CmdPrio {
    /// The thread's cmdprio state, or None when the job gives no I/O a cmdprio.
    pub fn new(spec: &JobSpec, seeds: &SeedSet, units: usize) -> Option<CmdPrio> {
        let p = &spec.prio;
        if !p.cmdprio_in_use() {
            return None;
        }
        let default = spec.lifecycle.ioprio_value().unwrap_or(0);
        let dirs_on = spec.rw.kind.directions();
        let mut dirs: [Vec<BsChoices>; 2] = Default::default();
        let mut slots: [Vec<u32>; 2] = [vec![default], vec![default]];
        for d in 0..2 {
            if !dirs_on[d] {
                continue;
            }
            let mut slot_of = |v: u32| -> u8 {
                let s = &mut slots[d];
                match s.iter().position(|&x| x == v) {
                    Some(i) => i as u8,
                    None => {
                        s.push(v);
                        (s.len() - 1) as u8
                    }
                }
            };
            let implicit = p.cmdprio_value(d);
            match &p.bssplit {
                None if p.percentage[d] > 0 => dirs[d].push(BsChoices {
                    bs: None,
                    total: p.percentage[d],
                    choices: vec![Choice {
                        perc: p.percentage[d],
                        ioprio: implicit as u16,
                        slot: slot_of(implicit),
                    }],
                }),
                None => {}
                Some(split) => {
                    // Sorted by size: entries of one size form one group, as fio's.
                    for e in &split[d] {
                        let v = e.prio.unwrap_or(implicit);
                        let c = Choice {
                            perc: e.perc,
                            ioprio: v as u16,
                            slot: slot_of(v),
                        };
                        match dirs[d].last_mut() {
                            Some(g) if g.bs == Some(e.bs) => {
                                g.total += e.perc;
                                g.choices.push(c);
                            }
                            _ => dirs[d].push(BsChoices {
                                bs: Some(e.bs),
                                total: e.perc,
                                choices: vec![c],
                            }),
                        }
                    }
                }
            }
            if dirs[d].is_empty() {
                slots[d].truncate(1);
            }
        }
        let reduce = spec.gtod_reduce;
        let use_lat = spec.lat_percentiles;
        Some(CmdPrio {
            rng: FioRand::new(seeds.get(Stream::Prio), false),
            dirs,
            slots,
            default: default as u16,
            unit_slot: vec![0; units],
            use_lat,
            measured: if use_lat {
                !(spec.disable_lat || reduce)
            } else {
                !(spec.disable_clat || reduce)
            },
        })
    }

    /// Whether direction `d` keeps per-priority statistics (fio allocates its
    /// clat_prio array only then).
    pub fn has_slots(&self, d: usize) -> bool {
        d < 2 && !self.dirs[d].is_empty()
    }

    /// fio_cmdprio_set_ioprio for a read (d=0) or write (d=1) of `len` bytes on unit
    /// `unit`: the ioprio value it carries and whether cmdprio chose it.
    pub fn choose(&mut self, unit: usize, d: usize, len: u64) -> (u16, bool) {
        let mut out = (self.default, false);
        let mut slot = 0;
        if let Some(g) = self.dirs.get(d).and_then(|g| {
            g.iter()
                .find(|g| g.bs.is_none_or(|bs| bs == len))
                .filter(|g| g.total > 0)
        }) {
            let r = self.rng.between(0, 99) as u32;
            if r < g.total {
                let mut acc = 0;
                for c in &g.choices {
                    acc += c.perc;
                    if r < acc {
                        out = (c.ioprio, true);
                        slot = c.slot;
                        break;
                    }
                }
            }
        }
        if let Some(s) = self.unit_slot.get_mut(unit) {
            *s = slot;
        }
        out
    }

    /// The job's own priority (fio's td->ioprio).
    pub fn default_ioprio(&self) -> u32 {
        self.default as u32
    }

    /// The priority unit `unit`'s current I/O (of direction `d`) carries.
    pub fn ioprio_of(&self, unit: usize, d: usize) -> u32 {
        let slot = self.unit_slot.get(unit).copied().unwrap_or(0) as usize;
        self.slots[d].get(slot).copied().unwrap_or(0)
    }

    /// Record a completed read or write of unit `unit` in its priority's statistics
    /// (`clat_ns`, `lat_ns`: its latencies; the one fio keeps per priority is used).
    pub fn record(
        &self,
        stats: &mut ThreadStats,
        unit: usize,
        d: usize,
        clat_ns: u64,
        lat_ns: u64,
    ) {
        if !self.measured || !self.has_slots(d) {
            return;
        }
        let slot = self.unit_slot.get(unit).copied().unwrap_or(0) as usize;
        let ns = if self.use_lat { lat_ns } else { clat_ns };
        stats.dir[d].record_prio(&self.slots[d], slot, ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_config::ext::prio::PrioSplit;
    use ferrio_config::RwKind;

    fn spec(rw: &str) -> JobSpec {
        let mut j = JobSpec::with_defaults("t", "");
        j.rw.kind = if rw == "randrw" {
            RwKind::ReadWrite
        } else {
            RwKind::Read
        };
        j
    }

    #[test]
    fn nothing_without_a_percentage() {
        let s = spec("randread");
        assert!(CmdPrio::new(&s, &SeedSet::from_seed(1, 1), 4).is_none());
    }

    #[test]
    fn a_direction_the_job_does_not_do_never_draws() {
        let mut s = spec("randread");
        s.prio.percentage = [0, 50];
        let mut c = CmdPrio::new(&s, &SeedSet::from_seed(1, 1), 1).unwrap();
        assert!(!c.has_slots(0) && !c.has_slots(1));
        let before = c.rng;
        assert_eq!(c.choose(0, 0, 4096), (0, false));
        assert_eq!(c.rng, before, "no draw");
    }

    #[test]
    fn the_share_follows_the_percentage_and_the_seed() {
        let mut s = spec("randrw");
        s.prio.percentage = [30, 0];
        s.prio.level = [4, 0];
        let seeds = SeedSet::from_seed(42, 1);
        let mut c = CmdPrio::new(&s, &seeds, 1).unwrap();
        let mut rng = FioRand::new(seeds.get(Stream::Prio), false);
        let mut high = 0;
        for _ in 0..1000 {
            let (prio, chosen) = c.choose(0, 0, 4096);
            // The same draws as fio's: one per read, below 30 is high.
            assert_eq!(chosen, rng.between(0, 99) < 30);
            if chosen {
                assert_eq!(prio, (1 << 13) | 4);
                high += 1;
            }
            // Writes have no percentage: no draw.
            assert_eq!(c.choose(0, 1, 4096), (0, false));
        }
        assert!((250..350).contains(&high), "{high}");
        assert_eq!(c.slots[0], vec![0, (1 << 13) | 4]);
    }

    #[test]
    fn bssplit_splits_one_draw_among_a_sizes_entries() {
        let mut s = spec("randread");
        s.lifecycle.prio = Some(5); // the job's own: best effort 5
        let e = |bs, perc, prio| PrioSplit { bs, perc, prio };
        s.prio.bssplit = Some([
            vec![
                e(4096, 20, None),
                e(4096, 30, Some(3 << 13)),
                e(8192, 100, None),
            ],
            vec![],
        ]);
        let seeds = SeedSet::from_seed(9, 1);
        let mut c = CmdPrio::new(&s, &seeds, 1).unwrap();
        assert_eq!(c.slots[0], vec![(2 << 13) | 5, 1 << 13, 3 << 13]);
        let mut rng = FioRand::new(seeds.get(Stream::Prio), false);
        for _ in 0..500 {
            let r = rng.between(0, 99);
            let want = match r {
                0..20 => (1 << 13, true),
                20..50 => (3 << 13, true),
                _ => ((2 << 13) | 5, false),
            };
            assert_eq!(c.choose(0, 0, 4096), want);
            assert_eq!(
                c.unit_slot[0],
                [0, 1, 2][(want.0 == 1 << 13) as usize + 2 * (want.0 == 3 << 13) as usize]
            );
            // 8k: always the implicit cmdprio (one draw); 16k: none listed, no draw.
            assert!(rng.between(0, 99) < 100);
            assert_eq!(c.choose(0, 0, 8192), (1 << 13, true));
            assert_eq!(c.choose(0, 0, 16384), ((2 << 13) | 5, false));
        }
    }
}
