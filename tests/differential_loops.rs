//! loops > 1 issue fio 3.33's I/O sequence: ferrio's and fio's `write_iolog` (opens and
//! closes included) are identical line for line. fio ends a pass when every file is done
//! or when the bytes issued over all passes reach io_size · loops (and, for an engine
//! that queues, when this pass queued size= bytes); a new pass closes every file, starts
//! the mix's count over and, with randrepeat, reseeds. A non-uniform file_service_type
//! never ends a pass by its files: a file found done is closed and starts over.
//!
//! Skipped (with a message) when fio is absent, unless FERRIO_REQUIRE_FIO or CI is set.

mod common;
use common::*;
use std::process::Command;

/// The log's lines without their timestamps.
fn lines(log: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    text.lines()
        .map(|l| l.split_once(' ').map_or(l, |(_, r)| r).to_string())
        .collect()
}

/// Run one job under fio and ferrio, each in its own directory with the same relative
/// names; `ferrio_only` goes to ferrio alone (its 3.33 seeding for fio's defaults).
fn assert_same(seeding: &[&str], opts: &[&str], ferrio_only: &[&str]) {
    let d = scratch();
    let mut out = Vec::new();
    for (tool, sub) in [("fio", "f"), ("ferrio", "r")] {
        let cwd = d.path().join(sub);
        std::fs::create_dir_all(cwd.join("data")).unwrap();
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            let mut c = ferrio();
            c.args(ferrio_only);
            c
        };
        let o = cmd
            .current_dir(&cwd)
            .args([
                "--name=j",
                "--ioengine=psync",
                "--size=1M",
                "--directory=data",
                "--write_iolog=io.log",
            ])
            .args(seeding)
            .args(opts)
            .output()
            .expect("run");
        assert!(
            o.status.success(),
            "{tool} {opts:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.push(lines(&cwd.join("io.log")));
    }
    let (f, r) = (&out[0], &out[1]);
    assert!(f.len() > 100, "{opts:?}: fio logged {f:?}");
    common::iologs::assert_same_lines(opts, f, r);
}

const SEEDED: &[&str] = &["--randrepeat=0", "--randseed=1234"];

/// With a randseed (fio 3.33 and later seed alike).
#[test]
fn seeded_loops_match_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        // A mixed sequential pass ends when one direction reaches the end; the last
        // pass stops at io_size · loops bytes over all passes.
        &["--rw=rw", "--bsrange=4k-16k", "--loops=2"],
        &["--rw=rw", "--bsrange=4k-16k", "--loops=3"],
        &[
            "--rw=rw",
            "--bs=4k",
            "--rwmixread=30",
            "--nrfiles=3",
            "--loops=2",
        ],
        // Without a random map no file is ever done: one pass moves it all.
        &[
            "--rw=randrw",
            "--bsrange=4k-16k",
            "--norandommap",
            "--loops=3",
        ],
        // Non-uniform file service: files start over instead of being done.
        &[
            "--rw=read",
            "--bs=4k",
            "--nrfiles=3",
            "--file_service_type=zipf",
            "--loops=2",
        ],
        &[
            "--rw=randread",
            "--bsrange=4k-12k",
            "--nrfiles=3",
            "--file_service_type=zipf",
            "--loops=3",
        ],
        // A queueing engine also ends each pass at size= bytes queued.
        &[
            "--rw=randrw",
            "--bs=4k",
            "--norandommap",
            "--loops=3",
            "--ioengine=libaio",
            "--iodepth=8",
        ],
    ];
    for job in jobs {
        assert_same(SEEDED, job, &[]);
    }
}

/// rw=X:N holes: a step past the end wraps to the start (backwards: to a step before
/// the end) within the pass; only an I/O ending at the file's end makes it done.
#[test]
fn holed_sequential_passes_match_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=write:4k", "--bs=4k", "--nrfiles=2"],
        &["--rw=read:8k", "--bs=4k", "--nrfiles=3", "--loops=2"],
        &["--rw=read:-8k", "--bs=4k", "--nrfiles=2"],
        &[
            "--rw=write:12k",
            "--bsrange=4k-8k",
            "--nrfiles=2",
            "--loops=2",
        ],
    ];
    for job in jobs {
        assert_same(SEEDED, job, &[]);
    }
}

/// openfiles below nrfiles: a closed file is not chosen while openfiles are open
/// (fio's EBUSY), so the I/Os stay on the open files until one is done. The null
/// engine names its files as fio does and opens none.
#[test]
fn openfiles_keeps_io_on_the_open_files_like_fio() {
    if !have_fio() {
        return;
    }
    for fs in ["roundrobin", "random", "sequential", "roundrobin:3", "zipf"] {
        let fs = format!("--file_service_type={fs}");
        for open in ["--openfiles=1", "--openfiles=2"] {
            let job: &[&str] = &[
                "--ioengine=null",
                "--rw=randrw",
                "--bs=4k",
                "--nrfiles=4",
                open,
                &fs,
                "--loops=2",
            ];
            assert_same(SEEDED, job, &[]);
        }
    }
}

/// fio's default seeding (randrepeat=1: each pass reseeded), in ferrio's 3.33 mode.
#[test]
fn repeated_loops_match_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=rw", "--bs=4k", "--rwmixread=30", "--loops=3"],
        &["--rw=rw", "--bs=4k", "--rwmixread=80", "--loops=3"],
        &[
            "--rw=randrw",
            "--bs=4k",
            "--norandommap",
            "--rwmixread=70",
            "--loops=3",
        ],
        &[
            "--rw=rw",
            "--bs=4k",
            "--nrfiles=3",
            "--file_service_type=pareto",
            "--loops=2",
        ],
    ];
    for job in jobs {
        assert_same(&[], job, &["--fio_seeds=3.33"]);
    }
}
