//! The threads a run starts together set themselves up before any of them does I/O
//! (src/runner/start_gate.rs). Without that line, the first clone of a short job
//! could finish, and with `unlink=1` remove the file it shares with its siblings,
//! before a later clone had opened it: that clone then failed with ENOENT. fio 3.33
//! has that race (8 of 20 runs of the job below failed there on the VM this was
//! written on, and in ferrio before the line).

mod common;
use common::*;

#[test]
fn clones_sharing_a_file_all_open_it_before_one_unlinks_it() {
    let d = scratch();
    let f = file_in(d.path(), "shared");
    for run in 0..25 {
        let v = run_json(&[
            "--name=j",
            &format!("--filename={f}"),
            "--numjobs=4",
            "--size=4k",
            "--rw=read",
            "--unlink=1",
            "--group_reporting",
        ]);
        assert_eq!(v["jobs"][0]["error"], 0, "run {run}: {v}");
        assert_eq!(dir_counts(&v, "read"), (4 * 4096, 4), "run {run}");
        assert!(
            !std::path::Path::new(&f).exists(),
            "run {run}: not unlinked"
        );
    }
}

/// A job whose thread fails its setup (direct=1 with a block size the file's device
/// refuses, found when the thread opens the file) is not waited for by the job
/// started beside it.
#[test]
fn a_thread_that_fails_its_setup_holds_no_one_back() {
    let d = scratch();
    let missing = file_in(d.path(), "missing");
    let ok = file_in(d.path(), "ok");
    let out = ferrio()
        .args([
            "--name=bad",
            &format!("--filename={missing}"),
            "--rw=read",
            "--size=4k",
            "--ioengine=libaio",
            "--direct=1",
            "--bs=1",
            "--name=good",
            &format!("--filename={ok}"),
            "--rw=write",
            "--size=64k",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let v = parse_json(&out.stdout);
    assert_eq!(job_named(&v, "good")["write"]["io_bytes"], 65536, "{v}");
    assert_ne!(job_named(&v, "bad")["error"], 0, "{v}");
}
