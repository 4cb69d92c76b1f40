//! Options: randomness (buffer contents: table/buffers.rs).

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::spec::{FileService, FioSeeds, RandomGenerator};
use crate::values::list::per_direction_numbers;
use crate::values::{parse_distribution, parse_int};

pub const RANDOM: &[OptSpec] = &[
    opt("randrepeat", K::Bool, C::Random, "Seed the random generators predictably, so runs repeat", |j, c, v| {
        j.randrepeat = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    // fio >= 3.35 made allrandrepeat an alias of randrepeat; fio 3.33 had it seed every
    // stream from a constant, which fio_seeds=3.33 follows (planner.rs).
    opt("allrandrepeat", K::Bool, C::Random, "Alias of randrepeat (fio 3.35); with fio_seeds=3.33, fio 3.33's: seed every random stream from a constant", |j, c, v| {
        j.randrepeat = c.bool(v)?;
        j.allrandrepeat = j.randrepeat;
        Ok(())
    }),
    // No table default: fio tells a given randseed from its default (0x89) — a given
    // one makes the seeds predictable even with randrepeat=0.
    opt("randseed", K::Int, C::Random, "Seed for the random generators (0x89 when not given); giving it makes runs repeat even with randrepeat=0", |j, c, v| {
        j.randseed = c.uint(v)?;
        j.randseed_set = true;
        Ok(())
    }),
    opt("fio_seeds", K::Choice, C::Random, "ferrio only: which fio's I/O sequence to follow where fio versions differ: seeding, the offset generator past 2^32 blocks, fsync=N after reads (docs/random.md)", |j, c, v| {
        j.fio_seeds = match c.choice(v)? {
            "3.33" => FioSeeds::Fio333,
            _ => FioSeeds::Latest,
        };
        Ok(())
    })
    .def("latest")
    .vals(&[
        ("latest", "the latest fio: randseed seeds every stream (3.35), a sync only right after a write (3.38), tausworthe64 past 2^32 blocks (3.42)"),
        ("3.33", "fio 3.33: with randrepeat=1, offsets and zipf/pareto/normal ignore randseed; allrandrepeat=1 seeds every stream from a constant; fsync=N syncs again after reads; 32-bit offsets past 2^32 blocks"),
    ]),
    opt("file_service_type", K::Special, C::Random, "How the next file is chosen: roundrobin[:N], sequential, random[:N], zipf[:θ], pareto[:h], normal[:dev%] (gauss)", |j, _, v| {
        j.file_service = parse_file_service(v)?;
        Ok(())
    })
    .def("roundrobin")
    .vals(&[
        ("roundrobin", "each file in turn, N I/Os each (default 1)"),
        ("sequential", "each file until it is done"),
        ("random", "a uniformly random file, N I/Os each (default 1)"),
        ("zipf", "zipf over the files (θ, default 1.1)"),
        ("pareto", "pareto over the files (h, default 0.2)"),
        ("normal", "normal over the files (deviation %, default 0); alias gauss"),
    ]),
    opt("norandommap", K::Flag, C::Random, "Do not track which blocks were done: random offsets may repeat", |j, c, v| {
        j.norandommap = c.bool(v)?;
        j.sprandom.norandommap_set = true;
        Ok(())
    })
    .def("0"),
    opt("random_generator", K::Choice, C::Random, "Generator for random offsets", |j, c, v| {
        j.sprandom.generator_set = true;
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
    opt("random_distribution", K::Special, C::Random, "Distribution of random offsets: random, zipf[:θ[:center]], pareto[:h[:center]], normal[:dev[:center]], zoned:a/r:..., zoned_abs:a/size:..., sequence:b,b,...", |j, c, v| {
        j.random_distribution = parse_distribution(v, c.kb_base)?;
        Ok(())
    })
    .def("random")
    .vals(&[
        ("random", "uniform"),
        ("zipf", "zipf:<theta>[:<center 0..1>], theta > 0 and not 1 (default 1.1)"),
        ("pareto", "pareto:<h>[:<center 0..1>], 0 < h < 1 (default 0.2)"),
        ("normal", "normal:<deviation %>[:<center 0..1>], 0 <= deviation < 100 (default 0)"),
        ("zoned", "zoned:<access%>/<range%>:... (per direction with ',')"),
        ("zoned_abs", "zoned_abs:<access%>/<size>:... (per direction with ',')"),
        ("sequence", "sequence:<block>,<block>,...: these block indices in this order, repeated (at most 64)"),
    ]),
    opt("random_sequence_stride", K::Bool, C::Random, "With random_distribution=sequence: the indices are relative to a group of blocks that moves on by the list's length after each round", |j, c, v| {
        j.random_sequence_stride = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("percentage_sequential", K::PerDirInt, C::Random, "Removed from fio (which rejects it): use percentage_random, the share of random I/O", |_, _, _| {
        Err(super::removed("percentage_sequential", "use percentage_random=100-N, the share of random I/O"))
    }),
    opt("percentage_random", K::PerDirInt, C::Random, "Percentage of random I/O in a random workload (rest sequential), per direction", |j, c, v| {
        for (d, p) in per_direction_numbers(v)?.into_iter().enumerate() {
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

/// `file_service_type=KIND[:ARG]`.
fn parse_file_service(v: &str) -> Result<FileService, String> {
    let (kind, arg) = match v.trim().split_once(':') {
        Some((k, a)) => (k, Some(a.trim())),
        None => (v.trim(), None),
    };
    let count = |a: Option<&str>| -> Result<u32, String> {
        match a {
            None => Ok(1),
            Some(a) => a
                .parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("'{a}' is not a positive number of I/Os per file")),
        }
    };
    let real = |a: Option<&str>, def: f64| -> Result<f64, String> {
        match a {
            None => Ok(def),
            Some(a) => a
                .parse::<f64>()
                .map_err(|_| format!("'{a}' is not a number")),
        }
    };
    Ok(match kind {
        "roundrobin" => FileService::RoundRobin(count(arg)?),
        "sequential" => FileService::Sequential,
        "random" => FileService::Random(count(arg)?),
        "zipf" => {
            let t = real(arg, 1.1)?;
            if t <= 0.0 || t == 1.0 {
                return Err(format!("zipf theta {t} must be > 0 and not 1"));
            }
            FileService::Zipf(t)
        }
        "pareto" => {
            let h = real(arg, 0.2)?;
            if h <= 0.0 || h >= 1.0 {
                return Err(format!("pareto h {h} must be between 0 and 1"));
            }
            FileService::Pareto(h)
        }
        "normal" | "gauss" => FileService::Gauss(real(arg, 0.0)?),
        other => {
            return Err(format!(
                "unknown file_service_type '{other}' (allowed: roundrobin, sequential, random, zipf, pareto, normal, gauss)"
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_service_type_values() {
        assert_eq!(
            parse_file_service("roundrobin").unwrap(),
            FileService::RoundRobin(1)
        );
        assert_eq!(
            parse_file_service("random:4").unwrap(),
            FileService::Random(4)
        );
        assert_eq!(
            parse_file_service("sequential").unwrap(),
            FileService::Sequential
        );
        assert_eq!(parse_file_service("zipf").unwrap(), FileService::Zipf(1.1));
        assert_eq!(
            parse_file_service("pareto:0.3").unwrap(),
            FileService::Pareto(0.3)
        );
        assert_eq!(
            parse_file_service("gauss:5").unwrap(),
            FileService::Gauss(5.0)
        );
        assert!(parse_file_service("random:0").is_err());
        assert!(parse_file_service("zipf:1").is_err());
        let e = parse_file_service("lottery").unwrap_err();
        assert!(e.contains("allowed: roundrobin"), "{e}");
    }
}
