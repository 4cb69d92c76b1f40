//! write_iolog records what fio 3.33 records besides reads and writes: the syncs of
//! fsync=N, fdatasync=N and sync_file_range=..:N (as `sync`/`datasync`/
//! `sync_file_range OFFSET 0`, the offset being the last I/O of the io_u it took),
//! end_fsync's and fsync_on_close's sync at the end of each loop, and a write job's
//! verify reads (after its files are closed and opened again). fio 3.33 syncs again
//! after a read while the writes are still at a multiple of N; so does ferrio with
//! `fio_seeds=3.33`, which every comparison here gives it. Compared with fio's own
//! log line for line, timestamps and directories left out. By default ferrio syncs
//! only right after a write, as fio 3.38 and later (checked on its own log below).
//!
//! Only depth-1 sync and verify_backlog jobs are compared: with iodepth > 1 the
//! offset fio logs for a sync is that of whichever io_u its free list hands out, and
//! where a backlog round falls among the writes, both depend on timing.

mod common;
use common::iologs::normalized;
use common::*;
use std::process::Command;

/// Run one job under fio and under ferrio, each in a directory of its own; return
/// (fio's lines, ferrio's lines).
fn both(opts: &[&str]) -> (Vec<String>, Vec<String>) {
    let d = scratch();
    let mut out = Vec::new();
    for tool in ["fio", "ferrio"] {
        let dir = d.path().join(tool);
        std::fs::create_dir_all(&dir).unwrap();
        let log = d.path().join(format!("{tool}.log"));
        let mut args: Vec<String> = vec![
            "--name=j".into(),
            "--bs=4k".into(),
            "--size=64k".into(),
            "--randrepeat=0".into(),
            "--randseed=1234".into(),
            format!("--directory={}", dir.display()),
            format!("--write_iolog={}", log.display()),
        ];
        args.extend(opts.iter().map(|s| s.to_string()));
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            let mut c = ferrio();
            c.arg("--fio_seeds=3.33");
            c
        };
        // (A verify job leaves its verify state file in the working directory.)
        let o = cmd.current_dir(d.path()).args(&args).output().expect("run");
        assert!(
            o.status.success(),
            "{tool} {args:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.push(normalized(&log, &dir));
    }
    let r = out.pop().unwrap();
    (out.pop().unwrap(), r)
}

/// Each case runs in a thread of its own (most of fio's time is its start-up
/// and shut-down); every mismatch is reported. `expect` must occur in fio's log,
/// so a case cannot pass by both logging nothing of it.
fn check_all(cases: &[(&[&str], &str)]) {
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(opts, expect)| {
                s.spawn(move || {
                    let (f, r) = both(opts);
                    let mut why = Vec::new();
                    if !f.iter().any(|l| l.contains(expect)) {
                        why.push(format!("{opts:?}: fio logged no {expect:?}: {f:#?}"));
                    }
                    if f != r {
                        why.push(format!(
                            "{opts:?}: logs differ\nfio:    {f:?}\nferrio: {r:?}"
                        ));
                    }
                    why
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("case thread"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn syncs_are_logged_as_fio_logs_them() {
    if !have_fio() {
        return;
    }
    check_all(&[
        (&["--ioengine=psync", "--rw=write", "--fsync=4"], " sync "),
        (
            &["--ioengine=psync", "--rw=randwrite", "--fdatasync=4"],
            " datasync ",
        ),
        (
            &[
                "--ioengine=psync",
                "--rw=write",
                "--sync_file_range=wait_before:3",
            ],
            " sync_file_range ",
        ),
        (
            &[
                "--ioengine=libaio",
                "--iodepth=1",
                "--rw=write",
                "--fsync=3",
                "--end_fsync=1",
            ],
            " sync ",
        ),
        (
            &[
                "--ioengine=libaio",
                "--iodepth=1",
                "--rw=randwrite",
                "--fdatasync=4",
            ],
            " datasync ",
        ),
        (
            &["--ioengine=psync", "--rw=write", "--fsync_on_close=1"],
            " sync ",
        ),
        // A read after a sync, the writes still at a multiple of N: synced again
        // (fio 3.33).
        (
            &[
                "--ioengine=psync",
                "--rw=randrw",
                "--fsync=2",
                "--size=128k",
            ],
            " sync ",
        ),
        (
            &[
                "--ioengine=libaio",
                "--iodepth=1",
                "--rw=rw",
                "--rwmixread=80",
                "--fdatasync=3",
            ],
            " datasync ",
        ),
        // A loop's end sync finds the file closed: it is opened and closed for it.
        (
            &[
                "--ioengine=psync",
                "--rw=write",
                "--loops=2",
                "--end_fsync=1",
            ],
            " sync ",
        ),
    ]);
}

#[test]
fn verify_reads_are_logged_as_fio_logs_them() {
    if !have_fio() {
        return;
    }
    let v = ["--verify=crc32c", "--do_verify=1"];
    check_all(&[
        // Sequential: read back by offset.
        (&["--ioengine=psync", "--rw=write", v[0], v[1]], " read "),
        // Random with a random map: read back in the order written.
        (
            &["--ioengine=psync", "--rw=randwrite", v[0], v[1]],
            " read ",
        ),
        (
            &[
                "--ioengine=libaio",
                "--iodepth=4",
                "--rw=randwrite",
                v[0],
                v[1],
            ],
            " read ",
        ),
        // verify_backlog at depth 1: the read-backs between the writes (oldest first
        // with a random map), the rest after them.
        (
            &[
                "--ioengine=psync",
                "--rw=write",
                v[0],
                "--verify_backlog=4",
                "--size=32k",
            ],
            " read ",
        ),
        (
            &[
                "--ioengine=psync",
                "--rw=randwrite",
                v[0],
                "--verify_backlog=3",
                "--size=32k",
            ],
            " read ",
        ),
        // norandommap: by offset again.
        (
            &[
                "--ioengine=psync",
                "--rw=randwrite",
                "--norandommap",
                v[0],
                v[1],
            ],
            " read ",
        ),
        (
            &[
                "--ioengine=libaio",
                "--iodepth=1",
                "--rw=randwrite",
                "--fsync=4",
                "--end_fsync=1",
                v[0],
                v[1],
            ],
            " read ",
        ),
    ]);
}

/// ferrio's own fsync=N by default (fio 3.38 and later): a sync comes right after
/// every N-th write and nowhere else, however the reads fall between the writes.
#[test]
fn by_default_a_sync_follows_only_the_nth_write() {
    for (rw, n, sync) in [
        ("randrw", "2", "fsync"),
        ("rw", "3", "fdatasync"),
        ("randrw", "1", "fsync"),
    ] {
        let d = scratch();
        let log = d.path().join("io.log");
        let o = ferrio()
            .current_dir(d.path())
            .args(["--name=j", "--ioengine=psync", "--bs=4k", "--size=256k"])
            .args(["--randrepeat=0", "--randseed=1234", "--rwmixread=60"])
            .arg(format!("--rw={rw}"))
            .arg(format!("--{sync}={n}"))
            .arg(format!("--write_iolog={}", log.display()))
            .output()
            .expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let lines = normalized(&log, d.path());
        let op = |l: &String| l.split(' ').nth(1).unwrap_or("").to_string();
        let n: usize = n.parse().unwrap();
        let (mut writes, mut syncs) = (0, 0);
        for (i, l) in lines.iter().enumerate() {
            match op(l).as_str() {
                "write" => writes += 1,
                "sync" | "datasync" => {
                    syncs += 1;
                    assert_eq!(op(&lines[i - 1]), "write", "{rw}: line {i}: {lines:#?}");
                }
                _ => {}
            }
        }
        assert!(writes > 4 * n, "{rw}: {lines:#?}");
        assert_eq!(syncs, writes / n, "{rw}: {writes} writes, {syncs} syncs");
    }
}
