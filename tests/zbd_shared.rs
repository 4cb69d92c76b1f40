//! zonemode=zbd with several jobs on one zoned target: one zone table per target
//! (write pointers, open zones and max_open_zones are the device's, whatever job
//! writes), against the simulated zoned device (one device per file name) and zones
//! emulated over a regular file. Thread interleavings vary from run to run, so the
//! tests check what must hold whatever the order:
//!
//! - the zoned sim device, which checks every write against its own write pointers,
//!   refuses none (`zone_writes_refused=0`), and never has more zones open than the
//!   limit; the zone tables never list more open zones than max_open_zones, nor a
//!   job more than job_max_open_zones;
//! - the bytes below the write pointers at the end, as a later reading job finds them
//!   (a sequential zbd read reads each zone up to its write pointer and ends after
//!   the last zone with data), are exactly the bytes written less a zone capacity per
//!   reset (every reset here is of a full zone): the write pointers are where the
//!   writes put them;
//! - fio 3.33 obeys the same law on the same job file, and writes as many bytes.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

const K: u64 = 1024;

/// One reporting group of a normal output.
#[derive(Debug, Default)]
struct Group {
    written: u64,
    read: u64,
    resets: u64,
    /// The extra statistics' `name=value` pairs (sim and zbd lines).
    extra: Vec<(String, u64)>,
}

impl Group {
    fn extra(&self, name: &str) -> u64 {
        let v = self.extra.iter().find(|(n, _)| n == name);
        v.unwrap_or_else(|| panic!("no {name} in {:?}", self.extra))
            .1
    }
}

/// "(2400KiB/4msec)" → bytes.
fn bytes_in(line: &str) -> u64 {
    let v = line.split('(').nth(2).and_then(|s| s.split('/').next());
    let v = v.unwrap_or_else(|| panic!("no amount in {line}"));
    let (num, mult) = [("KiB", K), ("MiB", K * K), ("B", 1)]
        .iter()
        .find_map(|(u, m)| v.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or_else(|| panic!("unit of {v}"));
    (num.parse::<f64>().unwrap() * mult as f64) as u64
}

/// The groups of a group_reporting normal output, in order.
fn groups(out: &str) -> Vec<Group> {
    let mut gs: Vec<Group> = Vec::new();
    for line in out.lines() {
        let t = line.trim_start();
        if line.contains("(groupid=") {
            gs.push(Group::default());
        }
        let Some(g) = gs.last_mut() else { continue };
        if t.starts_with("write:") {
            g.written = bytes_in(t);
            if let Some(r) = t.rsplit("; ").next().filter(|r| r.ends_with("zone resets")) {
                g.resets = r.split(' ').next().unwrap().parse().unwrap();
            }
        } else if t.starts_with("read:") {
            g.read = bytes_in(t);
        } else if t.starts_with("sim ") || t.starts_with("zbd ") {
            for kv in t.split(':').nth(1).unwrap().split(',') {
                if let Some((k, v)) = kv.trim().split_once('=') {
                    g.extra.push((k.to_string(), v.parse().unwrap_or(0)));
                }
            }
        }
    }
    gs
}

/// Run `tool` in `dir` with `args`; its groups (the run must succeed).
fn run_in(tool: &str, dir: &Path, args: &[String]) -> Vec<Group> {
    let mut cmd = if tool == "fio" {
        Command::new("fio")
    } else {
        ferrio()
    };
    let o = cmd.current_dir(dir).args(args).output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{tool} {args:?}: {err}\n{out}");
    let gs = groups(&out);
    assert_eq!(gs.len(), 2, "{tool}: {out}");
    gs
}

/// Four writer jobs sharing a 1 MiB target of 64k zones (their region the first 15
/// zones), then a reader of the whole target: `common` for every job, `writer` for
/// the writers.
fn shared_job(common: &[&str], writer: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--zonemode=zbd",
        "--bs=4k",
        "--randrepeat=0",
        "--group_reporting",
        "--output-format=normal",
    ]
    .iter()
    .chain(common)
    .map(|s| s.to_string())
    .collect();
    a.extend(
        ["--name=w", "--numjobs=4", "--size=960k", "--io_size=600k"]
            .iter()
            .chain(writer)
            .map(|s| s.to_string()),
    );
    a.extend(["--name=r", "--stonewall", "--rw=read", "--size=1m"].map(String::from));
    a
}

/// The write-pointer law: what the reader finds below the write pointers is what
/// was written less one zone capacity (64k) per reset, within the writers' zones.
fn check_law(tool: &str, gs: &[Group]) {
    let (w, r) = (&gs[0], &gs[1]);
    assert_eq!(w.written, 4 * 600 * K, "{tool}: {gs:?}");
    assert!(w.resets * 64 * K <= w.written, "{tool}: {gs:?}");
    assert_eq!(r.read, w.written - w.resets * 64 * K, "{tool}: {gs:?}");
    assert!(r.read <= 960 * K, "{tool}: {gs:?}");
}

/// The zoned sim device every job names: 16 zones of 64k.
const SIM: &[&str] = &[
    "--ioengine=sim",
    "--clocksource=virtual",
    "--filename=zdev",
    "--sim_zonesize=64k",
    "--sim_capacity=1m",
];

#[test]
fn four_jobs_share_one_sim_zoned_device_within_its_limits() {
    let d = scratch();
    for (common, writer, limit, job_limit) in [
        (
            [SIM, &["--max_open_zones=3"]].concat(),
            &["--rw=randwrite", "--iodepth=4", "--job_max_open_zones=2"][..],
            3,
            2,
        ),
        // The device's own open limit is the jobs' limit without max_open_zones.
        (
            [SIM, &["--sim_max_open_zones=2"]].concat(),
            &["--rw=randwrite", "--iodepth=8"][..],
            2,
            2,
        ),
        // Sequential writers at one device's write pointers, no limit.
        (SIM.to_vec(), &["--rw=write", "--iodepth=8"][..], 0, 0),
    ] {
        let gs = run_in("ferrio", d.path(), &shared_job(&common, writer));
        check_law("ferrio", &gs);
        let w = &gs[0];
        assert_eq!(w.extra("zone_writes_refused"), 0, "{writer:?}: {w:?}");
        if limit > 0 {
            let open = w.extra("zones_open_max");
            assert!((1..=limit).contains(&open), "{writer:?}: {w:?}");
            let table = w.extra("open_zones_max");
            assert!((1..=limit).contains(&table), "{writer:?}: {w:?}");
            let job = w.extra("job_open_zones_max");
            assert!((1..=job_limit).contains(&job), "{writer:?}: {w:?}");
        }
    }
}

#[test]
fn four_jobs_share_the_zones_emulated_over_one_file() {
    let d = scratch();
    let f = d.path().join("data");
    for writer in [
        &["--rw=randwrite"][..],
        &["--rw=write"][..],
        &[
            "--rw=randwrite",
            "--zonecapacity=64k",
            "--job_max_open_zones=2",
        ][..],
    ] {
        std::fs::File::create(&f).unwrap().set_len(K * K).unwrap();
        let gs = run_in(
            "ferrio",
            d.path(),
            &shared_job(
                &["--filename=data", "--max_open_zones=2", "--zonesize=64k"],
                writer,
            ),
        );
        check_law("ferrio", &gs);
        let open = gs[0].extra("open_zones_max");
        assert!((1..=2).contains(&open), "{writer:?}: {gs:?}");
        assert!(gs[0].extra("job_open_zones_max") <= 2, "{gs:?}");
        assert_eq!(std::fs::metadata(&f).unwrap().len(), K * K);
    }
}

/// fio 3.33 shares one zone table between the jobs on a file too: the same job file
/// writes as many bytes under both tools, and both obey the write-pointer law (the
/// reset counts themselves depend on how the jobs interleave).
#[test]
fn shared_zones_obey_the_same_law_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for writer in [&["--rw=randwrite"][..]] {
        for tool in ["fio", "ferrio"] {
            let f = d.path().join("data");
            std::fs::File::create(&f).unwrap().set_len(K * K).unwrap();
            let args = shared_job(
                &[
                    "--ioengine=psync",
                    "--filename=data",
                    "--max_open_zones=2",
                    "--zonesize=64k",
                ],
                writer,
            );
            let gs = run_in(tool, d.path(), &args);
            check_law(tool, &gs);
            assert_eq!(std::fs::metadata(&f).unwrap().len(), K * K, "{tool}");
        }
    }
}

/// The sharing is real: two jobs writing one file name of the zoned sim device
/// without zonemode=zbd collide at its write pointers (the second one's first write
/// is refused), while two clones without filename= have a device each.
#[test]
fn one_file_name_is_one_sim_zoned_device() {
    let d = scratch();
    let run = |extra: &[&str]| {
        ferrio()
            .current_dir(d.path())
            .args([
                "--name=z",
                "--ioengine=sim",
                "--clocksource=virtual",
                "--sim_zonesize=64k",
                "--sim_capacity=1m",
                "--rw=write",
                "--bs=4k",
                "--size=1m",
                "--numjobs=2",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--filename=zdev"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("Input/output error"),
        "{err}"
    );
    let o = run(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// nrfiles>1 and filename=a:b: each file is a zoned target of its own (the sim: a
/// device per file name), shared with the other jobs that name it.
#[test]
fn several_files_per_job() {
    let d = scratch();
    for f in ["a", "b"] {
        let f = std::fs::File::create(d.path().join(f)).unwrap();
        f.set_len(512 * K).unwrap();
    }
    const SIM2: &[&str] = &[
        "--ioengine=sim",
        "--clocksource=virtual",
        "--sim_zonesize=64k",
        "--sim_capacity=512k",
        "--size=1m",
        "--max_open_zones=2",
    ];
    // (options, the fewest resets: 3 MiB into 1 MiB of shared zones, or into 2 MiB
    // when each clone's nrfiles are files of its own).
    let cases: [(Vec<&str>, u64); 3] = [
        ([SIM2, &["--filename=s1:s2"]].concat(), 32),
        ([SIM2, &["--nrfiles=2"]].concat(), 16),
        (
            vec![
                "--filename=a:b",
                "--size=1m",
                "--zonesize=64k",
                "--max_open_zones=3",
            ],
            32,
        ),
    ];
    for (opts, resets) in cases {
        let o = ferrio()
            .current_dir(d.path())
            .args(["--name=z", "--zonemode=zbd", "--rw=randwrite", "--bs=4k"])
            .args(["--numjobs=2", "--io_size=1536k", "--group_reporting"])
            .args(&opts)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{opts:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let g = &groups(&out)[0];
        assert_eq!(g.written, 2 * 1536 * K, "{opts:?}: {out}");
        assert!(g.resets >= resets, "{opts:?}: {out}");
        if opts.contains(&"--ioengine=sim") {
            assert_eq!(g.extra("zone_writes_refused"), 0, "{out}");
        }
    }
}

#[test]
fn what_a_shared_target_cannot_take_is_refused() {
    let d = scratch();
    let f = std::fs::File::create(d.path().join("data")).unwrap();
    f.set_len(K * K).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--filename=data", "--zonesize=64k", "--zoneskip=100k"],
            "zoneskip 102400 is not a multiple of the device zone size 65536",
        ),
        (
            &[
                "--filename=data",
                "--zonesize=64k",
                "--max_open_zones=2",
                "--name=y",
                "--filename=data",
                "--zonemode=zbd",
                "--zonesize=64k",
                "--max_open_zones=3",
            ],
            "max_open_zones=3 differs from the 2",
        ),
        (
            &[
                "--ioengine=sim",
                "--filename=zdev",
                "--sim_zonesize=64k",
                "--name=y",
                "--ioengine=sim",
                "--filename=zdev",
                "--sim_zonesize=128k",
                "--zonemode=zbd",
            ],
            "shared with a job of another sim_zonesize",
        ),
    ];
    for (opts, want) in cases {
        let o = ferrio()
            .current_dir(d.path())
            .args(["--size=1m", "--rw=randwrite", "--bs=4k", "--zonemode=zbd"])
            .arg("--name=z")
            .args(*opts)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{opts:?}: {err}");
    }
    // zoneskip in whole zones is accepted (fio 3.33 checks it and leaves zbd I/O as is).
    let o = ferrio()
        .current_dir(d.path())
        .args([
            "--name=z",
            "--filename=data",
            "--size=1m",
            "--rw=write",
            "--bs=4k",
        ])
        .args(["--zonemode=zbd", "--zonesize=64k", "--zoneskip=128k"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
