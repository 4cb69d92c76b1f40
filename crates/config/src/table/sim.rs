//! Options of the simulated device (ioengine=sim); docs/sim.md explains the model.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::sim::{parse_delay, parse_lat, parse_percent, parse_stall};

pub const SIM: &[OptSpec] = &[
    opt(
        "sim_lat",
        K::Special,
        C::Engine,
        "sim: service time per command as read[,write[,trim]] distributions: fixed:T (or T), uniform:LO:HI, normal:MEAN:SD, lognormal:MEAN:SD, exponential:MEAN, empirical:P=T:P=T... (T in ns/us/ms/s, us by default)",
        |j, _, v| {
            j.sim.lat = parse_lat(v)?;
            Ok(())
        },
    )
    .def(crate::ext::sim::DEFAULT_LAT)
    .private_to(&["sim"]),
    opt(
        "sim_channels",
        K::Int,
        C::Engine,
        "sim: commands the device serves at once; more wait in a FIFO queue",
        |j, c, v| {
            j.sim.channels = c.u32(v)?;
            Ok(())
        },
    )
    .def("16")
    .range(1, 65536)
    .private_to(&["sim"]),
    opt(
        "sim_bw",
        K::Size,
        C::Engine,
        "sim: bandwidth ceiling of the device link in bytes/s (0 = none); each transfer takes size/sim_bw before its service time",
        |j, c, v| {
            j.sim.bw = c.size(v)?;
            Ok(())
        },
    )
    .def("3g")
    .private_to(&["sim"]),
    opt(
        "sim_seed",
        K::Int,
        C::Engine,
        "sim: seed of the service-time draws (same seed, same run)",
        |j, c, v| {
            j.sim.seed = c.uint(v)?;
            Ok(())
        },
    )
    .def("1")
    .private_to(&["sim"]),
    opt(
        "sim_ssd",
        K::Flag,
        C::Engine,
        "sim: model flash wear: fast writes while erased blocks last, then garbage collection and write amplification",
        |j, c, v| {
            j.sim.ssd = c.bool(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(&["sim"]),
    opt(
        "sim_capacity",
        K::Size,
        C::Engine,
        "sim: logical capacity of the simulated SSD (default: the job's offset + size)",
        |j, c, v| {
            j.sim.capacity = c.size(v)?;
            Ok(())
        },
    )
    .private_to(&["sim"]),
    opt(
        "sim_spare",
        K::Special,
        C::Engine,
        "sim: spare (over-provisioned) flash as a percentage of the capacity, 1 to 400 (7 = 7%)",
        |j, _, v| {
            j.sim.spare_pct = parse_percent(v, 1.0, 400.0)?;
            Ok(())
        },
    )
    .def("7")
    .private_to(&["sim"]),
    opt(
        "sim_prefill",
        K::Special,
        C::Engine,
        "sim: percentage of the capacity written sequentially before the job starts, 0 to 100 (0 = fresh out of the box)",
        |j, _, v| {
            j.sim.prefill_pct = parse_percent(v, 0.0, 100.0)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(&["sim"]),
    opt(
        "sim_gc_bw",
        K::Size,
        C::Engine,
        "sim: bytes/s one channel copies during garbage collection; a write is slowed by the data GC must move for it",
        |j, c, v| {
            let n = c.size(v)?;
            if n == 0 {
                return Err("must be > 0".into());
            }
            j.sim.gc_bw = n;
            Ok(())
        },
    )
    .def("160m")
    .private_to(&["sim"]),
    opt(
        "sim_stall",
        K::Str,
        C::Engine,
        "sim: the device stalls once: AT:FOR (e.g. 1s:20ms, us by default) after the job's start it starts serving nothing for FOR; commands wait for the end",
        |j, _, v| {
            j.sim.stall = Some(parse_stall(v)?);
            Ok(())
        },
    )
    .private_to(&["sim"]),
    opt(
        "sim_delay",
        K::Str,
        C::Engine,
        "sim: a delay device on top (SPDK's delay bdev): TIME[:PCT] (e.g. 1ms:33, us by default): commands in the first PCT % of the capacity (all when not given) complete TIME after the device served them, holding their buffer but no channel",
        |j, _, v| {
            j.sim.delay = Some(parse_delay(v)?);
            Ok(())
        },
    )
    .private_to(&["sim"]),
    opt(
        "sim_buffers",
        K::Int,
        C::Engine,
        "sim: data buffers in the target's shared pool (SPDK's NumSharedBuffers): a command holds one from its arrival to its completion and waits for one when none is free; 0 = unlimited",
        |j, c, v| {
            j.sim.buffers = c.u32(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(&["sim"]),
    opt(
        "sim_buf_cache",
        K::Int,
        C::Engine,
        "sim: buffers each channel keeps in a cache of its own (SPDK's BufCacheSize); commands are spread over the channels' caches in turn and try their cache before the shared pool",
        |j, c, v| {
            j.sim.buf_cache = c.u32(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(&["sim"]),
];
