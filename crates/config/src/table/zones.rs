//! Options: zones — fio's zonemode (strided, zbd) and its zone options, and the
//! simulated device's zoned geometry (docs/zones.md).

use super::{opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::ext::zones::{parse_zone_units, ZoneMode};

/// A fraction in [0, 1] (fio's single-entry float list with minfp 0, maxfp 1).
fn fraction(v: &str) -> Result<f64, String> {
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("'{v}' is not a number"))?;
    if !(0.0..=1.0).contains(&x) {
        return Err(format!("{x} is out of range (allowed: 0 to 1)"));
    }
    Ok(x)
}

/// A size, or a whole number of zones (`2z`) when `zones` stores it.
fn size_or_zones(c: &Ctx, v: &str) -> Result<(u64, Option<u64>), String> {
    match parse_zone_units(v)? {
        Some(n) => Ok((0, Some(n))),
        None => Ok((c.size(v)?, None)),
    }
}

/// A zbd option whose non-default ferrio does not do: refused, never ignored.
fn not_yet(on: bool, what: &str) -> Result<(), String> {
    match on {
        false => Ok(()),
        true => Err(format!("{what} is not supported by ferrio yet")),
    }
}

pub const ZONES: &[OptSpec] = &[
    opt("zonemode", K::Choice, C::Io, "Mode for the zonesize, zonerange and zoneskip parameters", |j, c, v| {
        j.zones.mode = match c.choice(v)? {
            "strided" => ZoneMode::Strided,
            "zbd" => ZoneMode::Zbd,
            _ => ZoneMode::None,
        };
        Ok(())
    })
    .def("none")
    .vals(&[
        ("none", "no zoning"),
        ("strided", "strided mode - random I/O is restricted to a single zone"),
        ("zbd", "zoned block device mode - random I/O selects one of multiple zones randomly"),
    ]),
    opt("zonesize", K::Size, C::Io, "Amount of data to read per zone (strided); the zone size (zbd; default: the device's)", |j, c, v| {
        j.zones.size = c.size(v)?;
        Ok(())
    })
    .def("0"),
    opt("zonecapacity", K::Size, C::Io, "Capacity per zone (zbd on a device without zones; 0 = zonesize)", |j, c, v| {
        j.zones.capacity = c.size(v)?;
        Ok(())
    })
    .def("0"),
    opt("zonerange", K::Size, C::Io, "Give size of an IO zone (strided: the window zonesize bytes are done in; 0 = zonesize)", |j, c, v| {
        j.zones.range = c.size(v)?;
        Ok(())
    })
    .def("0"),
    opt("zoneskip", K::Size, C::Io, "Space between IO zones (bytes, or zones: zoneskip=1z)", |j, c, v| {
        let (b, z) = size_or_zones(c, v)?;
        j.zones.skip = b;
        j.zones.units.skip = z;
        Ok(())
    })
    .def("0"),
    opt("read_beyond_wp", K::Bool, C::Io, "Allow reads beyond the zone write pointer (zbd)", |j, c, v| {
        j.zones.read_beyond_wp = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("max_open_zones", K::Int, C::Io, "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd (0 = the device's limit)", |j, c, v| {
        j.zones.max_open = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .range(0, 4096),
    opt("job_max_open_zones", K::Int, C::Io, "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd by one thread/process", |j, c, v| {
        j.zones.job_max_open = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .range(0, 4096),
    opt("ignore_zone_limits", K::Bool, C::Io, "Ignore the zone resource limits (max open/active zones) reported by the device", |j, c, v| {
        j.zones.ignore_limits = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("zone_reset_threshold", K::Special, C::Io, "Zoned block device reset threshold: a fraction (0 to 1) of the region's write-pointer zone bytes written above which zone_reset_frequency applies", |j, _, v| {
        j.zones.reset_threshold = fraction(v)?;
        Ok(())
    }),
    opt("recover_zbd_write_error", K::Bool, C::Io, "zonemode=zbd (fio 3.40): after a write error, recover the zone's write pointer and go on writing; only 0 (stop at the error, as ferrio does) is supported", |_, c, v| {
        not_yet(c.bool(v)?, "recovering a zone's write pointer after a write error")
    })
    .def("0"),
    opt("write_zone_remainder", K::Bool, C::Io, "zonemode=zbd (fio 3.42): fill a zone's remainder smaller than the block size with a short write instead of finishing the zone; only 0 (finish the zone, as ferrio does) is supported", |_, c, v| {
        not_yet(c.bool(v)?, "short writes into a zone's remainder")
    })
    .def("0"),
    opt("zone_reset_frequency", K::Special, C::Io, "Zoned block device zone reset frequency: the fraction (0 to 1) of writes that reset their zone once zone_reset_threshold is passed", |j, _, v| {
        j.zones.reset_frequency = fraction(v)?;
        Ok(())
    }),
    opt("sim_zonesize", K::Size, C::Engine, "sim: make the device zoned (host-managed) with zones of this size; 0 = not zoned", |j, c, v| {
        j.sim.zoned.size = c.size(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["sim"]),
    opt("sim_zonecap", K::Size, C::Engine, "sim: writable bytes of each zone (0 = the zone size)", |j, c, v| {
        j.sim.zoned.capacity = c.size(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["sim"]),
    opt("sim_max_open_zones", K::Int, C::Engine, "sim: zones that may be open at once (0 = no limit); one more write-opened zone fails with ETOOMANYREFS", |j, c, v| {
        j.sim.zoned.max_open = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["sim"]),
    opt("sim_max_active_zones", K::Int, C::Engine, "sim: zones that may be open or closed with data at once (0 = no limit); one more fails with EOVERFLOW", |j, c, v| {
        j.sim.zoned.max_active = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["sim"]),
    opt("sim_conv_zones", K::Int, C::Engine, "sim: conventional (randomly writable) zones at the start of the zoned device", |j, c, v| {
        j.sim.zoned.conventional = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["sim"]),
];
