//! Job lifecycle options through the binary: exec_prerun / exec_postrun (output
//! files, order around the I/O, a failing prerun is the job's error), create_only,
//! prio / prioclass, fadvise_hint, write_hint and pre_read.

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
/// create_only=1: the files are laid out, no I/O is done, the commands still run, and
/// the normal output shows no job (fio prints no block for a job that did no I/O).
/// The JSON is held to fio 3.33's where both exist.
#[test]
fn create_only_lays_out_the_files_and_does_no_io() {
    let d = scratch();
    let run = |tool: &str, file: &str, format: &str| {
        let out = Command::new(tool_path(tool))
            .current_dir(d.path())
            .args(["--name=j", "--rw=randwrite", "--bs=4k", "--size=1M"])
            .arg(format!("--filename={file}"))
            .args(["--create_only=1", "--exec_postrun=stat -c %s ."])
            .arg(format!("--output-format={format}"))
            .output()
            .expect("run");
        assert!(out.status.success(), "{tool}: {out:?}");
        out
    };
    let out = run("ferrio", "ours", "normal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        std::fs::metadata(d.path().join("ours")).unwrap().len(),
        1 << 20
    );
    assert!(
        text.contains("j: Laying out IO file (1 file / 1MiB)"),
        "{text}"
    );
    assert!(
        !text.contains("groupid=0"),
        "a job with no I/O has no block: {text}"
    );
    assert!(
        d.path().join("j.postrun.txt").exists(),
        "the postrun command ran"
    );
    let ours = parse_json(&run("ferrio", "ours2", "json").stdout);
    assert_eq!(dir_counts(&ours, "write"), (0, 0));
    assert_eq!(ours["jobs"][0]["error"], 0);
    if have_fio() {
        let theirs = parse_json(&run("fio", "theirs", "json").stdout);
        assert_eq!(
            std::fs::metadata(d.path().join("theirs")).unwrap().len(),
            1 << 20
        );
        for key in ["error", "job_runtime"] {
            assert_eq!(ours["jobs"][0][key], theirs["jobs"][0][key], "{key}");
        }
        assert_eq!(dir_counts(&theirs, "write"), dir_counts(&ours, "write"));
    }
}

/// What `probe` says of each thread (`/proc/PID/task/TID`) of a running ferrio
/// with `args`, looked at until `want` shows (at most about 2 s); the child is
/// stopped after.
fn watch_threads(args: &[&str], probe: impl Fn(&std::path::Path) -> String, want: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .args(args)
        .args(["--time_based", "--runtime=3", "--output-format=terse"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = String::new();
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let tasks = std::fs::read_dir(format!("/proc/{}/task", child.id()));
        for t in tasks.into_iter().flatten().flatten() {
            seen += &probe(&t.path());
        }
        if seen.contains(want) {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    seen
}

#[test]
fn prio_and_prioclass_set_the_threads_io_priority() {
    let Some(ionice) = common::skip::tool_or_skip("ionice") else {
        return;
    };
    let d = scratch();
    let file = file_in(d.path(), "f");
    let ionice_of = |task: &std::path::Path| {
        let tid = task.file_name().unwrap().to_string_lossy().to_string();
        let o = Command::new(&ionice).args(["-p", &tid]).output().unwrap();
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let filename = format!("--filename={file}");
    let args = [
        "--name=p",
        &filename,
        "--rw=read",
        "--size=64k",
        "--prioclass=3",
    ];
    let seen = watch_threads(&args, ionice_of, "idle");
    assert!(seen.contains("idle"), "no thread in the idle class: {seen}");
}

/// The names of a running null job's threads, until `want` shows.
fn thread_names_until(extra: &[&str], want: &str) -> String {
    let args = [&["--name=n", "--ioengine=null", "--size=1g"][..], extra].concat();
    let comm =
        |task: &std::path::Path| std::fs::read_to_string(task.join("comm")).unwrap_or_default();
    watch_threads(&args, comm, want)
}

/// comm= (fio 3.42) names the job's threads; Linux keeps 15 bytes of a name.
#[test]
fn comm_names_the_jobs_threads() {
    let seen = thread_names_until(&[], "n.0");
    assert!(seen.contains("n.0"), "the default name: {seen}");
    let seen = thread_names_until(&["--comm=db-bench-writer-7"], "db-bench-writer");
    assert!(seen.lines().any(|l| l == "db-bench-writer"), "{seen}");
    assert!(!seen.contains("n.0"), "{seen}");
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

/// A file `f` in `dir` of `size` written by ferrio and synced, so invalidate=1 can
/// drop its pages (dirty ones stay).
fn synced_file(dir: &std::path::Path, size: &str) -> String {
    let file = file_in(dir, "f");
    run_json(&[
        "--name=w",
        &format!("--filename={file}"),
        "--rw=write",
        &format!("--size={size}"),
        "--end_fsync=1",
    ]);
    file
}

/// How many bytes of `file` are in the page cache (`fincore`).
fn resident_bytes(fincore: &std::path::Path, file: &str) -> u64 {
    let o = Command::new(fincore)
        .args(["-b", "-n", "-o", "RES", file])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
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
    let file = synced_file(d.path(), "1m");
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
        resident_bytes(&fincore, &file)
    };
    let without = resident("--pre_read=0");
    let with = resident("--pre_read=1");
    assert_eq!(with, 1 << 20, "pre_read left {with} bytes resident");
    assert!(
        without < with,
        "without pre_read {without} bytes were resident already"
    );
}

/// invalidate=1 drops the job's region of the file from the page cache, not the
/// whole file (fio's file_invalidate_cache: `file_offset`, `io_size`): a job on the
/// second MiB of a cached 2 MiB file leaves the first MiB resident, and the same job
/// over the whole file leaves almost nothing.
#[test]
fn invalidate_drops_only_the_jobs_region() {
    let Some(fincore) = common::skip::tool_or_skip("fincore") else {
        return;
    };
    let d = scratch();
    let file = synced_file(d.path(), "2m");
    let resident = |region: &[&str]| -> u64 {
        std::fs::read(&file).expect("read the file into the page cache");
        let mut args = vec![
            "--name=r".to_string(),
            format!("--filename={file}"),
            // Random: no readahead, so the one read brings in one page.
            "--rw=randread".into(),
            "--number_ios=1".into(),
            "--invalidate=1".into(),
            "--output-format=json".into(),
        ];
        args.extend(region.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_json(&args);
        resident_bytes(&fincore, &file)
    };
    let whole = resident(&["--size=2m"]);
    let second = resident(&["--offset=1m", "--size=1m"]);
    assert!(
        whole < 1 << 20,
        "invalidating the whole file left {whole} bytes resident"
    );
    assert!(
        second >= 1 << 20,
        "invalidating the second MiB left only {second} bytes resident"
    );
}

/// invalidate=1 drops the cache where fio does: when the job starts and again before
/// verify reads back (fio reopens its files for the read-back), so the read-back reads
/// the file rather than the pages just written, as far as writeback has gone;
/// invalidate=0 drops nothing (`--debug=io`'s `declare unneeded cache` lines, fio's).
#[test]
fn invalidate_drops_the_cache_before_the_verify_read_back() {
    let d = scratch();
    let file = file_in(d.path(), "f");
    let drops = |extra: &str| -> Vec<String> {
        let out = Command::new(env!("CARGO_BIN_EXE_ferrio"))
            .args([
                "--name=v",
                &format!("--filename={file}"),
                "--rw=write",
                "--bs=4k",
                "--size=16k",
                "--verify=crc32c",
                "--verify_state_save=0",
                "--debug=io",
                "--output-format=terse",
                extra,
            ])
            .output()
            .expect("run ferrio");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{text}");
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("io ")).collect();
        // Where each drop falls: before the writes (ddir=1) or the reads (ddir=0).
        let mut seen = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if l.contains("declare unneeded cache") {
                assert!(l.ends_with(&format!("{file}: 0/16384")), "{l}");
                let next = lines.get(i + 1).copied().unwrap_or("");
                seen.push(if next.contains("ddir=1") {
                    "before writes".to_string()
                } else {
                    format!("before: {next}")
                });
            }
        }
        seen
    };
    let on = drops("--invalidate=1");
    assert_eq!(on.len(), 2, "{on:?}");
    assert_eq!(on[0], "before writes");
    assert!(on[1].contains("ddir=0"), "{on:?}");
    assert_eq!(drops("--invalidate=0"), Vec::<String>::new());
}

/// end_fsync syncs when the writes end, before verify reads back (fio's do_io ends
/// with it, then do_verify reads), so with invalidate=1 the read-back reads the
/// device: the child's block input (ru_inblock, 512-byte units) covers the 4 MiB
/// checked. (Before, ferrio synced after the read-back, which then read the dirty
/// pages still cached and no block came from the device.)
#[test]
fn end_fsync_comes_before_the_verify_read_back() {
    let d = scratch();
    let file = file_in(d.path(), "f");
    // Reaped below by wait4 (for its rusage), not by Child::wait.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .args([
            "--name=v",
            &format!("--filename={file}"),
            "--rw=write",
            "--bs=64k",
            "--size=4m",
            "--verify=crc32c",
            "--verify_state_save=0",
            "--end_fsync=1",
            "--output-format=terse",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run ferrio");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: our own child's pid (not reaped by anyone else), and pointers to locals
    // that outlive the call.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "ferrio failed: status {status}"
    );
    let read_from_device = usage.ru_inblock as u64 * 512;
    assert!(
        read_from_device >= 2 << 20,
        "the read-back of 4 MiB read {read_from_device} bytes from the device \
         (the temporary directory must be on a disk-backed file system)"
    );
}
