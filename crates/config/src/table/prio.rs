//! Options: per-command I/O priorities (cmdprio_*: io_uring, libaio), the job's
//! priority hint (priohint, fio 3.4x) and uncached buffered I/O (uncached:
//! io_uring, pvsync2). They fill [`crate::ext::PrioSpec`] (priohint: the lifecycle's
//! prio/prioclass beside it).

use super::{opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::ext::prio::parse_bssplit_dir;
use crate::values::list::{per_direction, per_direction_numbers};

/// A read,write value (fio's two offsets): one value sets both; an empty slot keeps 0.
fn per_rw(c: &Ctx, v: &str) -> Result<[u32; 2], String> {
    let mut out = [0; 2];
    for (slot, part) in out.iter_mut().zip(per_direction_numbers(v)?) {
        if let Some(p) = part {
            *slot = c.u32(p)?;
        }
    }
    Ok(out)
}

const CMDPRIO_ENGINES: &[&str] = &["io_uring", "libaio"];

pub const PRIO: &[OptSpec] = &[
    opt("cmdprio_percentage", K::PerDirInt, C::Engine, "io_uring, libaio: percentage of I/Os sent with the cmdprio priority, per direction (read,write)", |j, c, v| {
        j.prio.percentage = per_rw(c, v)?;
        Ok(())
    })
    .def("0")
    .range(0, 100)
    .private_to(CMDPRIO_ENGINES),
    opt("cmdprio_class", K::PerDirInt, C::Engine, "io_uring, libaio: I/O priority class of the cmdprio I/Os (1 realtime, the default; 2 best effort; 3 idle), per direction", |j, c, v| {
        j.prio.class = per_rw(c, v)?;
        Ok(())
    })
    .range(1, 3)
    .private_to(CMDPRIO_ENGINES),
    opt("cmdprio", K::PerDirInt, C::Engine, "io_uring, libaio: I/O priority level of the cmdprio I/Os (0 highest to 7), per direction", |j, c, v| {
        j.prio.level = per_rw(c, v)?;
        Ok(())
    })
    .range(0, 7)
    .private_to(CMDPRIO_ENGINES),
    opt("cmdprio_hint", K::PerDirInt, C::Engine, "io_uring, libaio: I/O priority hint of the cmdprio I/Os (0 none, else e.g. a command duration limit descriptor), per direction", |j, c, v| {
        j.prio.hint = per_rw(c, v)?;
        Ok(())
    })
    .range(0, crate::ext::prio::MAX_HINT as u64)
    .private_to(CMDPRIO_ENGINES),
    opt("cmdprio_bssplit", K::Special, C::Engine, "io_uring, libaio: cmdprio percentages per block size, bs/perc[/class/level[/hint]] entries separated by ':', per direction (read,write): 4k/20:64k/50/1/0", |j, c, v| {
        let dirs = per_direction(v)?;
        let size = |s: &str| c.size(s);
        let mut out: [Vec<_>; 2] = Default::default();
        for (slot, part) in out.iter_mut().zip(dirs) {
            if let Some(p) = part {
                *slot = parse_bssplit_dir(p, &size)?;
            }
        }
        j.prio.bssplit = Some(out);
        Ok(())
    })
    .private_to(CMDPRIO_ENGINES),
    opt("priohint", K::Int, C::Process, "Set the job's I/O priority hint (0 none to 1023; e.g. a command duration limit descriptor), with prio= and prioclass=", |j, c, v| {
        j.lifecycle.priohint = Some(c.u32(v)?);
        Ok(())
    })
    .range(0, crate::ext::prio::MAX_HINT as u64),
    opt("uncached", K::Bool, C::Engine, "io_uring, pvsync2: buffered reads and writes with RWF_DONTCACHE (the page cache drops the pages once the I/O is done; Linux 6.14 or later)", |j, c, v| {
        j.prio.uncached = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["io_uring", "pvsync2"]),
];
