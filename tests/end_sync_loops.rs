//! end_fsync syncs at the end of every loop, as fio's do_io does, counted as system
//! calls under strace for fio 3.33 and ferrio side by side: loops=3 makes three
//! fsyncs, a time_based job (which wraps inside one do_io) one, and a job without
//! end_fsync none. The write_iolog side of the same rule is in tests/iolog_syncs.rs.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// The fsync(2) calls `tool` made running one job on `file` (strace -f of the whole
/// process tree, written to a file so the tool's own output cannot mix in).
fn fsyncs(strace: &Path, tool: &str, file: &Path, extra: &[&str]) -> usize {
    let _ = std::fs::remove_file(file);
    let trace = file.with_extension(format!("{tool}.trace"));
    let bin = if tool == "ferrio" {
        env!("CARGO_BIN_EXE_ferrio").to_string()
    } else {
        "fio".to_string()
    };
    let out = Command::new(strace)
        .args(["-f", "-qq", "-e", "trace=fsync", "-o"])
        .arg(&trace)
        .arg(bin)
        .args(["--name=j", "--rw=write", "--bs=4k", "--size=64k"])
        .arg(format!("--filename={}", file.display()))
        .args(extra)
        .arg("--output-format=terse")
        .output()
        .unwrap();
    assert!(out.status.success(), "{tool} {extra:?}: {out:?}");
    let text = std::fs::read_to_string(&trace).unwrap();
    text.lines().filter(|l| l.contains("fsync(")).count()
}

#[test]
fn end_fsync_runs_at_the_end_of_each_loop_as_fio() {
    if !have_fio() {
        return;
    }
    let Some(strace) = skip::tool_or_skip("strace") else {
        return;
    };
    let d = scratch();
    let file = d.path().join("f");
    let cases: [(&[&str], usize); 4] = [
        (&["--loops=3", "--end_fsync=1"], 3),
        (&["--loops=1", "--end_fsync=1"], 1),
        (
            &[
                "--loops=3",
                "--end_fsync=1",
                "--time_based",
                "--runtime=300ms",
            ],
            1,
        ),
        (&["--loops=3"], 0),
    ];
    for (extra, want) in cases {
        let theirs = fsyncs(&strace, "fio", &file, extra);
        let ours = fsyncs(&strace, "ferrio", &file, extra);
        assert_eq!(theirs, want, "fio 3.33 with {extra:?}");
        assert_eq!(ours, theirs, "ferrio's fsyncs with {extra:?}");
    }
}
