//! `ioengine=sim`: a modelled device instead of a real one (docs/sim.md).
//!
//! Every command gets its completion time when it is queued: it crosses the host link
//! (bandwidth ceiling, [`queue::Link`]), waits for one of the device's channels
//! ([`queue::Channels`]) and holds it for a service time drawn from its direction's
//! distribution ([`dist::ServiceTime`]), plus, for writes on a modelled SSD, the time
//! garbage collection spends copying data on its behalf ([`ftl::Ftl`]). With
//! `sim_buffers` a command first waits for a data buffer of the target's pool
//! ([`buffers::Pool`]) and holds it to its completion; with `sim_delay` a delay
//! device on top adds a fixed time after the service (holding the buffer, not the
//! channel). The engine
//! keeps the commands in flight in a discrete-event list ordered by completion time;
//! `reap` hands them back in that order and makes time pass: with
//! `clocksource=virtual` it moves the thread's virtual clock to the next completion
//! (so a 10-minute job takes as long as its arithmetic), otherwise it sleeps and spins
//! until the completion time is real.
//!
//! Each job thread (each numjobs clone) has its own device and, in virtual time, its
//! own clock. The engine is diskless: offsets and sizes come from the job as usual, no
//! file is touched. The zoned mode's zones are the exception: a file name is one
//! zoned device, shared by every job and clone of the run that names it (its
//! write pointers, open zones and limits are one device's), so `filename=zdev` with
//! numjobs=4 is four jobs on one zoned drive; without filename= each clone's default
//! file name is a device of its own.

pub mod buffers;
pub mod dist;
pub mod ftl;
pub mod queue;
pub mod time;
pub mod zoned;

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use crate::random::Rng;
use ferrio_config::ext::SimSpec;
use ferrio_report::extra::{ExtraMerge, ExtraStat};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::sync::{Arc, Mutex};

pub struct SimEngine {
    time: time::TimeBase,
    lat: [dist::ServiceTime; 3],
    rng: [Rng; 3],
    link: Option<queue::Link>,
    channels: queue::Channels,
    ftl: Option<ftl::Ftl>,
    /// The zoned mode's devices (sim_zonesize=), one per file, shared by file name.
    zones: Vec<Arc<Mutex<zoned::Zones>>>,
    gc_bw: u64,
    /// sim_buffers: the data buffer pool, and the channel cache the next command uses.
    pool: Option<buffers::Pool>,
    next_group: usize,
    /// sim_delay: (ns added, commands below this offset are delayed).
    delay: Option<(u64, u64)>,
    /// The pool's size (the job's extra statistics).
    buffers: u32,
    /// Commands in flight: (completion ns, submission order, unit index).
    events: BinaryHeap<Reverse<(u64, u64, usize)>>,
    seq: u64,
    /// The latest completion time handed out (a flush completes after it).
    horizon: u64,
    /// Queued since the last commit.
    submitted: Vec<Pending>,
}

/// A command queued but not yet committed.
struct Pending {
    index: usize,
    op: IoOp,
    offset: u64,
    len: u64,
}

/// The device capacity the wear model uses: sim_capacity, else the end of the region
/// the thread addresses (as the runner planned it).
fn capacity_of(opts: &EngineOptions, what: &str) -> Result<u64, String> {
    if opts.sim.capacity > 0 {
        return Ok(opts.sim.capacity);
    }
    let end = opts.regions.iter().map(|r| r.end).max().unwrap_or(0);
    if opts.sized && end > 0 {
        Ok(end)
    } else {
        Err(format!(
            "job '{}': {what} needs the device's size: set sim_capacity= or size=",
            opts.job
        ))
    }
}

/// The zoned devices of the thread's files: each file name's device, made by the
/// first thread that names it (sized by its region, or sim_capacity=); a later
/// thread must agree on the geometry and fit in the device.
fn zoned_devices(opts: &EngineOptions) -> Result<Vec<Arc<Mutex<zoned::Zones>>>, String> {
    let sim = &opts.sim;
    let mut cap = capacity_of(opts, "sim_zonesize")?;
    if sim.capacity == 0 && sim.zoned.size > 0 {
        // The job's region need not end on a zone: the device ends on the next one.
        cap = cap.div_ceil(sim.zoned.size) * sim.zoned.size;
    }
    let at = |e: String| format!("job '{}': {e}", opts.job);
    let names = if opts.paths.is_empty() {
        vec![std::path::PathBuf::new()]
    } else {
        opts.paths.clone()
    };
    let mut out = Vec::new();
    for (i, path) in names.iter().enumerate() {
        let key = format!("sim-zoned:{}", path.display());
        let dev = opts
            .targets
            .get_or_make(&key, || zoned::Zones::new(&sim.zoned, cap).map(Mutex::new));
        let dev = dev.map_err(at)?;
        {
            let d = dev.lock().unwrap_or_else(|e| e.into_inner());
            if !d.is(&sim.zoned) {
                return Err(at(format!(
                    "the zoned sim device {} is shared with a job of another sim_zonesize/sim_zonecap/sim_max_open_zones/sim_max_active_zones/sim_conv_zones",
                    path.display()
                )));
            }
            let end = opts.regions.get(i).map_or(0, |r| r.end);
            if end > d.capacity() {
                return Err(at(format!(
                    "the job addresses {} up to {end}, past the end of its shared zoned sim device ({} bytes; set sim_capacity=)",
                    path.display(),
                    d.capacity()
                )));
            }
        }
        out.push(dev);
    }
    Ok(out)
}

impl SimEngine {
    pub fn new(opts: &EngineOptions) -> Result<SimEngine, String> {
        let sim: &SimSpec = &opts.sim;
        if opts.virtual_clock.is_some() {
            // Commands that take no time would never let virtual time pass.
            for d in (0..3).filter(|&d| opts.directions[d]) {
                if sim.lat[d].mean() <= 0.0 && (d == 2 || sim.bw == 0) {
                    return Err(format!(
                        "job '{}': sim_lat gives {} a service time of 0 and nothing else takes time, so virtual time could not pass",
                        opts.job,
                        ["reads", "writes", "trims"][d]
                    ));
                }
            }
        }
        let clone = opts.clone as u64;
        let seed = sim.seed ^ clone.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let ftl = if sim.ssd {
            let cap = capacity_of(opts, "sim_ssd=1")?;
            Some(ftl::Ftl::new(cap, sim.spare_pct, sim.prefill_pct))
        } else {
            None
        };
        let zones = if sim.zoned.zoned() {
            zoned_devices(opts)?
        } else {
            Vec::new()
        };
        let delay = match sim.delay {
            Some((ns, pct)) if pct < 100.0 => {
                let cap = capacity_of(opts, "sim_delay=TIME:PCT")?;
                Some((ns, (cap as f64 * pct / 100.0) as u64))
            }
            Some((ns, _)) => Some((ns, u64::MAX)),
            None => None,
        };
        Ok(SimEngine {
            pool: (sim.buffers > 0)
                .then(|| buffers::Pool::new(sim.buffers, sim.channels, sim.buf_cache)),
            next_group: 0,
            delay,
            buffers: sim.buffers,
            time: time::TimeBase::new(opts.virtual_clock.clone()),
            lat: std::array::from_fn(|d| dist::ServiceTime::new(&sim.lat[d])),
            rng: std::array::from_fn(|d| Rng::new(seed ^ ((d as u64 + 1) << 56))),
            link: (sim.bw > 0).then(|| queue::Link::new(sim.bw)),
            channels: match sim.stall {
                Some((at, dur)) => queue::Channels::new(sim.channels).stalled(at, at + dur),
                None => queue::Channels::new(sim.channels),
            },
            ftl,
            zones,
            gc_bw: sim.gc_bw.max(1),
            events: BinaryHeap::with_capacity(opts.iodepth.max(1) as usize),
            seq: 0,
            horizon: 0,
            submitted: Vec::with_capacity(opts.iodepth.max(1) as usize),
        })
    }

    /// When a command submitted at `now` completes.
    fn completion(&mut self, now: u64, unit: &Pending) -> u64 {
        let len = unit.len;
        let d = match unit.op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            IoOp::Trim => 2,
            IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => {
                return now.max(self.horizon)
            }
        };
        let mut service = self.lat[d].draw(&mut self.rng[d]);
        // A data command waits for a buffer of its channel's cache or the pool.
        let buffer = match (&mut self.pool, unit.op) {
            (Some(pool), IoOp::Read | IoOp::Write) => {
                let g = self.next_group;
                self.next_group = (g + 1) % self.channels.count();
                let (at, from) = pool.take(g, now);
                Some((g, from, at))
            }
            _ => None,
        };
        let ready = buffer.map_or(now, |b| b.2);
        let arrive = match (&mut self.link, unit.op) {
            (Some(link), IoOp::Read | IoOp::Write) => link.transfer(ready, len),
            _ => ready,
        };
        if let Some(ftl) = &mut self.ftl {
            match unit.op {
                IoOp::Write => {
                    let copied = ftl.write(unit.offset, len);
                    service += (copied * 1e9 / self.gc_bw as f64).round() as u64;
                }
                IoOp::Trim => ftl.trim(unit.offset, len),
                _ => {}
            }
        }
        let mut done = self.channels.serve(arrive, service);
        if let Some((ns, below)) = self.delay {
            if unit.offset < below {
                done += ns;
            }
        }
        if let (Some(pool), Some((g, from, at))) = (&mut self.pool, buffer) {
            pool.give(g, from, at, done);
        }
        done
    }
}

impl IoEngine for SimEngine {
    fn queue(&mut self, index: usize, unit: &mut IoUnit) -> Queued {
        unit.result = match unit.op {
            IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => 0,
            _ => unit.len as i64,
        };
        // A zoned device checks each command in submission order.
        let dev = self.zones.get(unit.file).or(self.zones.first());
        if let Some(z) = dev {
            let mut z = z.lock().unwrap_or_else(|e| e.into_inner());
            let (off, len) = (unit.offset, unit.len as u64);
            let r = match unit.op {
                IoOp::Write => z.write(off, len),
                IoOp::Read => z.read(off, len),
                IoOp::Trim => z.trim(off, len),
                _ => Ok(()),
            };
            if let Err(e) = r {
                unit.result = -(e.raw_os_error().unwrap_or(libc::EIO) as i64);
            }
        }
        self.submitted.push(Pending {
            index,
            op: unit.op,
            offset: unit.offset,
            len: unit.len as u64,
        });
        Queued::Queued
    }

    /// The device sees the batch now: each command gets its completion time.
    fn commit(&mut self) -> io::Result<()> {
        let now = self.time.now();
        let batch = std::mem::take(&mut self.submitted);
        for p in &batch {
            let done = self.completion(now, p);
            self.horizon = self.horizon.max(done);
            self.events.push(Reverse((done, self.seq, p.index)));
            self.seq += 1;
        }
        self.submitted = batch;
        self.submitted.clear();
        Ok(())
    }

    /// With sim_buffers: the pool's size and how many of its buffers this job's
    /// commands held on average over the device's life (the study's "Bufs
    /// in-flight"; the jobs of a group add up).
    /// A zoned device's counters (the whole shared device's, so jobs combine by max:
    /// the most zones open and active at once, the writes it refused).
    fn extra_stats(&self) -> Vec<ExtraStat> {
        let mut out = Vec::new();
        if let Some(z) = self.zones.first() {
            use super::zone::ZonedDevice;
            let c = z.lock().unwrap_or_else(|e| e.into_inner()).counters();
            for (key, name, v) in [
                ("sim_zones_open_max", "zones_open_max", c.max_open as f64),
                (
                    "sim_zones_active_max",
                    "zones_active_max",
                    c.max_active as f64,
                ),
                (
                    "sim_zone_writes_refused",
                    "zone_writes_refused",
                    c.refused as f64,
                ),
            ] {
                out.push(ExtraStat::new(key, "sim", name, v).merged_by(ExtraMerge::Max));
            }
        }
        let Some(pool) = &self.pool else {
            return out;
        };
        let span = self.time.now().max(self.horizon).max(1);
        out.extend([
            ExtraStat::new("sim_buffers", "sim", "buffers", self.buffers as f64)
                .merged_by(ExtraMerge::Max),
            ExtraStat::new(
                "sim_buffers_in_flight_mean",
                "sim",
                "in_flight_mean",
                pool.held_ns() as f64 / span as f64,
            ),
        ]);
        out
    }

    fn zoned(&mut self, file: usize) -> Option<super::zone::SharedZoned> {
        let z = self.zones.get(file)?.clone();
        Some(z)
    }

    fn reap(
        &mut self,
        units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        let mut now = self.time.now();
        let mut got = 0;
        while got < max {
            let Some(&Reverse((t, _, idx))) = self.events.peek() else {
                break;
            };
            if t > now {
                if got >= min {
                    break;
                }
                now = self.time.wait_until(t);
            }
            self.events.pop();
            // In virtual time the device's clock is the thread's: each command is
            // stamped with its own completion, not the last one of the reap.
            if self.time.is_virtual() {
                units[idx].done_ns = Some(t);
            }
            done.push(idx);
            got += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_clock::Clock;

    fn unit(op: IoOp, offset: u64, len: usize) -> IoUnit {
        IoUnit::for_test(op, -1, offset, len)
    }

    fn engine(sim: SimSpec) -> (SimEngine, Clock) {
        let (clock, h) = Clock::virtual_clock();
        let e = SimEngine::new(&EngineOptions {
            iodepth: 8,
            directions: [true, true, false],
            sim,
            virtual_clock: Some(h),
            ..Default::default()
        })
        .unwrap();
        (e, clock)
    }

    #[test]
    fn virtual_reap_advances_the_clock_to_each_completion() {
        let mut sim = SimSpec::default();
        sim.lat = ferrio_config::ext::sim::parse_lat("fixed:100us").unwrap();
        sim.channels = 2;
        sim.bw = 0;
        let (mut e, clock) = engine(sim);
        let mut units: Vec<IoUnit> = (0..3).map(|_| unit(IoOp::Read, 0, 4096)).collect();
        for (i, u) in units.iter_mut().enumerate() {
            assert_eq!(e.queue(i, u), Queued::Queued);
        }
        e.commit().unwrap();
        let mut done = Vec::new();
        e.reap(&mut units, 0, 8, &mut done).unwrap();
        assert!(done.is_empty() && clock.now_ns() == 0);
        e.reap(&mut units, 1, 8, &mut done).unwrap();
        assert_eq!(done, vec![0, 1]);
        assert_eq!(clock.now_ns(), 100_000);
        done.clear();
        e.reap(&mut units, 1, 8, &mut done).unwrap();
        assert_eq!(done, vec![2]);
        assert_eq!(clock.now_ns(), 200_000);
        assert_eq!(units[2].result, 4096);
    }

    #[test]
    fn flush_waits_for_earlier_commands_and_bandwidth_adds_transfer_time() {
        let mut sim = SimSpec::default();
        sim.lat = ferrio_config::ext::sim::parse_lat("fixed:10us").unwrap();
        sim.bw = 1 << 30;
        let (mut e, clock) = engine(sim);
        let mut units = vec![unit(IoOp::Write, 0, 1 << 20), unit(IoOp::Fsync, 0, 0)];
        e.queue(0, &mut units[0]);
        e.queue(1, &mut units[1]);
        e.commit().unwrap();
        let mut done = Vec::new();
        e.reap(&mut units, 2, 8, &mut done).unwrap();
        assert_eq!(done, vec![0, 1]);
        // 1 MiB at 1 GiB/s = 976,562.5 ns (rounded up), then 10 us of service.
        assert_eq!(clock.now_ns(), 976_563 + 10_000);
    }

    #[test]
    fn zero_service_time_in_virtual_time_is_refused() {
        let mut sim = SimSpec::default();
        sim.lat = ferrio_config::ext::sim::parse_lat("0").unwrap();
        sim.bw = 0;
        let (_, h) = Clock::virtual_clock();
        let r = SimEngine::new(&EngineOptions {
            directions: [true, false, false],
            sim,
            virtual_clock: Some(h),
            ..Default::default()
        });
        assert!(r.err().unwrap().contains("virtual time could not pass"));
    }

    #[test]
    fn the_wear_model_needs_a_size() {
        let sim = SimSpec {
            ssd: true,
            ..Default::default()
        };
        let r = SimEngine::new(&EngineOptions {
            job: "t".into(),
            sim: sim.clone(),
            // An open-ended region (no size=) is not a device size.
            regions: std::iter::once(0..u64::MAX / 4).collect(),
            ..Default::default()
        });
        assert!(r.err().unwrap().contains("job 't': sim_ssd=1 needs"));
    }

    #[test]
    fn the_wear_model_covers_the_planned_region_or_sim_capacity() {
        let sim = SimSpec {
            ssd: true,
            ..Default::default()
        };
        let mut opts = EngineOptions {
            sim,
            regions: std::iter::once((1 << 20)..(3 << 20)).collect(),
            sized: true,
            ..Default::default()
        };
        assert_eq!(capacity_of(&opts, "").unwrap(), 3 << 20);
        opts.sim.capacity = 1 << 30;
        assert_eq!(capacity_of(&opts, "").unwrap(), 1 << 30);
        assert!(SimEngine::new(&opts).is_ok());
    }
}
