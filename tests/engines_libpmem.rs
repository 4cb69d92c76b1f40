//! ioengine=libpmem on temporary files: refused off persistent memory as fio 3.33
//! refuses it, run with libpmem's PMEM_IS_PMEM_FORCE=1; verify round trips; the
//! durability path (flushes, drains, non-temporal stores) counted; the same I/Os and
//! the same bytes as fio 3.33's libpmem engine.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// libpmem's variables, cleared so the caller's environment cannot steer a test.
const PMEM_VARS: &[&str] = &[
    "PMEM_IS_PMEM_FORCE",
    "PMEM_NO_CLWB",
    "PMEM_NO_CLFLUSHOPT",
    "PMEM_NO_MOVNT",
    "PMEM_NO_FLUSH",
];

/// `cmd` with libpmem's variables cleared, then `env` set.
fn with_env(mut cmd: Command, env: &[(&str, &str)]) -> Command {
    for v in PMEM_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// ferrio's libpmem job on `file` with `opts` (each `--opt=value`), JSON output.
fn pmem(file: &str, env: &[(&str, &str)], opts: &[&str]) -> Output {
    // Run beside the file: a verify job's state file lands there, not in the tree.
    let dir = std::path::Path::new(file)
        .parent()
        .expect("a file in a directory");
    with_env(ferrio(), env)
        .current_dir(dir)
        .args(["--name=p", "--ioengine=libpmem", "--output-format=json"])
        .arg(format!("--filename={file}"))
        .args(opts)
        .output()
        .expect("run ferrio")
}

/// The same job, treated as persistent memory (as libpmem's PMEM_IS_PMEM_FORCE=1 does);
/// its JSON job object, once it has exited 0.
fn forced(file: &str, env: &[(&str, &str)], opts: &[&str]) -> serde_json::Value {
    let mut all = vec![("PMEM_IS_PMEM_FORCE", "1")];
    all.extend_from_slice(env);
    let out = pmem(file, &all, opts);
    assert!(
        out.status.success(),
        "{opts:?} {env:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_json(&out.stdout)["jobs"][0].clone()
}

fn ios(job: &serde_json::Value) -> [u64; 2] {
    ["read", "write"].map(|d| job[d]["total_ios"].as_u64().unwrap())
}

fn stat(job: &serde_json::Value, key: &str) -> u64 {
    job[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key} in {job}")) as u64
}

#[test]
fn a_file_off_persistent_memory_is_refused_as_fio_refuses_it() {
    let d = scratch();
    let file = file_in(d.path(), "f");
    let out = pmem(&file, &[], &["--size=256k", "--rw=write"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not on persistent memory") && err.contains("PMEM_IS_PMEM_FORCE=1"),
        "{err}"
    );
    // EOPNOTSUPP in the job's error, as fio reports it; nothing was written.
    let job = &parse_json(&out.stdout)["jobs"][0];
    assert_eq!(
        job["error"].as_i64(),
        Some(libc::EOPNOTSUPP as i64),
        "{job}"
    );
    assert_eq!(ios(job), [0, 0]);
    // PMEM_IS_PMEM_FORCE=0 keeps libpmem's detection's answer.
    let out = pmem(
        &file,
        &[("PMEM_IS_PMEM_FORCE", "0")],
        &["--size=256k", "--rw=write"],
    );
    assert_eq!(out.status.code(), Some(1));
    if have_fio() {
        let fio = with_env(Command::new("fio"), &[])
            .args([
                "--name=p",
                "--ioengine=libpmem",
                "--size=256k",
                "--rw=write",
            ])
            .arg(format!("--filename={file}"))
            .output()
            .expect("run fio");
        assert_eq!(fio.status.code(), Some(1), "fio 3.33 refuses it too");
    }
}

#[test]
fn write_and_verify_crc32c_round_trip_through_the_mapping() {
    let d = scratch();
    let file = file_in(d.path(), "v");
    for rw in ["randwrite", "write"] {
        let job = forced(
            &file,
            &[],
            &[
                "--size=512k",
                "--bs=4k",
                &format!("--rw={rw}"),
                "--verify=crc32c",
            ],
        );
        assert_eq!(job["error"].as_i64(), Some(0), "{job}");
        // Every block written is read back through the mapping and checked.
        assert_eq!(ios(&job), [128, 128], "{rw}");
    }
    // Non-temporal stores with a drain after each write verify as well.
    let job = forced(
        &file,
        &[],
        &[
            "--size=512k",
            "--bs=8k",
            "--rw=randrw",
            "--verify=crc32c",
            "--direct=1",
            "--sync=1",
        ],
    );
    assert_eq!(job["error"].as_i64(), Some(0), "{job}");
}

#[test]
fn the_bytes_in_the_file_are_the_ones_written() {
    // libpmem prepopulates the whole file with the job's buffers and then writes;
    // psync with overwrite=1 lays the file out with the same buffers and writes the
    // same blocks: the two files are the same, byte for byte.
    let d = scratch();
    let (a, b) = (file_in(d.path(), "a"), file_in(d.path(), "b"));
    let common = [
        "--size=256k",
        "--bs=4k",
        "--rw=randwrite",
        "--scramble_buffers=0",
        "--randseed=7",
    ];
    forced(&a, &[], &common);
    run_ok(
        &[
            &["--name=p", "--ioengine=psync", "--overwrite=1"][..],
            &common,
            &[&format!("--filename={b}")],
        ]
        .concat(),
    );
    let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(x.len(), 256 << 10);
    assert!(x == y, "libpmem's file differs from psync's");
    // Not all alike: random buffers, not zeroes.
    assert!(x.iter().filter(|&&c| c == 0).count() < x.len() / 16);
}

#[test]
fn the_durability_path_is_taken_and_counted() {
    let d = scratch();
    let file = file_in(d.path(), "d");
    let base = ["--size=256k", "--bs=4k", "--rw=randwrite"];
    let lines = 64 * 64; // 64 writes of 64 cache lines
                         // Temporal stores: every line flushed, no drain without sync=1.
    let job = forced(&file, &[], &base);
    assert_eq!(ios(&job), [0, 64]);
    assert_eq!(stat(&job, "libpmem_flushed_lines"), lines);
    assert_eq!(stat(&job, "libpmem_drains"), 0);
    assert_eq!(stat(&job, "libpmem_nt_bytes"), 0);
    // sync=1: a drain after each write; fsync=4: one per fsync.
    let job = forced(&file, &[], &[&base[..], &["--sync=1"]].concat());
    assert_eq!(stat(&job, "libpmem_drains"), 64);
    let job = forced(&file, &[], &[&base[..], &["--fsync=4"]].concat());
    // (fio issues 15 fsyncs for 64 writes: none after the last four.)
    assert_eq!(job["sync"]["total_ios"].as_u64(), Some(15), "{job}");
    assert_eq!(stat(&job, "libpmem_drains"), 15);
    // direct=1: non-temporal stores of whole aligned blocks, nothing to flush.
    let job = forced(&file, &[], &[&base[..], &["--direct=1"]].concat());
    assert_eq!(stat(&job, "libpmem_nt_bytes"), 256 << 10);
    assert_eq!(stat(&job, "libpmem_flushed_lines"), 0);
    // libpmem's PMEM_NO_MOVNT: direct=1 falls back to flushed temporal stores.
    let job = forced(
        &file,
        &[("PMEM_NO_MOVNT", "1")],
        &[&base[..], &["--direct=1"]].concat(),
    );
    assert_eq!(stat(&job, "libpmem_nt_bytes"), 0);
    assert_eq!(stat(&job, "libpmem_flushed_lines"), lines);
    // PMEM_NO_FLUSH: no flushes at all (a platform that flushes on power loss).
    let job = forced(&file, &[("PMEM_NO_FLUSH", "1")], &base);
    assert_eq!(stat(&job, "libpmem_flushed_lines"), 0);
    // The flush instruction is named in the normal output: CLFLUSH once libpmem's
    // variables turn the newer two off.
    let out = with_env(
        ferrio(),
        &[
            ("PMEM_IS_PMEM_FORCE", "1"),
            ("PMEM_NO_CLWB", "1"),
            ("PMEM_NO_CLFLUSHOPT", "1"),
        ],
    )
    .args(["--name=p", "--ioengine=libpmem"])
    .arg(format!("--filename={file}"))
    .args(base)
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("lines flushed (clflush)={lines}")),
        "{text}"
    );
    // Reads flush nothing.
    let job = forced(&file, &[], &["--size=256k", "--bs=4k", "--rw=randread"]);
    assert_eq!(ios(&job), [64, 0]);
    assert_eq!(stat(&job, "libpmem_flushed_lines"), 0);
}

#[test]
fn what_libpmem_cannot_do_is_refused_clearly() {
    let d = scratch();
    let file = file_in(d.path(), "e");
    // A character device (device DAX would be one): refused before any I/O. A read
    // job, so nothing is ever written to the device.
    let out = pmem(
        "/dev/zero",
        &[("PMEM_IS_PMEM_FORCE", "1")],
        &["--size=64k", "--rw=read"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("'/dev/zero' is a character device") && err.contains("device DAX"),
        "{err}"
    );
    // A region not at the file's start.
    let out = pmem(
        &file,
        &[("PMEM_IS_PMEM_FORCE", "1")],
        &["--size=64k", "--offset=64k", "--rw=read"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("offset=") && err.contains("65536"), "{err}");
    // Trims: EINVAL, as fio's engine answers them.
    let out = pmem(
        &file,
        &[("PMEM_IS_PMEM_FORCE", "1")],
        &["--size=64k", "--rw=trim"],
    );
    let job = &parse_json(&out.stdout)["jobs"][0];
    assert_eq!(job["error"].as_i64(), Some(libc::EINVAL as i64), "{job}");
    // dev-dax is still refused by a run, with its reason (--parse-only accepts it, as
    // fio's does).
    let out = ferrio()
        .args(["--name=x", "--ioengine=dev-dax", "--filename=/dev/dax0.0"])
        .args(["--size=1m", "--rw=read"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("DAX device"), "{err}");
}

/// One job run by `tool` (fio or ferrio) on `file`, with a write_iolog: the job's
/// JSON object, the file's bytes and the log's lines without their times.
fn run_tool(tool: &str, dir: &Path, opts: &[&str]) -> (serde_json::Value, Vec<u8>, Vec<String>) {
    let file = dir.join(format!("{tool}.dat"));
    let log = dir.join(format!("{tool}.log"));
    let mut cmd = with_env(
        if tool == "fio" {
            Command::new("fio")
        } else {
            ferrio()
        },
        &[("PMEM_IS_PMEM_FORCE", "1")],
    );
    if tool != "fio" {
        cmd.arg("--fio_seeds=3.33");
    }
    let out = cmd
        .args(["--name=p", "--ioengine=libpmem", "--output-format=json"])
        .arg(format!("--filename={}", file.display()))
        .arg(format!("--write_iolog={}", log.display()))
        .args(opts)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{tool} {opts:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let job = parse_json(&out.stdout)["jobs"][0].clone();
    let bytes = std::fs::read(&file).unwrap();
    let name = file.display().to_string();
    let lines = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            // "<time> <file> <action> [offset len]": the time is the tool's own.
            let rest = l.split_once(' ').map_or(l, |(_, r)| r);
            rest.replace(&name, "FILE")
        })
        .collect();
    std::fs::remove_file(&file).unwrap();
    std::fs::remove_file(&log).unwrap();
    (job, bytes, lines)
}

#[test]
fn the_same_ios_and_bytes_as_fio_3_33() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for opts in [
        &["--rw=randwrite", "--bs=4k"][..],
        &["--rw=randrw", "--bs=4k,8k", "--direct=1", "--sync=1"][..],
        &["--rw=randwrite", "--bsrange=1k-16k"][..],
        &["--rw=read", "--bs=16k"][..],
    ] {
        // scramble_buffers=0: fio's scrambling writes the time into each block.
        let opts = [opts, &["--size=256k", "--scramble_buffers=0"]].concat();
        let (f, fb, fl) = run_tool("fio", d.path(), &opts);
        let (r, rb, rl) = run_tool("ferrio", d.path(), &opts);
        assert_eq!(ios(&r), ios(&f), "{opts:?}");
        assert_eq!(r["error"], f["error"], "{opts:?}");
        assert!(fl.len() > 2 && rl == fl, "{opts:?}: write_iolog differs");
        assert!(rb == fb, "{opts:?}: the files' bytes differ");
    }
    // numjobs clones with files of their own (nrfiles=2 each): each file prepopulated
    // by its job and written as fio writes it.
    let opts = [
        "--rw=randwrite",
        "--bs=4k",
        "--size=256k",
        "--numjobs=2",
        "--nrfiles=2",
        "--scramble_buffers=0",
    ];
    let (fd, rd) = (d.path().join("fio"), d.path().join("ferrio"));
    for (tool, dir) in [("fio", &fd), ("ferrio", &rd)] {
        std::fs::create_dir(dir).unwrap();
        let mut cmd = with_env(
            if tool == "fio" {
                Command::new("fio")
            } else {
                let mut c = ferrio();
                c.arg("--fio_seeds=3.33");
                c
            },
            &[("PMEM_IS_PMEM_FORCE", "1")],
        );
        let out = cmd
            .args(["--name=p", "--ioengine=libpmem", "--output-format=json"])
            .arg(format!("--directory={}", dir.display()))
            .args(opts)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for name in ["p.0.0", "p.0.1", "p.1.0", "p.1.1"] {
        let (f, r) = (std::fs::read(fd.join(name)), std::fs::read(rd.join(name)));
        let (f, r) = (f.unwrap(), r.unwrap());
        assert_eq!(f.len(), 128 << 10, "{name}");
        assert!(f == r, "{name}: the files' bytes differ");
    }
}

#[test]
fn an_existing_file_is_prepopulated_whole_then_set_to_the_jobs_size() {
    // As fio: the old contents are rewritten over the file's whole length with the
    // job's buffers, and pmem_map_file then cuts the file to the job's size.
    let d = scratch();
    let file = file_in(d.path(), "x");
    std::fs::write(&file, vec![0xa5u8; 1 << 20]).unwrap();
    let job = forced(&file, &[], &["--size=64k", "--bs=4k", "--rw=read"]);
    assert_eq!(ios(&job), [16, 0]);
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes.len(), 64 << 10);
    assert!(bytes.iter().filter(|&&b| b == 0xa5).count() < bytes.len() / 64);
    // The normal output names the step as fio does.
    let out = with_env(ferrio(), &[("PMEM_IS_PMEM_FORCE", "1")])
        .args(["--name=p", "--ioengine=libpmem", "--size=64k", "--rw=read"])
        .arg(format!("--filename={file}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("p: Prepopulating IO file ({file})"))
            && !text.contains("Laying out"),
        "{text}"
    );
    // No disk statistics for an engine that bypasses the block layer (as fio's).
    assert!(!text.contains("Disk stats"), "{text}");
}
