//! Options: randomness and buffer contents.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::spec::{FioSeeds, RandomGenerator};
use crate::values::{parse_distribution, parse_int, parse_pattern, per_direction};

pub const RANDOM: &[OptSpec] = &[
    opt("randrepeat", K::Bool, C::Random, "Seed the random generators predictably, so runs repeat", |j, c, v| {
        j.randrepeat = c.bool(v)?;
        Ok(())
    })
    .def("1")
    .alias(&["allrandrepeat"]),
    // No table default: fio tells a given randseed from its default (0x89) — a given
    // one makes the seeds predictable even with randrepeat=0.
    opt("randseed", K::Int, C::Random, "Seed for the random generators (0x89 when not given); giving it makes runs repeat even with randrepeat=0", |j, c, v| {
        j.randseed = c.uint(v)?;
        j.randseed_set = true;
        Ok(())
    }),
    opt("fio_seeds", K::Choice, C::Random, "ferrio only: which fio's seeding to follow where fio versions differ (docs/random.md)", |j, c, v| {
        j.fio_seeds = match c.choice(v)? {
            "3.33" => FioSeeds::Fio333,
            _ => FioSeeds::Latest,
        };
        Ok(())
    })
    .def("latest")
    .vals(&[
        ("latest", "fio 3.35 and later: randseed seeds every stream"),
        ("3.33", "fio 3.33: with randrepeat=1, offsets and zipf/pareto/normal ignore randseed"),
    ]),
    opt("norandommap", K::Flag, C::Random, "Do not track which blocks were done: random offsets may repeat", |j, c, v| {
        j.norandommap = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("random_generator", K::Choice, C::Random, "Generator for random offsets", |j, c, v| {
        j.random_generator = match c.choice(v)? {
            "tausworthe" => RandomGenerator::Tausworthe,
            "lfsr" => RandomGenerator::Lfsr,
            _ => RandomGenerator::Tausworthe64,
        };
        Ok(())
    })
    .def("tausworthe")
    .vals(&[
        ("tausworthe", "strong 2^88 cycle generator"),
        ("lfsr", "linear feedback shift register: never repeats an offset"),
        ("tausworthe64", "strong 64-bit 2^258 cycle generator"),
    ]),
    opt("random_distribution", K::Special, C::Random, "Distribution of random offsets: random, zipf:θ, pareto:h, normal:dev[:center], zoned:a/r:..., zoned_abs:a/size:...", |j, c, v| {
        j.random_distribution = parse_distribution(v, c.kb_base)?;
        Ok(())
    })
    .def("random")
    .vals(&[
        ("random", "uniform"),
        ("zipf", "zipf:<theta>, theta > 0 and not 1"),
        ("pareto", "pareto:<h>, 0 < h < 1"),
        ("normal", "normal:<deviation %>[:<center 0..1>]"),
        ("zoned", "zoned:<access%>/<range%>:... (per direction with ',')"),
        ("zoned_abs", "zoned_abs:<access%>/<size>:... (per direction with ',')"),
    ]),
    opt("percentage_random", K::PerDirInt, C::Random, "Percentage of random I/O in a random workload (rest sequential), per direction", |j, c, v| {
        for (d, p) in per_direction(v)?.into_iter().enumerate() {
            if let Some(p) = p {
                let n = parse_int(p, c.kb_base)?;
                c.check_range(n)?;
                j.percentage_random[d] = n as u32;
            }
        }
        Ok(())
    })
    .def("100,100,100")
    .range(0, 100),
];

pub const BUFFERS: &[OptSpec] = &[
    opt(
        "zero_buffers",
        K::Flag,
        C::Buffers,
        "Fill write buffers with zeros instead of random data",
        |j, c, v| {
            j.zero_buffers = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "refill_buffers",
        K::Flag,
        C::Buffers,
        "Refill write buffers with new data on every submit",
        |j, c, v| {
            j.refill_buffers = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "scramble_buffers",
        K::Bool,
        C::Buffers,
        "Slightly modify buffer contents on each write to defeat dedupe",
        |j, c, v| {
            j.scramble_buffers = c.bool(v)?;
            Ok(())
        },
    )
    .def("1"),
    opt(
        "buffer_pattern",
        K::Special,
        C::Buffers,
        "Fill buffers with this pattern: 0x hex, \"string\", decimal, or a combination",
        |j, _, v| {
            j.buffer_pattern = Some(parse_pattern(v)?);
            Ok(())
        },
    ),
];
