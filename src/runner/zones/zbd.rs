//! `zonemode=zbd`: one thread's view of the zones of its files (fio's zbd.c): for
//! each file, the shared zone table of its target ([`ZoneTable`]: one per file name,
//! whichever jobs and clones name it) and the thread's range of zones in it. The
//! zones are read from the zoned device when the engine has one (the sim's zoned
//! mode) or emulated over a file or device without zones (`zonesize=`,
//! `zonecapacity=`, every zone empty at the start, as fio's ZBD_NONE model).
//! [`Zbd::setup`] checks the job against the zones and limits; [`Zbd::adjust`]
//! (adjust.rs) moves each generated I/O where the zone rules allow it.

use super::table::{Zone, ZoneTable};
use crate::engine::zone::{SharedZoned, ZoneCond, ZoneType};
use crate::engine::IoOp;
use crate::runner::plan::ThreadPlan;
use crate::runner::region::{NextIo, Region};
use ferrio_config::{DebugCategory, RwKind};
use ferrio_report::extra::{ExtraMerge, ExtraStat};
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

/// One of the thread's files: its table and the thread's zones in it.
pub(super) struct FileZbd {
    pub table: Arc<ZoneTable>,
    /// The zoned device behind the file, when the engine has one (resets go to it).
    pub device: Option<SharedZoned>,
    /// The region's zones: [min, max).
    pub min: usize,
    pub max: usize,
    pub region: Region,
    /// This thread's writes queued to the file and not yet seen complete.
    pub inflight: u64,
    /// --debug=zbd.
    pub trace: super::trace::ZbdTrace,
}

/// The job's settings the zone logic uses, the same for every file.
pub(super) struct JobCfg {
    /// Bytes of a pass (io_size).
    pub pass_bytes: u64,
    pub job_max_open: u32,
    /// Smallest block size per direction (fio's min_bs).
    pub min_bs: [u64; 3],
    pub random: bool,
    /// A mixed job (fio's td_rw): a first read of empty zones becomes a write.
    pub mixed: bool,
    pub read_beyond_wp: bool,
    pub reset_threshold: f64,
    pub reset_frequency: f64,
}

/// What the thread keeps of its own across files.
pub(super) struct JobState {
    /// The thread (job index and clone), as zones record who holds them.
    pub id: u64,
    /// Zones this job has open (job_max_open_zones), given back by whoever closes one.
    pub open: Arc<AtomicU32>,
    pub open_max: u32,
    /// The zone picked for the write or trim not yet queued: (file, zone, its write
    /// pointer before), held.
    pub held: Option<(usize, usize, u64)>,
    /// Completed writes of another table than the one being adjusted, seen later.
    pub stash: Vec<(usize, u64, u64)>,
    /// Zone resets issued (fio's nr_zone_resets).
    pub resets: u64,
}

/// The zbd state of one thread on its files.
pub struct Zbd {
    pub(super) files: Vec<FileZbd>,
    pub(super) cfg: JobCfg,
    pub(super) job: JobState,
}

impl Zbd {
    /// The zbd state for `plan`'s thread; `device(i)` is the engine's zoned device
    /// behind file i, if it has one. None when the job is not zonemode=zbd; a message
    /// when the job cannot run against these zones.
    pub fn setup(
        plan: &ThreadPlan,
        device: &mut dyn FnMut(usize) -> Option<SharedZoned>,
    ) -> Result<Option<Zbd>, String> {
        let spec = &plan.spec;
        let z = &spec.zones;
        if z.mode != ferrio_config::ext::zones::ZoneMode::Zbd {
            return Ok(None);
        }
        let trims = spec.rw.kind == RwKind::Trim || spec.rw.kind == RwKind::TrimWrite;
        let tbs = &spec.bs[2];
        if trims && (tbs.min != tbs.max || !tbs.split.is_empty()) {
            return Err("bsrange and bssplit are not allowed for trim with zonemode=zbd".into());
        }
        let job = JobState {
            id: (plan.job_index as u64) << 32 | plan.clone as u64,
            open: Arc::new(AtomicU32::new(0)),
            open_max: 0,
            held: None,
            stash: Vec::new(),
            resets: 0,
        };
        let mut files = Vec::new();
        for (i, file) in plan.files.iter().enumerate() {
            let dev = device(i);
            let f = setup_file(plan, file, dev).map_err(|e| {
                if plan.files.len() > 1 {
                    format!("{}: {e}", file.path.display())
                } else {
                    e
                }
            })?;
            files.push(f);
        }
        let mut zbd = Zbd {
            files,
            cfg: JobCfg {
                pass_bytes: plan.pass_bytes,
                job_max_open: z.job_max_open,
                min_bs: std::array::from_fn(|d| spec.bs[d].min.max(1)),
                random: spec.rw.random,
                mixed: spec.rw.kind == RwKind::ReadWrite,
                read_beyond_wp: z.read_beyond_wp,
                reset_threshold: z.reset_threshold,
                reset_frequency: z.reset_frequency,
            },
            job,
        };
        zbd.file_reset();
        for f in &zbd.files {
            let st = f.table.lock();
            f.trace.setup(st.max_open, st.wp_data);
        }
        Ok(Some(zbd))
    }

    /// Zone resets this thread issued.
    pub fn resets(&self) -> u64 {
        self.job.resets
    }

    /// The adjusted I/O was logged: a write moves its zone's write pointer now (fio's
    /// zbd_queue_io), so the next one goes after it; the zone stays held until
    /// [`Zbd::issued`].
    pub fn queued(&mut self, io: &NextIo) {
        let Some(f) = self.files.get_mut(io.file) else {
            return;
        };
        let mut st = f.table.lock();
        let zb = ((io.offset / st.zone_size) as usize).min(st.zones.len() - 1);
        if io.op != IoOp::Write || !st.zones[zb].has_wp {
            return;
        }
        let cap_end = st.zones[zb].start + st.zones[zb].capacity;
        let end = (io.offset + io.len).min(cap_end);
        f.trace.queued(io.offset, io.len, zb);
        let moved = end.saturating_sub(st.zones[zb].wp);
        st.data += moved;
        st.wp_data += moved;
        st.zones[zb].wp = end;
        st.inflight += 1;
        f.inflight += 1;
    }

    /// The I/O moved last reached the engine: its zone is free for other threads.
    pub fn issued(&mut self) {
        if let Some((f, z, _)) = self.job.held.take() {
            self.files[f].table.release(z, self.job.id);
        }
    }

    /// The most zones open at once: on the thread's devices (the first file's), and
    /// by this job; both against max_open_zones / job_max_open_zones.
    /// Nothing when open zones are not tracked (no limit).
    pub fn extra_stats(&self) -> Vec<ExtraStat> {
        let Some((limit, dev)) = self.files.first().map(|f| {
            let st = f.table.lock();
            (st.max_open, st.open_max)
        }) else {
            return Vec::new();
        };
        if limit == 0 {
            return Vec::new();
        }
        vec![
            ExtraStat::new("zbd_open_zones_max", "zbd", "open_zones_max", dev as f64)
                .merged_by(ExtraMerge::Max),
            ExtraStat::new(
                "zbd_job_open_zones_max",
                "zbd",
                "job_open_zones_max",
                self.job.open_max as f64,
            )
            .merged_by(ExtraMerge::Max),
        ]
    }
}

impl Drop for Zbd {
    /// The thread is done: a zone it still holds is released, and its writes no
    /// longer count as in flight (other threads stop waiting for them).
    fn drop(&mut self) {
        // Its I/O never reached the engine (the job stopped): the write pointer goes
        // back, as the device never saw the write.
        if let Some((f, z, wp)) = self.job.held {
            let mut st = self.files[f].table.lock();
            let moved = st.zones[z].wp.saturating_sub(wp);
            st.data = st.data.saturating_sub(moved);
            st.wp_data = st.wp_data.saturating_sub(moved);
            st.zones[z].wp = wp;
        }
        self.issued();
        for f in &mut self.files {
            let mut st = f.table.lock();
            st.inflight = st.inflight.saturating_sub(f.inflight);
            f.inflight = 0;
            drop(st);
            f.table.notify();
        }
    }
}

/// The table of `file` (shared by name with every other thread on it) and the
/// thread's range in it.
fn setup_file(
    plan: &ThreadPlan,
    file: &crate::runner::region::PlannedFile,
    device: Option<SharedZoned>,
) -> Result<FileZbd, String> {
    let spec = &plan.spec;
    let z = &spec.zones;
    if file.block_device && device.is_none() && host_zoned(&file.path) {
        return Err(format!(
            "{} is a zoned block device: ferrio cannot use the kernel's zone ioctls yet (docs/zones.md)",
            file.path.display()
        ));
    }
    let region = file.region;
    let end = region.start + region.len;
    let key = format!("zbd:{}", file.path.display());
    let table = plan.targets.get_or_make(&key, || {
        let (zones, zone_size, device_limit) = match &device {
            Some(dev) => {
                let dev = dev.lock().unwrap_or_else(|e| e.into_inner());
                let report = dev.report();
                let zs = report.first().map_or(0, |r| r.len);
                let (open, active) = dev.limits();
                // ferrio honours the active limit as an open limit too: the zones it
                // keeps open are the device's active ones (fio 3.33 reads only the
                // open limit).
                let lim = [open, active].into_iter().filter(|&l| l > 0).min();
                let zones = report
                    .iter()
                    .map(|r| Zone {
                        start: r.start,
                        capacity: r.capacity,
                        wp: match r.cond {
                            ZoneCond::NotWp | ZoneCond::Full => r.start + r.capacity,
                            _ => r.wp,
                        },
                        has_wp: r.kind == ZoneType::SeqWriteRequired,
                        offline: r.cond == ZoneCond::Offline,
                        ..Default::default()
                    })
                    .collect::<Vec<_>>();
                (zones, zs, lim.unwrap_or(0))
            }
            None => {
                // Emulated zones cover the file as it is, or the region if larger.
                let size = std::fs::metadata(&file.path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map_or(0, |m| m.len());
                (emulated(z.size, z.capacity, end.max(size))?, z.size, 0)
            }
        };
        // fio's zbd_set_max_open_zones: the first job on the device sets the limit.
        let max_open = if device_limit == 0 || z.ignore_limits {
            z.max_open
        } else if z.max_open == 0 {
            device_limit
        } else if z.max_open <= device_limit {
            z.max_open
        } else {
            return Err(format!(
                "max_open_zones ({}) is larger than the device's limit ({device_limit})",
                z.max_open
            ));
        };
        Ok(ZoneTable::new(zone_size, zones, max_open, device.is_some()))
    })?;
    let st = table.lock();
    let zone_size = st.zone_size;
    if z.size > 0 && z.size != zone_size {
        return Err(format!(
            "zonesize {} does not match the device zone size {zone_size}",
            z.size
        ));
    }
    if !z.skip.is_multiple_of(zone_size) {
        return Err(format!(
            "zoneskip {} is not a multiple of the device zone size {zone_size}",
            z.skip
        ));
    }
    if z.max_open > 0 && z.max_open != st.max_open {
        return Err(format!(
            "max_open_zones={} differs from the {} another job on {} set (one limit per device, as fio's 'Different max_open_zones values')",
            z.max_open,
            st.max_open,
            file.path.display()
        ));
    }
    if z.job_max_open > 0 && st.max_open == 0 {
        return Err(
            "job_max_open_zones cannot be used without a global open zones limit (max_open_zones=)"
                .into(),
        );
    }
    let trims = spec.rw.kind == RwKind::Trim || spec.rw.kind == RwKind::TrimWrite;
    if trims && spec.bs[2].min != zone_size {
        return Err(format!(
            "trim block size {} is not the zone size {zone_size} (zonemode=zbd resets a zone per trim)",
            spec.bs[2].min
        ));
    }
    if spec.writes() && spec.bs[1].max > zone_size {
        return Err(format!(
            "write block size {} exceeds the zone size {zone_size}",
            spec.bs[1].max
        ));
    }
    let nr = (st.zones.len() - 1) as u64;
    if end > nr * zone_size {
        return Err(format!(
            "the job's region ends at {end}, past the last zone (at {})",
            nr * zone_size
        ));
    }
    if spec.writes() && (!region.start.is_multiple_of(zone_size) || !end.is_multiple_of(zone_size))
    {
        return Err(format!(
            "offset ({}) and offset + size ({end}) must be multiples of the zone size {zone_size} for writes with zonemode=zbd (e.g. size={}z)",
            region.start,
            (region.len / zone_size).max(1)
        ));
    }
    let idx = |off: u64| ((off / zone_size) as usize).min(nr as usize);
    let (min, max) = (idx(region.start), idx(end.saturating_sub(1)) + 1);
    drop(st);
    Ok(FileZbd {
        table,
        device,
        min,
        max,
        region,
        inflight: 0,
        trace: super::trace::ZbdTrace::new(
            plan.spec.compat.debug.has(DebugCategory::Zbd),
            &file.path,
        ),
    })
}

/// The planner's step, before any file is laid out: every thread of the run gets the
/// run's one registry of shared targets (zone tables, the sim's zoned devices); then,
/// for every zonemode=zbd thread, the region of each file of a job that writes is
/// rounded to whole zones as fio does (its offset up to the next zone, its end down
/// to a zone; said on stderr), and the job is checked against its zones (the engine
/// is created to ask for its zoned devices, and dropped).
pub fn prepare_plans(threads: &mut [ThreadPlan]) -> Result<(), String> {
    use ferrio_config::ext::zones::ZoneMode;
    let targets = Arc::new(crate::engine::zone::Targets::default());
    for t in threads.iter_mut() {
        t.targets = targets.clone();
    }
    for t in threads
        .iter_mut()
        .filter(|t| t.spec.zones.mode == ZoneMode::Zbd)
        // Unsized (only --parse-only leaves a zbd job so): no device to read zones from.
        .filter(|t| !t.sized_at_start)
    {
        let spec = t.spec.clone();
        let at = |e: String| format!("job '{}': {e} ({})", spec.name, spec.origin);
        let opts = crate::runner::engine_setup::engine_options(t, None, None);
        let mut engine = crate::engine::create(&t.spec.ioengine, opts).map_err(at)?;
        let before: Vec<Region> = t.files.iter().map(|f| f.region).collect();
        for i in 0..t.files.len() {
            let zs = match engine.zoned(i) {
                Some(dev) => dev
                    .lock()
                    .map_or(0, |d| d.report().first().map_or(0, |z| z.len)),
                None => t.spec.zones.size,
            };
            if zs > 0 && t.spec.writes() {
                round_region(t, i, zs).map_err(at)?;
            }
        }
        let rounded = t.files.iter().zip(&before).any(|(f, b)| f.region != *b);
        if rounded && spec.io_size.is_none() {
            t.pass_bytes = t.files.iter().map(|f| f.region.len).sum();
        }
        Zbd::setup(t, &mut |i| engine.zoned(i)).map_err(at)?;
    }
    Ok(())
}

/// fio's zbd_zone_align_file_sizes for a job that writes.
fn round_region(t: &mut ThreadPlan, i: usize, zs: u64) -> Result<(), String> {
    let f = &mut t.files[i];
    let (mut start, end) = (f.region.start, f.region.start + f.region.len);
    let name = f.path.display().to_string();
    if start % zs != 0 {
        let up = (start / zs + 1) * zs;
        if up >= end {
            return Err(format!(
                "{name}: io_size must be at least one zone ({zs} bytes)"
            ));
        }
        eprintln!("{name}: rounded up offset from {start} to {up}");
        start = up;
    }
    let down = end / zs * zs;
    if down <= start {
        return Err(format!(
            "{name}: io_size must be at least one zone ({zs} bytes)"
        ));
    }
    if down != end {
        eprintln!(
            "{name}: rounded down io_size from {} to {}",
            end - start,
            down - start
        );
    }
    f.region.start = start;
    f.region.len = down - start;
    Ok(())
}

/// Whether a block device reports zones (/sys/dev/block/M:N/queue/zoned is not "none").
fn host_zoned(path: &std::path::Path) -> bool {
    let Some((major, minor)) = crate::sys::file::device_numbers(path) else {
        return false;
    };
    let sysfs = format!("/sys/dev/block/{major}:{minor}/queue/zoned");
    std::fs::read_to_string(sysfs).is_ok_and(|m| m.trim() != "none")
}

/// fio's init_zone_info: zones over a file or device without zones.
fn emulated(size: u64, capacity: u64, end: u64) -> Result<Vec<Zone>, String> {
    if size == 0 {
        return Err(
            "zonesize= is mandatory with zonemode=zbd on a file or device without zones".into(),
        );
    }
    if size < 512 {
        return Err("zonesize must be at least 512 bytes for zonemode=zbd".into());
    }
    let cap = if capacity == 0 { size } else { capacity };
    if cap > size {
        return Err(format!("zonecapacity {cap} is larger than zonesize {size}"));
    }
    if end < size {
        return Err(format!(
            "the file's size {end} is smaller than the zone size {size}"
        ));
    }
    Ok((0..end.div_ceil(size))
        .map(|i| Zone {
            start: i * size,
            capacity: cap,
            wp: i * size,
            has_wp: true,
            ..Default::default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_zones_cover_the_file_as_fios_init_zone_info() {
        let z = emulated(1 << 20, 768 << 10, (5 << 20) / 2).unwrap();
        let starts: Vec<(u64, u64, u64)> = z.iter().map(|z| (z.start, z.wp, z.capacity)).collect();
        // 2.5 MiB in 1 MiB zones: three, the last one partial; all empty, capacity 768 KiB.
        assert_eq!(
            starts,
            [
                (0, 0, 768 << 10),
                (1 << 20, 1 << 20, 768 << 10),
                (2 << 20, 2 << 20, 768 << 10)
            ]
        );
        assert!(z.iter().all(|z| z.has_wp && !z.offline && !z.open));
        assert_eq!(emulated(4096, 0, 8192).unwrap()[1].capacity, 4096);
        let e = |size, cap, end| emulated(size, cap, end).unwrap_err();
        assert!(e(0, 0, 1 << 20).contains("zonesize= is mandatory"));
        assert!(e(256, 0, 1 << 20).contains("at least 512 bytes"));
        assert!(e(4096, 8192, 1 << 20).contains("larger than zonesize"));
        assert!(e(1 << 20, 0, 4096).contains("smaller than the zone size"));
    }

    #[test]
    fn a_writing_job_needs_a_region_of_whole_zones() {
        let plan = |opts: &str| {
            crate::runner::worker::tests::plan_of(
                &format!("rw=write\nbs=4k\nzonemode=zbd\nzonesize=64k\n{opts}"),
                true,
            )
        };
        assert!(Zbd::setup(&plan("size=256k"), &mut |_| None)
            .unwrap()
            .is_some());
        let mut p = plan("size=256k");
        p.files[0].region = crate::runner::region::Region {
            start: 4096,
            len: 128 << 10,
        };
        let e = Zbd::setup(&p, &mut |_| None).err().unwrap();
        assert!(e.contains("must be multiples of the zone size"), "{e}");
    }

    #[test]
    fn zonemode_zbd_without_a_zone_size_is_refused_before_anything_is_rounded() {
        let mut t = [crate::runner::worker::tests::plan_of(
            "rw=write\nbs=4k\nzonemode=zbd\nsize=256k",
            true,
        )];
        let e = prepare_plans(&mut t).unwrap_err();
        assert!(e.contains("zonesize= is mandatory"), "{e}");
    }
}
