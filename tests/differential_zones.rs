//! zonemode=strided issues the same I/O sequence as fio 3.33: ferrio's and fio's
//! `write_iolog` for the same job are identical line for line (timestamps left out).
//! Covers zonesize/zonerange/zoneskip, a window larger and smaller than the zone,
//! random offsets with and without the random map, an offset, and sizes in zones.
//! Skipped (with a message) when fio is absent, unless CI is set.

mod common;
use common::*;
use std::process::Command;

/// The log's lines without timestamps.
fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_once(' ').map(|(_, r)| r).unwrap_or(l).to_string())
        .collect()
}

fn both(opts: &[&str]) -> (Vec<String>, Vec<String>) {
    both_in("--zonemode=strided", opts)
}

/// Run under both tools in `mode`; zonemode=zbd jobs get a 1 MiB file first (fio
/// sizes zones from the existing file).
fn both_in(mode: &str, opts: &[&str]) -> (Vec<String>, Vec<String>) {
    let d = scratch();
    let mut out = Vec::new();
    for (tool, sub) in [("fio", "f"), ("ferrio", "r")] {
        let cwd = d.path().join(sub);
        std::fs::create_dir_all(&cwd).unwrap();
        if mode == "--zonemode=zbd" {
            let f = std::fs::File::create(cwd.join("data")).unwrap();
            f.set_len(1 << 20).unwrap();
        }
        let mut args: Vec<String> = [
            "--name=j",
            "--ioengine=psync",
            "--filename=data",
            "--bs=4k",
            "--randrepeat=0",
            "--randseed=1234",
            mode,
            "--write_iolog=io.log",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(opts.iter().map(|s| s.to_string()));
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            ferrio()
        };
        let o = cmd.current_dir(&cwd).args(&args).output().expect("run");
        assert!(
            o.status.success(),
            "{tool} {args:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.push(lines(&std::fs::read_to_string(cwd.join("io.log")).unwrap()));
    }
    let r = out.pop().unwrap();
    (out.pop().unwrap(), r)
}

const JOBS: &[&[&str]] = &[
    &[
        "--rw=read",
        "--size=128k",
        "--zonesize=8k",
        "--zonerange=32k",
    ],
    &[
        "--rw=read",
        "--size=128k",
        "--zonesize=8k",
        "--zonerange=32k",
        "--zoneskip=16k",
    ],
    &["--rw=read", "--size=128k", "--zonesize=16k"],
    &[
        "--rw=read",
        "--size=128k",
        "--zonesize=32k",
        "--zonerange=8k",
    ],
    &[
        "--rw=write",
        "--size=128k",
        "--zonesize=8k",
        "--zoneskip=1z",
    ],
    &["--rw=read", "--size=2z", "--zonesize=8k", "--zoneskip=8k"],
    &[
        "--rw=read",
        "--size=128k",
        "--offset=16k",
        "--zonesize=8k",
        "--zoneskip=8k",
    ],
    &[
        "--rw=randread",
        "--size=128k",
        "--zonesize=8k",
        "--zonerange=16k",
    ],
    &[
        "--rw=randread",
        "--size=128k",
        "--zonesize=8k",
        "--zonerange=16k",
        "--norandommap",
    ],
    &[
        "--rw=randread",
        "--size=128k",
        "--zonesize=32k",
        "--zonerange=8k",
    ],
    &[
        "--rw=randwrite",
        "--size=256k",
        "--zonesize=16k",
        "--zonerange=64k",
        "--zoneskip=32k",
    ],
    &[
        "--rw=randrw",
        "--size=128k",
        "--zonesize=8k",
        "--zonerange=32k",
        "--norandommap",
    ],
];

#[test]
fn strided_sequences_match_fio() {
    if !have_fio() {
        return;
    }
    // Each case in a directory of its own (`both_in`): a few at a time.
    common::cases::each_case(JOBS, |opts| {
        let (f, r) = both(opts);
        assert!(f.len() > 6, "{opts:?}: fio logged only {f:?}");
        if let Some(i) = (0..f.len().max(r.len())).find(|&i| f.get(i) != r.get(i)) {
            panic!(
                "{opts:?}: first difference at line {}: fio {:?}, ferrio {:?}",
                i + 1,
                f.get(i),
                r.get(i)
            );
        }
    });
}

/// zonemode=zbd on a file without zones (fio emulates the zones, every one empty at
/// the start): the same writes at the same write pointers, the same reads below them.
const ZBD_JOBS: &[&[&str]] = &[
    &["--rw=randwrite", "--size=1m", "--zonesize=256k"],
    &[
        "--rw=randwrite",
        "--size=1m",
        "--zonesize=256k",
        "--max_open_zones=2",
    ],
    &[
        "--rw=randwrite",
        "--size=1m",
        "--zonesize=256k",
        "--max_open_zones=2",
        "--io_size=2m",
    ],
    &[
        "--rw=randwrite",
        "--size=1m",
        "--zonesize=128k",
        "--max_open_zones=3",
        "--job_max_open_zones=2",
        "--io_size=3m",
    ],
    &[
        "--rw=randwrite",
        "--size=1m",
        "--zonesize=256k",
        "--zonecapacity=200k",
        "--io_size=3m",
    ],
    &[
        "--rw=randwrite",
        "--size=1m",
        "--zonesize=256k",
        "--max_open_zones=1",
        "--io_size=2m",
        "--zone_reset_threshold=0.1",
        "--zone_reset_frequency=0.5",
    ],
    &[
        "--rw=randrw",
        "--size=1m",
        "--zonesize=256k",
        "--max_open_zones=2",
        "--io_size=2m",
    ],
    &[
        "--rw=randrw",
        "--size=1m",
        "--zonesize=256k",
        "--io_size=2m",
        "--bsrange=4k-16k",
    ],
    &[
        "--rw=write",
        "--size=1m",
        "--zonesize=256k",
        "--zonecapacity=192k",
        "--bs=64k",
    ],
    &["--rw=write", "--size=4z", "--zonesize=256k", "--bs=16k"],
    // A trim resets its zone.
    &["--rw=trimwrite", "--size=1m", "--zonesize=64k", "--bs=64k"],
    &["--rw=trim", "--size=1m", "--zonesize=64k", "--bs=64k"],
    // Rounded to whole zones, as fio does (fio 3.33 fails an assertion when such a
    // job also wraps: io_size beyond the region).
    &[
        "--rw=randwrite",
        "--offset=4k",
        "--size=600k",
        "--zonesize=256k",
    ],
    &[
        "--rw=randwrite",
        "--offset=260k",
        "--size=700k",
        "--zonesize=256k",
    ],
    &[
        "--rw=randwrite",
        "--offset=4k",
        "--size=900k",
        "--zonesize=128k",
        "--max_open_zones=2",
    ],
];

#[test]
fn zbd_sequences_match_fio() {
    if !have_fio() {
        return;
    }
    // fio logs a close and an open where it starts a file over; ferrio keeps it open.
    let io = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .filter(|l| !l.ends_with(" open") && !l.ends_with(" close"))
            .collect()
    };
    common::cases::each_case(ZBD_JOBS, |opts| {
        let (f, r) = both_in("--zonemode=zbd", opts);
        let (f, r) = (io(f), io(r));
        assert!(f.len() > 8, "{opts:?}: fio logged only {f:?}");
        if let Some(i) = (0..f.len().max(r.len())).find(|&i| f.get(i) != r.get(i)) {
            panic!(
                "{opts:?}: first difference at line {}: fio {:?}, ferrio {:?}",
                i + 1,
                f.get(i),
                r.get(i)
            );
        }
    });
}

/// The normal output's "; N zone resets" is fio's count.
#[test]
fn zone_reset_counts_match_fio() {
    if !have_fio() {
        return;
    }
    for opts in [
        &["--max_open_zones=2", "--io_size=4m"][..],
        &["--io_size=3m", "--zonecapacity=200k"][..],
        &[
            "--max_open_zones=1",
            "--io_size=2m",
            "--zone_reset_threshold=0.1",
            "--zone_reset_frequency=0.5",
        ][..],
    ] {
        let d = scratch();
        let mut lines = Vec::new();
        for tool in ["fio", "ferrio"] {
            let f = std::fs::File::create(d.path().join("data")).unwrap();
            f.set_len(1 << 20).unwrap();
            let mut cmd = if tool == "fio" {
                Command::new("fio")
            } else {
                ferrio()
            };
            let o = cmd
                .current_dir(d.path())
                .args([
                    "--name=j",
                    "--ioengine=psync",
                    "--filename=data",
                    "--size=1m",
                    "--bs=4k",
                ])
                .args([
                    "--randrepeat=0",
                    "--randseed=1234",
                    "--rw=randwrite",
                    "--zonemode=zbd",
                    "--zonesize=256k",
                ])
                .args(opts)
                .output()
                .unwrap();
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            let line = out
                .lines()
                .find(|l| l.contains("zone resets"))
                .unwrap_or_default();
            lines.push(line.rsplit("; ").next().unwrap_or_default().to_string());
        }
        assert!(
            lines[0].ends_with("zone resets") && !lines[0].starts_with("0 "),
            "{opts:?}: {lines:?}"
        );
        assert_eq!(lines[0], lines[1], "{opts:?}");
    }
}

#[test]
fn zone_options_are_checked_as_fio_does() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--zonesize=8k"],
            "zonemode=none and zonesize are not compatible",
        ),
        (&["--zonemode=strided"], "zonesize must be specified"),
        (&["--size=2z"], "needs a zone size"),
        (
            &["--zonemode=strided", "--zonesize=8k", "--zoneskip=1.5z"],
            "unexpected zone value",
        ),
        (
            &["--zonemode=zbd", "--zonesize=8k", "--zonecapacity=16k"],
            "zonecapacity 16384 is larger than zonesize 8192",
        ),
        (&["--zone_reset_threshold=1.5"], "out of range"),
    ];
    for (opts, want) in cases {
        let o = ferrio()
            .args(["--name=j", "--ioengine=null", "--size=1m", "--parse-only"])
            .args(*opts)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{opts:?}: {err}");
    }
}
