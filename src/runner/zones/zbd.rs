//! `zonemode=zbd`: one thread's view of the zones of its file (fio's zbd.c, for one
//! thread): each zone's start, capacity, write pointer and whether the thread has it
//! open, read from the zoned device when the engine has one (the sim's zoned mode) or
//! emulated over a file or device without zones (`zonesize=`, `zonecapacity=`, every
//! zone empty at the start, as fio's ZBD_NONE model). [`Zbd::setup`] checks the job
//! against the zones and limits; [`Zbd::adjust`] (adjust.rs) moves each generated
//! I/O where the zone rules allow it.

use crate::engine::zone::{ZoneCond, ZoneType, ZonedDevice};
use crate::runner::plan::ThreadPlan;
use crate::runner::region::Region;
use ferrio_config::{DebugCategory, RwKind};

/// One zone as the thread tracks it.
#[derive(Clone, Debug)]
pub(super) struct Zone {
    pub start: u64,
    pub capacity: u64,
    /// Write pointer; for a conventional or full zone, the end of its capacity.
    pub wp: u64,
    /// Sequential write required (a conventional zone has no write pointer).
    pub has_wp: bool,
    pub offline: bool,
    /// In the thread's open-zone list.
    pub open: bool,
}

/// The zbd state of one thread on its one file.
pub struct Zbd {
    pub(super) zone_size: u64,
    /// Every zone of the file/device, then a sentinel at the end.
    pub(super) zones: Vec<Zone>,
    /// The region's zones: [min, max).
    pub(super) min: usize,
    pub(super) max: usize,
    pub(super) region: Region,
    /// Bytes of a pass (io_size).
    pub(super) pass_bytes: u64,
    /// Zones open, in the order they were opened (tracked only under a limit).
    pub(super) open: Vec<usize>,
    pub(super) max_open: u32,
    pub(super) job_max_open: u32,
    /// Smallest block size per direction (fio's min_bs).
    pub(super) min_bs: [u64; 3],
    pub(super) random: bool,
    /// A mixed job (fio's td_rw): a first read of empty zones becomes a write.
    pub(super) mixed: bool,
    pub(super) read_beyond_wp: bool,
    pub(super) reset_threshold: f64,
    pub(super) reset_frequency: f64,
    /// Writes until the next threshold-triggered reset (fio's write_cnt).
    pub(super) write_cnt: u32,
    /// Bytes below write pointers in the region, all zones / write-pointer zones.
    pub(super) data: u64,
    pub(super) wp_data: u64,
    /// The zones are the device's: resets go to it.
    pub(super) device: bool,
    /// Zone resets issued (fio's nr_zone_resets).
    pub resets: u64,
    /// --debug=zbd.
    pub(super) trace: super::trace::ZbdTrace,
}

impl Zbd {
    /// The zbd state for `plan`'s thread, from `device`'s zones when the engine is
    /// over a zoned device; None when the job is not zonemode=zbd; a message when the
    /// job cannot run against these zones.
    pub fn setup(
        plan: &ThreadPlan,
        device: Option<&mut dyn ZonedDevice>,
    ) -> Result<Option<Zbd>, String> {
        let spec = &plan.spec;
        let z = &spec.zones;
        if z.mode != ferrio_config::ext::zones::ZoneMode::Zbd {
            return Ok(None);
        }
        let [file] = plan.files.as_slice() else {
            return Err("zonemode=zbd: ferrio supports one file per job (nrfiles=1)".into());
        };
        if z.skip > 0 {
            return Err("zoneskip with zonemode=zbd is not supported by ferrio yet".into());
        }
        if file.block_device && device.is_none() && host_zoned(&file.path) {
            return Err(format!(
                "{} is a zoned block device: ferrio cannot use the kernel's zone ioctls yet (docs/zones.md)",
                file.path.display()
            ));
        }
        let region = file.region;
        let end = region.start + region.len;
        let is_device = device.is_some();
        let (zones, zone_size, device_limit) = match device {
            Some(dev) => {
                let report = dev.report();
                let zs = report.first().map_or(0, |r| r.len);
                if z.size > 0 && z.size != zs {
                    return Err(format!(
                        "zonesize {} does not match the device zone size {zs}",
                        z.size
                    ));
                }
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
                        open: false,
                    })
                    .collect::<Vec<_>>();
                (zones, zs, lim.unwrap_or(0))
            }
            None => (emulated(z.size, z.capacity, end)?, z.size, 0),
        };
        let trims = spec.rw.kind == RwKind::Trim || spec.rw.kind == RwKind::TrimWrite;
        let tbs = &spec.bs[2];
        if trims && (tbs.min != tbs.max || !tbs.split.is_empty()) {
            return Err("bsrange and bssplit are not allowed for trim with zonemode=zbd".into());
        }
        if trims && tbs.min != zone_size {
            return Err(format!(
                "trim block size {} is not the zone size {zone_size} (zonemode=zbd resets a zone per trim)",
                tbs.min
            ));
        }
        if spec.writes() && spec.bs[1].max > zone_size {
            return Err(format!(
                "write block size {} exceeds the zone size {zone_size}",
                spec.bs[1].max
            ));
        }
        let nr = zones.len() as u64;
        if end > nr * zone_size {
            return Err(format!(
                "the job's region ends at {end}, past the last zone (at {})",
                nr * zone_size
            ));
        }
        if spec.writes() && (region.start % zone_size != 0 || end % zone_size != 0) {
            return Err(format!(
                "offset ({}) and offset + size ({end}) must be multiples of the zone size {zone_size} for writes with zonemode=zbd (e.g. size={}z)",
                region.start,
                (region.len / zone_size).max(1)
            ));
        }
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
        if z.job_max_open > 0 && max_open == 0 {
            return Err(
                "job_max_open_zones cannot be used without a global open zones limit (max_open_zones=)"
                    .into(),
            );
        }
        let mut zones = zones;
        zones.push(Zone {
            start: nr * zone_size,
            capacity: 0,
            wp: nr * zone_size,
            has_wp: false,
            offline: true,
            open: false,
        });
        let idx = |off: u64| ((off / zone_size) as usize).min(nr as usize);
        let mut zbd = Zbd {
            zone_size,
            min: idx(region.start),
            max: idx(end.saturating_sub(1)) + 1,
            zones,
            region,
            pass_bytes: plan.pass_bytes,
            open: Vec::new(),
            max_open,
            job_max_open: z.job_max_open,
            min_bs: std::array::from_fn(|d| spec.bs[d].min.max(1)),
            random: spec.rw.random,
            mixed: spec.rw.kind == RwKind::ReadWrite,
            read_beyond_wp: z.read_beyond_wp,
            reset_threshold: z.reset_threshold,
            reset_frequency: z.reset_frequency,
            write_cnt: 0,
            data: 0,
            wp_data: 0,
            device: is_device,
            resets: 0,
            trace: super::trace::ZbdTrace::new(
                spec.compat.debug.has(DebugCategory::Zbd),
                &file.path,
            ),
        };
        zbd.file_reset();
        zbd.trace.setup(zbd.max_open, zbd.wp_data);
        Ok(Some(zbd))
    }
}

/// The planner's step, before any file is laid out, for every zonemode=zbd thread:
/// the region of a job that writes is rounded to whole zones as fio does (its offset
/// up to the next zone, its end down to a zone; said on stderr), then the job is
/// checked against its zones (the engine is created to ask for its zoned device, and
/// dropped).
pub fn prepare_plans(threads: &mut [ThreadPlan]) -> Result<(), String> {
    use ferrio_config::ext::zones::ZoneMode;
    for t in threads
        .iter_mut()
        .filter(|t| t.spec.zones.mode == ZoneMode::Zbd)
    {
        let spec = t.spec.clone();
        let at = |e: String| format!("job '{}': {e} ({})", spec.name, spec.origin);
        let opts = crate::runner::engine_setup::engine_options(t, None, None);
        let mut engine = crate::engine::create(&t.spec.ioengine, opts)?;
        let zs = match engine.zoned() {
            Some(dev) => dev.report().first().map_or(0, |z| z.len),
            None => t.spec.zones.size,
        };
        if zs > 0 && t.spec.writes() && t.files.len() == 1 {
            round_region(t, zs).map_err(at)?;
        }
        Zbd::setup(t, engine.zoned()).map_err(at)?;
    }
    Ok(())
}

/// fio's zbd_zone_align_file_sizes for a job that writes.
fn round_region(t: &mut ThreadPlan, zs: u64) -> Result<(), String> {
    let f = &mut t.files[0];
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
    if t.spec.io_size.is_none() {
        t.pass_bytes = f.region.len;
    }
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
            offline: false,
            open: false,
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
        assert!(Zbd::setup(&plan("size=256k"), None).unwrap().is_some());
        let mut p = plan("size=256k");
        p.files[0].region = crate::runner::region::Region {
            start: 4096,
            len: 128 << 10,
        };
        let e = Zbd::setup(&p, None).err().unwrap();
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
