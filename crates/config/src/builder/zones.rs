//! Zone options across the job (fio's init.c checks and
//! zbd_recalc_options_with_zone_granularity): zonemode/zonesize agreement, the
//! strided defaults, and values given in zones (`size=2z`) turned into bytes.

use crate::ext::zones::ZoneMode;
use crate::spec::JobSpec;
use crate::values::size::SizeOrPercent;

pub fn finish(job: &mut JobSpec) -> Result<(), String> {
    let z = &mut job.zones;
    match z.mode {
        ZoneMode::None if z.size > 0 => {
            return Err(
                "zonemode=none and zonesize are not compatible (set zonemode=strided or zbd)"
                    .into(),
            )
        }
        ZoneMode::Strided if z.size == 0 => {
            return Err("zonesize must be specified when using zonemode=strided".into())
        }
        // Backward compatibility in fio: the window defaults to the zone size.
        ZoneMode::Strided if z.range == 0 => z.range = z.size,
        _ => {}
    }
    if z.mode == ZoneMode::Zbd && !job.local.create_serialize {
        // fio's check: zbd's zones are set up while the files are, serially.
        return Err("zonemode=zbd and create_serialize=0 are not compatible".into());
    }
    if z.mode == ZoneMode::Zbd && z.capacity > 0 && z.size > 0 && z.capacity > z.size {
        return Err(format!(
            "zonecapacity {} is larger than zonesize {}",
            z.capacity, z.size
        ));
    }
    let u = z.units;
    if !u.any() {
        return Ok(());
    }
    // zbd without zonesize on an engine ferrio cannot run (io_uring_cmd on a zoned
    // NVMe device): only that device knows its zone size; a run refuses the engine.
    if z.mode == ZoneMode::Zbd && z.size == 0 && job.foreign.engine.is_some() {
        return Ok(());
    }
    // zbd on a zoned sim device without zonesize: the device's zone size.
    let zs = match (z.mode, z.size) {
        (ZoneMode::None, _) => 0,
        (ZoneMode::Zbd, 0) if job.ioengine == "sim" => job.sim.zoned.size,
        (_, s) => s,
    };
    if zs == 0 {
        return Err("a value in zones (e.g. size=2z) needs a zone size: zonemode=strided or zbd with zonesize= (or ioengine=sim with sim_zonesize=)".into());
    }
    let bytes = |n: u64| {
        n.checked_mul(zs)
            .ok_or_else(|| format!("{n} zones of {zs} bytes is too large"))
    };
    if let Some(n) = u.size {
        job.size = (n > 0).then_some(SizeOrPercent::Bytes(bytes(n)?));
    }
    if let Some(n) = u.io_size {
        job.io_size = (n > 0).then_some(bytes(n)?);
    }
    if let Some(n) = u.offset {
        job.offset = SizeOrPercent::Bytes(bytes(n)?);
    }
    if let Some(n) = u.offset_increment {
        job.offset_increment = bytes(n)?;
    }
    if let Some(n) = u.skip {
        job.zones.skip = bytes(n)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::builder::Overrides;
    use crate::jobfile::{parse_text, Env};
    use crate::session::assemble;
    use std::path::Path;

    fn zbd(opts: &str) -> Result<(), String> {
        let text = format!("[t]\nrw=write\nzonemode=zbd\nzonesize=64k\n{opts}\n");
        let sections = parse_text(&text, Path::new("t.fio"), &Env::system()).unwrap();
        assemble(&[], &[sections], &[], &Overrides::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_zone_capacity_may_equal_the_zone_size_but_not_exceed_it() {
        assert!(zbd("zonecapacity=64k").is_ok());
        assert!(zbd("zonecapacity=32k").is_ok());
        let e = zbd("zonecapacity=128k").unwrap_err();
        assert!(
            e.contains("zonecapacity 131072 is larger than zonesize 65536"),
            "{e}"
        );
    }
}
