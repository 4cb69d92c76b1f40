//! fio's built-in profiles: `--profile=tiobench` and `--profile=act` write out a
//! set of jobs, as if they had been given on the command line (docs/dropin.md,
//! "Profiles"). Each profile has its own options (`--size`, `--dir`, ... for
//! tiobench; `--device-names`, `--load`, ... for act), which, while that profile
//! is given, take their names' place on the command line. The jobs come as fio's
//! `profiles/tiobench.c` and `profiles/act.c` make them: a flat option list whose
//! options before the first `name=` are global and each `name=` starts a job
//! (fio's `add_job_opts`), appended after the command line's own sections.
//!
//! Where fio 3.33 (and the latest fio) lose an option's value, ferrio applies it as
//! the option's help says: tiobench's options are all ignored by fio (its command
//! line is built from variables the options never set), and act's test-duration
//! becomes fio's runtime in seconds although it was read in microseconds. With no
//! such option given, the jobs are fio's exactly.

use super::{ConfigError, Raw};
use crate::error::Loc;
use crate::jobfile::subst::{replace_keywords, Keywords};
use crate::jobfile::{RawOpt, Section};
use crate::values::{parse_time, TimeUnit};

/// A profile's name, description and options (name, help).
#[derive(Debug)]
pub struct ProfileDef {
    pub name: &'static str,
    pub desc: &'static str,
    pub options: &'static [(&'static str, &'static str)],
}

pub const PROFILES: &[ProfileDef] = &[
    ProfileDef {
        name: "tiobench",
        desc: "tiotest/tiobench benchmark",
        options: &[
            ("size", "Size in MiB (default: 4*1024*$mb_memory bytes)"),
            ("block", "Block size in bytes (4096)"),
            ("numruns", "Number of runs (1)"),
            ("dir", "Test directory (./)"),
            ("threads", "Number of Threads (1)"),
        ],
    },
    ProfileDef {
        name: "act",
        desc: "ACT Aerospike like benchmark",
        options: &[
            ("device-names", "Devices to use (a comma list; required)"),
            ("load", "ACT load multiplier (1)"),
            (
                "test-duration",
                "How long the entire test takes to run (24h; seconds without a unit)",
            ),
            (
                "threads-per-queue",
                "Number of read IO threads per device (8)",
            ),
            (
                "read-req-num-512-blocks",
                "Number of 512B blocks to read at the time (3)",
            ),
            (
                "large-block-op-kbytes",
                "Size of large block ops (writes), used as bytes as fio does (131072)",
            ),
            ("prep", "Set to run ACT prep phase"),
        ],
    },
];

/// The profile of a command line and the values of its options, as given.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    pub def: Option<&'static ProfileDef>,
    pub opts: Vec<(String, Option<String>)>,
}

fn find_def(name: &str) -> Result<&'static ProfileDef, ConfigError> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        ConfigError(format!(
            "profile '{name}' not found (at command line); allowed: {}",
            PROFILES
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The profile named anywhere on the command line (`--profile=NAME`, `--profile
/// NAME`, `-pNAME`, `-p NAME`; the last one wins, as in fio), found before the
/// other arguments are read so its options are known wherever they stand.
pub fn scan(args: &[String]) -> Result<Profile, ConfigError> {
    let mut name = None;
    let mut it = args.iter().take_while(|a| *a != "--");
    while let Some(a) = it.next() {
        let v = match a.as_str() {
            "--profile" | "-p" | "-profile" => it.next().cloned(),
            _ => a
                .strip_prefix("--profile=")
                .or_else(|| a.strip_prefix("-profile="))
                // -pNAME: only a profile's name (-parse-only is a long flag).
                .or_else(|| {
                    a.strip_prefix("-p")
                        .filter(|v| PROFILES.iter().any(|p| p.name == *v))
                })
                .map(str::to_string),
        };
        if v.is_some() {
            name = v;
        }
    }
    Ok(Profile {
        def: name.map(|n| find_def(&n)).transpose()?,
        opts: Vec::new(),
    })
}

impl Profile {
    /// Whether `key` is one of this profile's options.
    pub fn owns(&self, key: &str) -> bool {
        self.def
            .is_some_and(|d| d.options.iter().any(|o| o.0 == key))
    }
}

/// `--profile=NAME` itself (already found by [`scan`]): checks the name.
pub fn flag(_raw: &mut Raw, v: &str) -> Result<(), ConfigError> {
    find_def(v).map(drop)
}

fn bad(opt: &str, v: &str, why: &str) -> ConfigError {
    ConfigError(format!(
        "bad value '{v}' for profile option '--{opt}' (at command line): {why}"
    ))
}

fn uint(opt: &str, v: &str, min: u64) -> Result<u64, ConfigError> {
    match v.trim().parse::<u64>() {
        Ok(n) if n >= min => Ok(n),
        Ok(_) => Err(bad(opt, v, &format!("must be at least {min}"))),
        Err(_) => Err(bad(opt, v, "malformed integer")),
    }
}

/// The value given for `opt` (the last one), if any.
fn given<'a>(p: &'a Profile, opt: &str) -> Option<&'a str> {
    p.opts
        .iter()
        .rev()
        .find(|o| o.0 == opt)
        .map(|o| o.1.as_deref().unwrap_or(""))
}

/// The profile's flat option list, as fio builds it.
pub fn options(p: &Profile) -> Result<Vec<(String, Option<String>)>, ConfigError> {
    let Some(def) = p.def else {
        return Ok(Vec::new());
    };
    for (k, v) in &p.opts {
        if v.is_none() && k != "prep" {
            return Err(ConfigError(format!(
                "profile option '--{k}' needs a value (at command line)"
            )));
        }
    }
    let mut out = Opts::default();
    match def.name {
        "tiobench" => tiobench(p, &mut out)?,
        _ => act(p, &mut out)?,
    }
    Ok(out.0)
}

#[derive(Default)]
struct Opts(Vec<(String, Option<String>)>);

impl Opts {
    fn set(&mut self, k: &str, v: impl ToString) {
        self.0.push((k.to_string(), Some(v.to_string())));
    }
    fn bare(&mut self, k: &str) {
        self.0.push((k.to_string(), None));
    }
}

fn tiobench(p: &Profile, o: &mut Opts) -> Result<(), ConfigError> {
    let size = match given(p, "size") {
        Some(v) => match uint("size", v, 1)?.checked_mul(1 << 20) {
            Some(b) => b.to_string(),
            None => return Err(bad("size", v, "too large")),
        },
        None => "4*1024*$mb_memory".to_string(),
    };
    let bs = given(p, "block").map_or(Ok(4096), |v| uint("block", v, 1))?;
    let loops = given(p, "numruns").map_or(Ok(1), |v| uint("numruns", v, 1))?;
    let dir = match given(p, "dir") {
        Some(d) if d.trim().is_empty() => return Err(bad("dir", d, "needs a directory")),
        Some(d) => d.to_string(),
        None => "./".to_string(),
    };
    let threads = given(p, "threads").map_or(Ok(1), |v| uint("threads", v, 1))?;
    o.set("buffered", 0);
    o.set("size", size);
    o.set("bs", bs);
    o.set("loops", loops);
    o.set("directory", dir);
    o.set("numjobs", threads);
    // fio writes `timeout=600`, runtime's other name.
    o.set("runtime", 600);
    o.bare("group_reporting");
    o.bare("thread");
    o.set("overwrite", 1);
    o.set("filename", ".fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4");
    o.set("ioengine", "sync");
    for (i, (name, rw)) in [
        ("seqwrite", "write"),
        ("randwrite", "randwrite"),
        ("seqread", "read"),
        ("randread", "randread"),
    ]
    .into_iter()
    .enumerate()
    {
        o.set("name", name);
        if i > 0 {
            o.bare("stonewall");
        }
        o.set("rw", rw);
        if i < 2 {
            o.set("end_fsync", 1);
        }
    }
    Ok(())
}

fn act(p: &Profile, o: &mut Opts) -> Result<(), ConfigError> {
    let devices = given(p, "device-names").ok_or_else(|| {
        ConfigError(
            "profile act: you need to set IO target(s) with the device-names option (--device-names=DEV1,DEV2)".into(),
        )
    })?;
    if devices.split(',').any(|d| d.trim().is_empty()) {
        return Err(bad("device-names", devices, "an empty device name"));
    }
    let load = given(p, "load").map_or(Ok(1), |v| uint("load", v, 1))?;
    let duration_us = match given(p, "test-duration") {
        Some(v) => parse_time(v, TimeUnit::S).map_err(|e| bad("test-duration", v, &e))?,
        None => 24 * 3600 * 1_000_000,
    };
    if duration_us == 0 {
        return Err(bad("test-duration", "0", "must be longer than 0"));
    }
    let threads =
        given(p, "threads-per-queue").map_or(Ok(8), |v| uint("threads-per-queue", v, 1))?;
    let blocks = given(p, "read-req-num-512-blocks")
        .map_or(Ok(3), |v| uint("read-req-num-512-blocks", v, 1))?;
    let write_size = given(p, "large-block-op-kbytes")
        .map_or(Ok(131072), |v| uint("large-block-op-kbytes", v, 1))?;
    let prep = match given(p, "prep") {
        None | Some("0") => false,
        Some("" | "1") => true,
        Some(v) => return Err(bad("prep", v, "malformed boolean (0 or 1, or bare)")),
    };
    let rsize = write_size / (blocks * 512);
    if !prep && rsize == 0 {
        return Err(bad(
            "large-block-op-kbytes",
            &write_size.to_string(),
            "smaller than one read (read-req-num-512-blocks * 512)",
        ));
    }
    o.set("direct", 1);
    o.set("ioengine", "sync");
    o.set("random_generator", "lfsr");
    o.set("group_reporting", 1);
    o.bare("thread");
    let runtime = match duration_us % 1_000_000 {
        0 => format!("{}s", duration_us / 1_000_000),
        _ => format!("{duration_us}us"),
    };
    for dev in devices.split(',') {
        if prep {
            o.set("name", format!("act-prep-zeroes-{dev}"));
            o.set("filename", dev);
            o.set("bs", 1048576);
            o.bare("zero_buffers");
            o.set("rw", "write");
            o.set("name", format!("act-prep-salt-{dev}"));
            o.bare("stonewall");
            o.set("filename", dev);
            o.set("bs", 4096);
            o.set("ioengine", "libaio");
            o.set("iodepth", 64);
            o.set("rw", "randwrite");
            continue;
        }
        // As fio: global before the first device's jobs, then inside the last job.
        o.set("runtime", &runtime);
        o.set("time_based", 1);
        o.set("name", format!("act-read-{dev}"));
        o.set("filename", dev);
        o.set("rw", "randread");
        o.set("numjobs", threads);
        o.set("rate_iops", load * 2000 / threads);
        o.set("bs", blocks * 512);
        o.set("name", format!("act-write-{dev}"));
        o.set("filename", dev);
        o.set("rw", "randwrite");
        o.set("rate_iops", (load * 1000).div_ceil(rsize));
        o.set("bs", write_size);
    }
    Ok(())
}

/// fio attaches the profile's hooks to every job of the run: with act (not its
/// prep phase), each job counts ACT's hourly slices, at least as many as
/// test-duration spans.
pub fn mark_jobs(p: &Profile, jobs: &mut [crate::JobSpec]) {
    if !p.def.is_some_and(|d| d.name == "act") || given(p, "prep").is_some_and(|v| v != "0") {
        return;
    }
    let us = given(p, "test-duration").map_or(Some(24 * 3600 * 1_000_000), |v| {
        parse_time(v, TimeUnit::S).ok()
    });
    let slices = us.map_or(0, |us| us.div_ceil(3600 * 1_000_000) as u32);
    for j in jobs {
        j.compat.act_report = Some(slices);
    }
}

/// The profile's jobs as sections (fio's `add_job_opts`): options before the first
/// `name` are a global section, each `name` starts a job. Values get the keyword
/// substitution of command-line values (`4*1024*$mb_memory`).
pub fn sections(p: &Profile, kw: &Keywords) -> Result<Vec<Section>, ConfigError> {
    let mut out: Vec<Section> = Vec::new();
    for (k, v) in options(p)? {
        let value = v.map(|v| replace_keywords(&v, kw));
        if k == "name" || out.is_empty() {
            let name = match k.as_str() {
                "name" => value.clone().unwrap_or_default(),
                _ => "global".to_string(),
            };
            out.push(Section {
                name,
                loc: Loc::CommandLine,
                options: Vec::new(),
            });
        }
        if let Some(s) = out.last_mut() {
            s.options.push(RawOpt {
                key: k,
                value,
                loc: Loc::CommandLine,
            });
        }
    }
    Ok(out)
}

/// `--profile=NAME --cmdhelp`: the profile's options.
pub fn cmdhelp(p: &Profile) -> Option<String> {
    let def = p.def?;
    let mut s = format!("{} ({}):\n", def.name, def.desc);
    for (name, help) in def.options {
        s += &format!("{name:<24}: {help}\n");
    }
    Some(s)
}

#[cfg(test)]
#[path = "profile_tests.rs"]
mod tests;
