//! Job lifecycle options through the binary: exec_prerun / exec_postrun (output
//! files, order around the I/O, a failing prerun is the job's error), prio /
//! prioclass, fadvise_hint, write_hint and pre_read.

mod common;
use common::*;
use std::process::Command;

fn in_dir(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run ferrio")
}

#[test]
fn prerun_runs_before_the_io_and_postrun_after_with_their_output_saved() {
    let d = scratch();
    let out = in_dir(
        d.path(),
        &[
            "--name=j",
            "--filename=data",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            // Before the I/O the file is not written yet; after it, it holds 64 KiB.
            "--exec_prerun=echo before; stat -c %s data 2>/dev/null || echo none",
            "--exec_postrun=stat -c %s data",
            "--output-format=json",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The notices go to stderr, so stdout stays valid JSON.
    let v = parse_json(&out.stdout);
    assert_eq!(dir_counts(&v, "write"), (65536, 16));
    assert!(
        err.contains("j : Saving output of prerun in j.prerun.txt"),
        "{err}"
    );
    let pre = std::fs::read_to_string(d.path().join("j.prerun.txt")).unwrap();
    let post = std::fs::read_to_string(d.path().join("j.postrun.txt")).unwrap();
    // Laid out before the thread starts, so the file exists at its full size already
    // (fio lays files out first too); the point is that both ran, in their files.
    assert!(pre.starts_with("before\n"), "{pre}");
    assert_eq!(post.trim(), "65536");
}

#[test]
fn a_failing_prerun_is_the_jobs_error_and_no_io_is_done() {
    let d = scratch();
    let out = in_dir(
        d.path(),
        &[
            "--name=j",
            "--ioengine=null",
            "--size=64k",
            "--exec_prerun=echo oops; exit 3",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("job 'j': exec_prerun 'echo oops; exit 3' failed (exit status: 3)"),
        "{err}"
    );
    let saved = std::fs::read_to_string(d.path().join("j.prerun.txt")).unwrap();
    assert_eq!(saved, "oops\n");
}

#[test]
fn a_failing_postrun_keeps_the_results() {
    let d = scratch();
    let out = in_dir(
        d.path(),
        &[
            "--name=j",
            "--ioengine=null",
            "--size=64k",
            "--exec_postrun=exit 4",
            "--output-format=json",
        ],
    );
    assert!(out.status.success());
    assert_eq!(dir_counts(&parse_json(&out.stdout), "read"), (65536, 16));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exec_postrun 'exit 4' failed"));
}

/// The priority is the thread's: a prerun shell cannot see it, so the job reads its
/// own thread's class back through `ionice -p` of every ferrio thread.
#[test]
fn prio_and_prioclass_set_the_threads_io_priority() {
    let Some(ionice) = common::skip::tool_or_skip("ionice") else {
        return;
    };
    let d = scratch();
    let file = file_in(d.path(), "f");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .args([
            "--name=p",
            &format!("--filename={file}"),
            "--rw=read",
            "--size=64k",
            "--time_based",
            "--runtime=3",
            "--prioclass=3",
            "--output-format=terse",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Look at each thread of the process until one shows the idle class.
    let mut seen = String::new();
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let tasks = std::fs::read_dir(format!("/proc/{}/task", child.id()));
        for t in tasks.into_iter().flatten().flatten() {
            let o = Command::new(&ionice)
                .args(["-p", &t.file_name().to_string_lossy()])
                .output()
                .unwrap();
            seen += &String::from_utf8_lossy(&o.stdout);
        }
        if seen.contains("idle") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen.contains("idle"), "no thread in the idle class: {seen}");
}

#[test]
fn fadvise_write_hint_and_pre_read_run_and_bad_values_are_refused() {
    let d = scratch();
    let file = file_in(d.path(), "f");
    for extra in [
        "--fadvise_hint=0",
        "--fadvise_hint=random",
        "--fadvise_hint=sequential",
        "--write_hint=short",
        "--pre_read=1",
    ] {
        let v = run_json(&[
            "--name=t",
            &format!("--filename={file}"),
            "--rw=randrw",
            "--bs=4k",
            "--size=256k",
            extra,
            "--output-format=json",
        ]);
        let (r, w) = (dir_counts(&v, "read"), dir_counts(&v, "write"));
        assert_eq!(r.1 + w.1, 64, "{extra}");
    }
    for (bad, want) in [
        ("--fadvise_hint=sometimes", "fadvise_hint"),
        ("--prio=8", "prio"),
        ("--write_hint=forever", "write_hint"),
    ] {
        let out = ferrio()
            .args(["--name=t", "--ioengine=null", "--size=4k", bad])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bad}: {err}");
        assert!(err.contains(want), "{bad}: {err}");
    }
}

/// pre_read leaves the job's region in the page cache before the first I/O (and
/// turns invalidate off): after a run whose only I/O is one 4k read, `fincore`
/// shows the whole 1 MiB resident.
#[test]
fn pre_read_fills_the_page_cache() {
    let Some(fincore) = common::skip::tool_or_skip("fincore") else {
        return;
    };
    let d = scratch();
    let file = file_in(d.path(), "f");
    // Synced, so invalidate=1 can drop the pages (dirty ones stay).
    run_json(&[
        "--name=w",
        &format!("--filename={file}"),
        "--rw=write",
        "--size=1m",
        "--end_fsync=1",
    ]);
    let resident = |extra: &str| -> u64 {
        run_json(&[
            "--name=r",
            &format!("--filename={file}"),
            // Random: no readahead (fadvise_hint=1 advises random), so one read
            // brings in one page, not the file.
            "--rw=randread",
            "--size=1m",
            "--number_ios=1",
            "--invalidate=1",
            extra,
            "--output-format=json",
        ]);
        let o = Command::new(&fincore)
            .args(["-b", "-n", "-o", "RES", &file])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    };
    let without = resident("--pre_read=0");
    let with = resident("--pre_read=1");
    assert_eq!(with, 1 << 20, "pre_read left {with} bytes resident");
    assert!(
        without < with,
        "without pre_read {without} bytes were resident already"
    );
}
