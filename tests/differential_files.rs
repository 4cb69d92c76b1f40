//! openfiles below nrfiles with engines that open files: ferrio opens a file when it
//! is first chosen and closes it when it is done, a file closed with I/Os in flight
//! stays open ("closing") until they complete and is passed over meanwhile, and a
//! choice that finds openfiles open waits for a completion (fio's EBUSY). The I/O
//! sequence (opens and closes included) is fio 3.33's `write_iolog` line for line
//! with psync, mmap and with libaio at iodepth 8 (buffered libaio completes every I/O
//! inside io_submit, so fio's order does not depend on timing); with io_uring at
//! iodepth 8 on cached files (`invalidate=0`) on tmpfs, where no page lock makes a
//! read asynchronous.
//! falloc, ftruncate and e4defrag too. Elsewhere the order depends on when the
//! kernel posts completions, so there only
//! the rules are checked: never more than openfiles descriptors open (the
//! `--debug=file` lines).
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

const COMMON: &[&str] = &[
    "--name=j",
    "--size=256k",
    "--directory=data",
    "--write_iolog=io.log",
    "--randrepeat=0",
    "--randseed=1234",
    "--bsrange=4k-16k",
    "--nrfiles=5",
    "--loops=2",
];

/// Run one job under `tool` in `cwd` (made here); its iolog lines, and its stdout
/// (where both tools write `--debug` lines) then stderr.
fn run(tool: &str, cwd: &std::path::Path, opts: &[&str]) -> (Vec<String>, String) {
    std::fs::create_dir_all(cwd.join("data")).unwrap();
    let mut cmd = if tool == "fio" {
        Command::new("fio")
    } else {
        ferrio()
    };
    let o = cmd
        .current_dir(cwd)
        .args(COMMON)
        .args(opts)
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{tool} {opts:?} failed: {err}");
    (lines(&cwd.join("io.log")), err)
}

fn assert_same_in(opts: &[&str], d: tempfile::TempDir) {
    let (f, _) = run("fio", &d.path().join("f"), opts);
    let (r, _) = run("ferrio", &d.path().join("r"), opts);
    assert!(f.len() > 50, "{opts:?}: fio logged {f:?}");
    assert!(
        f.iter().filter(|l| l.ends_with(" close")).count() > 2,
        "{opts:?}: fio closed no file during the run: {f:?}"
    );
    common::iologs::assert_same_lines(opts, &f, &r);
}

/// Every job with `engine` under both tools, the jobs side by side (fio takes a
/// third of a second to start).
fn all_same(engine: &[&str], jobs: &[&[&str]]) {
    all_same_in(engine, jobs, scratch)
}

/// [`all_same`] with each job's files in a directory `dir` makes.
fn all_same_in(engine: &[&str], jobs: &[&[&str]], dir: fn() -> tempfile::TempDir) {
    std::thread::scope(|s| {
        let runs: Vec<_> = jobs
            .iter()
            .map(|job| {
                s.spawn(move || {
                    let opts: Vec<&str> = engine.iter().chain(job.iter()).copied().collect();
                    assert_same_in(&opts, dir())
                })
            })
            .collect();
        for r in runs {
            if let Err(e) = r.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

#[test]
fn psync_opens_and_closes_files_as_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &[
            "--rw=randrw",
            "--openfiles=1",
            "--file_service_type=roundrobin",
        ],
        &[
            "--rw=randrw",
            "--openfiles=2",
            "--file_service_type=sequential",
        ],
        &[
            "--rw=read",
            "--openfiles=2",
            "--file_service_type=roundrobin:2",
        ],
        // Non-uniform choices: a file found done is closed and starts over.
        &["--rw=read", "--openfiles=2", "--file_service_type=zipf"],
        &["--rw=read", "--openfiles=3", "--file_service_type=normal"],
    ];
    all_same(&["--ioengine=psync"], jobs);
}

/// mmap maps a file when it is opened and unmaps it before it is closed.
#[test]
fn mmap_maps_files_as_they_open_as_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=randrw", "--openfiles=2", "--file_service_type=random"],
        &["--rw=read", "--openfiles=2", "--file_service_type=zipf"],
    ];
    all_same(&["--ioengine=mmap"], jobs);
}

/// iodepth 8: a file found done is closed while its I/Os are in flight; it stays
/// open, is passed over, and a choice of a closed file reaps one completion first.
/// With zipf/pareto/normal a closing file is not done: a choice landing on it is
/// drawn again.
#[test]
fn libaio_at_depth_closes_files_when_their_ios_complete_as_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &[
            "--rw=randrw",
            "--openfiles=3",
            "--file_service_type=random:2",
        ],
        &[
            "--rw=read",
            "--openfiles=1",
            "--file_service_type=roundrobin:3",
        ],
        &["--rw=read", "--openfiles=3", "--file_service_type=zipf:1.2"],
        &["--rw=randrw", "--openfiles=2", "--file_service_type=zipf"],
        &["--rw=read", "--openfiles=3", "--file_service_type=normal"],
    ];
    all_same(&["--ioengine=libaio", "--iodepth=8"], jobs);
}

/// A scratch directory on tmpfs (/dev/shm): no writeback and (without swap) no
/// reclaim ever locks its pages.
fn tmpfs_scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("ferrio-test-")
        .tempdir_in("/dev/shm")
        .expect("a directory in /dev/shm")
}

/// io_uring at iodepth 8: the ring submits with GETEVENTS, as fio does, so a
/// completion is visible at the same reap points as fio's. The order is the same in
/// every run when every read and write completes inside its submit: the files are
/// cached (`invalidate=0`) and on tmpfs. A cached read goes asynchronous (to io-wq,
/// completing whenever it runs) only when it cannot take a page's lock without
/// waiting; on a disk file system writeback takes those locks at any time (with an
/// fsync'ing dd beside it, 2 runs in about 30 differed on ext4), on tmpfs nothing
/// does: no writeback, and without swap no reclaim of its pages (this job's own
/// writes are synchronous with its reads). 16 runs beside an fsync'ing dd and a
/// CPU spinner, load 12, all gave fio's order. Only jobs whose fio log is the same in
/// every run, and under strace, are here (zipf:1.2 and random:2 randrw are not). The
/// engine's own test `a_commit_posts_completions_that_deferred_task_work_holds`
/// checks the mechanism deterministically.
#[test]
fn io_uring_at_depth_closes_files_when_their_ios_complete_as_fio() {
    if !have_fio() {
        return;
    }
    let shm = std::path::Path::new("/dev/shm");
    let on_tmpfs = Command::new("stat")
        .args(["-f", "-c", "%t"])
        .arg(shm)
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "1021994");
    if !on_tmpfs {
        skip::skip("/dev/shm is not a tmpfs mount");
        return;
    }
    let jobs: &[&[&str]] = &[
        &[
            "--rw=read",
            "--openfiles=3",
            "--file_service_type=roundrobin",
        ],
        &[
            "--rw=read",
            "--openfiles=1",
            "--file_service_type=roundrobin:3",
        ],
        &["--rw=randrw", "--openfiles=2", "--file_service_type=zipf"],
        &["--rw=read", "--openfiles=3", "--file_service_type=normal"],
    ];
    all_same_in(
        &["--ioengine=io_uring", "--iodepth=8", "--invalidate=0"],
        jobs,
        tmpfs_scratch,
    );
}

/// The null engine at iodepth 8 (it completes at the reap after its queue) gives fio
/// 3.33's sequence, zipf/normal file service with randrw included. (The sim engine's
/// completions follow its device model, not fio's null engine.) fio 3.33's null engine
/// logs each I/O it has to queue again (its FIO_Q_BUSY) a second time, on the line
/// after; ferrio logs each I/O once, so fio's log is compared with its repeated lines
/// folded (docs/random.md).
#[test]
fn null_at_depth_closes_files_as_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=randrw", "--openfiles=2", "--file_service_type=zipf"],
        &["--rw=randrw", "--openfiles=3", "--file_service_type=normal"],
        &["--rw=randrw", "--openfiles=1", "--file_service_type=random"],
        &["--rw=read", "--openfiles=2", "--file_service_type=zipf:1.2"],
    ];
    std::thread::scope(|s| {
        let runs: Vec<_> = jobs
            .iter()
            .map(|job| {
                s.spawn(move || {
                    let d = scratch();
                    fn with<'a>(engine: &[&'a str], job: &[&'a str]) -> Vec<&'a str> {
                        let mut o = vec!["--iodepth=8"];
                        o.extend_from_slice(engine);
                        o.extend_from_slice(job);
                        o
                    }
                    let (mut f, _) =
                        run("fio", &d.path().join("f"), &with(&["--ioengine=null"], job));
                    let repeated = f.windows(2).filter(|w| w[0] == w[1]).count();
                    f.dedup();
                    assert!(f.len() > 50, "{job:?}: fio logged {f:?}");
                    assert!(
                        f.iter().filter(|l| l.ends_with(" close")).count() > 2,
                        "{job:?}: fio closed no file during the run"
                    );
                    let (mut r, _) = run(
                        "ferrio",
                        &d.path().join("r"),
                        &with(&["--ioengine=null"], job),
                    );
                    // (A block may come twice in a row in both: fold ferrio's too.)
                    r.dedup();
                    assert_eq!(f, r, "{job:?} (fio repeated {repeated} lines)");
                })
            })
            .collect();
        for r in runs {
            if let Err(e) = r.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

/// falloc reopens each file read-write when the loop opens it (as fio's falloc
/// opens its files O_RDWR) and drops it at the close; ftruncate and e4defrag take
/// each I/O's descriptor: all three open and close files as fio does.
#[test]
fn falloc_and_ftruncate_open_and_close_files_as_fio() {
    if !have_fio() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=randrw", "--openfiles=2", "--file_service_type=random"],
        &["--rw=write", "--openfiles=1", "--file_service_type=zipf"],
    ];
    all_same(&["--ioengine=falloc"], jobs);
    // ftruncate's writes set the size; its reads fail (EINVAL) in both.
    let jobs: &[&[&str]] = &[&[
        "--rw=randwrite",
        "--openfiles=2",
        "--file_service_type=roundrobin",
    ]];
    all_same(&["--ioengine=ftruncate"], jobs);
}

/// Whether `dir` is on ext4 (`stat -f`'s type: EXT4_SUPER_MAGIC).
fn on_ext4(dir: &std::path::Path) -> bool {
    let o = Command::new("stat")
        .args(["-f", "-c", "%t"])
        .arg(dir)
        .output()
        .expect("stat");
    String::from_utf8_lossy(&o.stdout).trim() == "ef53"
}

/// e4defrag moves each write's blocks from the donor: on ext4 every write succeeds
/// and the whole sequence is fio's; elsewhere the first write fails in both (ENOTTY)
/// and the lines up to it are still fio's.
#[test]
fn e4defrag_opens_and_closes_files_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let opts = [
        "--ioengine=e4defrag",
        "--donorname=donor",
        "--filesize=64k",
        "--rw=randwrite",
        "--openfiles=2",
        "--file_service_type=random",
        "--continue_on_error=none",
    ];
    let both: Vec<(Vec<String>, String)> = ["fio", "ferrio"]
        .iter()
        .map(|tool| {
            let cwd = d.path().join(tool);
            std::fs::create_dir_all(cwd.join("data")).unwrap();
            let cmd = if *tool == "fio" {
                Command::new("fio")
            } else {
                ferrio()
            };
            let o = { cmd }
                .current_dir(&cwd)
                .args(COMMON)
                .args(opts)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            (lines(&cwd.join("io.log")), err)
        })
        .collect();
    let (f, r) = (&both[0].0, &both[1].0);
    if on_ext4(d.path()) {
        assert!(f.len() > 50, "fio logged {f:?}: {}", both[0].1);
        assert!(
            f.iter().filter(|l| l.ends_with(" close")).count() > 2,
            "{f:?}"
        );
    } else {
        assert!(f.iter().any(|l| l.ends_with(" open")), "{f:?}");
    }
    assert_eq!(f, r, "fio's log, then ferrio's: {}", both[1].1);
}

/// The most descriptors open at once, from the `--debug=file` lines, and how many
/// opens there were.
fn most_open(stderr: &str) -> (usize, usize) {
    let (mut open, mut most, mut opens) = (0usize, 0usize, 0usize);
    for l in stderr.lines().filter(|l| l.starts_with("file ")) {
        if l.contains(" fd open ") {
            open += 1;
            opens += 1;
            most = most.max(open);
        } else if l.contains(" fd close ") {
            open = open.checked_sub(1).expect("a close without an open");
        }
    }
    (most, opens)
}

/// Never more than openfiles descriptors open, whatever the engine's completion
/// order (checked on ferrio alone: this holds for any timing).
#[test]
fn no_more_than_openfiles_descriptors_are_ever_open() {
    for engine in ["psync", "libaio", "io_uring", "posixaio", "mmap"] {
        let cases = [
            ("randrw", "random", 2),
            ("read", "zipf", 2),
            ("randrw", "roundrobin:2", 1),
        ];
        for (rw, fs, open) in cases {
            let d = scratch();
            let opts = [
                format!("--ioengine={engine}"),
                "--iodepth=8".into(),
                format!("--rw={rw}"),
                format!("--openfiles={open}"),
                format!("--file_service_type={fs}"),
                "--debug=file".into(),
            ];
            let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
            let (log, err) = run("ferrio", d.path(), &opts);
            let (most, opens) = most_open(&err);
            assert!(
                most <= open && most >= 1 && opens > open,
                "{opts:?}: at most {most} open at once ({opens} opens), openfiles={open}: {err}"
            );
            // Every I/O in the log goes to a file the log says is open.
            let mut is_open = std::collections::HashSet::new();
            for l in log.iter().skip(1) {
                let (file, what) = l.split_once(' ').unwrap();
                match what {
                    "add" => {}
                    "open" => assert!(is_open.insert(file), "{opts:?}: {file} opened twice"),
                    "close" => assert!(is_open.remove(file), "{opts:?}: {file} not open"),
                    _ => assert!(is_open.contains(file), "{opts:?}: I/O to closed {file}"),
                }
                assert!(is_open.len() <= open, "{opts:?}: {is_open:?} open");
            }
        }
    }
}

/// Engines that hold every file for the whole run, and the paths that work on all
/// files at once, are refused with openfiles below nrfiles, touching nothing.
#[test]
fn engines_that_hold_files_are_refused_below_nrfiles() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--ioengine=cpuio"],
            &["ioengine=cpuio", "psync", "falloc", "e4defrag"],
        ),
        (
            &["--ioengine=io_uring", "--registerfiles=1"],
            &["registerfiles", "at least nrfiles"],
        ),
        (
            &["--ioengine=libaio", "--unlink_each_loop=1", "--loops=2"],
            &["unlink_each_loop"],
        ),
    ];
    for (opts, wanted) in cases {
        let d = scratch();
        let dir = format!("--directory={}", path_str(d.path()));
        let out = ferrio()
            .args([
                "--name=o",
                "--nrfiles=4",
                "--openfiles=2",
                "--size=64k",
                &dir,
            ])
            .args(*opts)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{opts:?}: {err}");
        assert!(
            err.contains("openfiles=2 is below nrfiles=4"),
            "{opts:?}: {err}"
        );
        for w in *wanted {
            assert!(err.contains(w), "{opts:?}: no {w:?} in {err}");
        }
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            0,
            "nothing touched"
        );
    }
}

/// The tids of the `--debug=file` "extend file" lines, by file name.
fn layout_tids(stderr: &str) -> std::collections::BTreeMap<String, String> {
    stderr
        .lines()
        .filter(|l| l.starts_with("file ") && l.contains(" extend file "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let tid = w.nth(1).unwrap().to_string();
            let name = l.split(" extend file ").nth(1).unwrap();
            (name.split(',').next().unwrap().to_string(), tid)
        })
        .collect()
}

/// create_serialize=0: each job's files are laid out on a thread of its own (two
/// jobs, two distinct thread ids; with the default, one thread for all), with the
/// same bytes (fio's, when fio is here) and sizes, and the layout lines in job order.
#[test]
fn create_serialize_0_lays_each_jobs_files_out_on_its_own_thread() {
    let d = scratch();
    let mut laid = Vec::new();
    for serialize in ["0", "1"] {
        let cwd = d.path().join(serialize);
        std::fs::create_dir_all(&cwd).unwrap();
        let o = ferrio()
            .current_dir(&cwd)
            .args([
                &format!("--create_serialize={serialize}"),
                "--randseed=7",
                "--rw=read",
                "--bs=4k",
                "--size=192k",
                "--ioengine=psync",
                "--debug=file",
                "--name=a",
                "--nrfiles=2",
                "--name=b",
                "--nrfiles=2",
            ])
            .output()
            .unwrap();
        // The debug lines are on stdout (as fio's).
        let err =
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        let tids = layout_tids(&err);
        let names: Vec<&str> = tids.keys().map(String::as_str).collect();
        assert_eq!(names, ["a.0.0", "a.0.1", "b.0.0", "b.0.1"], "{err}");
        let (a, b) = (&tids["a.0.0"], &tids["b.0.0"]);
        assert_eq!(a, &tids["a.0.1"], "a job's files on one thread: {err}");
        assert_eq!(b, &tids["b.0.1"], "{err}");
        if serialize == "0" {
            assert_ne!(a, b, "each job on its own thread: {err}");
        } else {
            assert_eq!(a, b, "one thread lays out every file: {err}");
        }
        let out = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = out.lines().filter(|l| l.contains("Laying out")).collect();
        let a = "a: Laying out IO file (1 file / 0MiB)";
        let b = "b: Laying out IO file (1 file / 0MiB)";
        assert_eq!(lines, [a, a, b, b], "{out}");
        let files: Vec<Vec<u8>> = names
            .iter()
            .map(|n| std::fs::read(cwd.join(n)).unwrap())
            .collect();
        assert!(files.iter().all(|f| f.len() == 96 * 1024));
        laid.push(files);
    }
    assert!(laid[0] == laid[1], "the same bytes either way");
    if have_fio() {
        let cwd = d.path().join("fio");
        std::fs::create_dir_all(&cwd).unwrap();
        let o = Command::new("fio")
            .current_dir(&cwd)
            .args([
                "--create_serialize=0",
                "--randseed=7",
                "--rw=read",
                "--bs=4k",
                "--size=192k",
                "--ioengine=psync",
                "--name=a",
                "--nrfiles=2",
                "--name=b",
                "--nrfiles=2",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for (i, n) in ["a.0.0", "a.0.1", "b.0.0", "b.0.1"].iter().enumerate() {
            assert!(
                std::fs::read(cwd.join(n)).unwrap() == laid[0][i],
                "{n}: not fio's bytes"
            );
        }
    }
}

/// nrfiles above the names filename= gives: the job uses the files named, whatever
/// file_service_type picks them. fio 3.33 does so for roundrobin, random and
/// sequential, and dies of signal 11 for zipf, pareto and normal (its distribution
/// spans nrfiles files); ferrio reads the whole size from the one file (docs/random.md).
#[test]
fn nrfiles_above_the_named_files_uses_the_named_ones_for_every_service_type() {
    for fst in [
        "roundrobin",
        "random",
        "sequential",
        "zipf",
        "pareto",
        "normal",
    ] {
        let d = scratch();
        let v = run_json_in(
            d.path(),
            &[
                "--name=j",
                "--filename=f",
                "--nrfiles=2",
                "--size=1M",
                &format!("--file_service_type={fst}"),
            ],
        );
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 256, "{fst}");
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f"], "{fst}: only the named file");
    }
}
