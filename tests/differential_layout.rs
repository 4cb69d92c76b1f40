//! What a job's file setup leaves, against fio 3.33 (fio's extend_file): a job that
//! reads, overwrites (without file_append) or writes with an engine that cannot grow
//! a file (mmap) gets the file written whole first; any other writer only gets it
//! fallocated, so with fallocate=none or keep the file is as long as its writes make
//! it. Each case compares the file's size and bytes after the job with fio's
//! (`--fio_seeds=3.33`, unscrambled buffers: both tools write the same bytes).
//! Skipped, with a message, where fio is absent unless FERRIO_REQUIRE_FIO or CI is set.

mod common;
use common::*;

/// `tool`'s run of `opts` succeeded (else its stderr is the failure).
fn ran(tool: &str, opts: &[&str], out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{tool} {opts:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The file `f` after `opts` ran in a scratch directory where `f` held `before`
/// bytes of zeroes (or was missing).
fn left_by(tool: &str, before: Option<usize>, opts: &[&str]) -> Vec<u8> {
    let d = scratch();
    let f = d.path().join("f");
    if let Some(n) = before {
        std::fs::write(&f, vec![0u8; n]).unwrap();
    }
    let mut cmd = tool_cmd(tool);
    if tool == "ferrio" {
        cmd.arg("--fio_seeds=3.33");
    }
    let out = cmd
        .current_dir(d.path())
        .args(["--name=j", "--filename=f", "--scramble_buffers=0"])
        .args(opts)
        .output()
        .unwrap();
    ran(tool, opts, &out);
    std::fs::read(&f).unwrap()
}

#[test]
fn a_writers_file_is_only_fallocated_and_grows_with_its_writes_like_fio() {
    if !have_fio() {
        return;
    }
    let ten = ["--size=1M", "--number_ios=10"];
    // (file before the job, the job's options, the size fio leaves)
    let cases: &[(Option<usize>, &[&str], u64)] = &[
        (None, &["--rw=write", "--fallocate=none"], 40 << 10),
        (None, &["--rw=write", "--fallocate=keep"], 40 << 10),
        (None, &["--rw=randwrite", "--fallocate=none"], 0),
        (None, &["--rw=write"], 1 << 20),
        (None, &["--rw=write", "--fallocate=truncate"], 1 << 20),
        (
            None,
            &["--rw=write", "--ioengine=mmap", "--fallocate=none"],
            1 << 20,
        ),
        (None, &["--rw=read", "--fallocate=none"], 1 << 20),
        (
            Some(64 << 10),
            &["--rw=write", "--file_append=1"],
            (64 << 10) + (1 << 20),
        ),
        (
            Some(64 << 10),
            &[
                "--rw=write",
                "--file_append=1",
                "--overwrite=1",
                "--fallocate=none",
            ],
            (64 << 10) + (40 << 10),
        ),
        // (On a new file: an existing one fio would write anew, where ferrio keeps
        // what is there, docs/buffers.md.)
        (
            None,
            &["--rw=write", "--overwrite=1", "--fallocate=none"],
            1 << 20,
        ),
    ];
    for &(before, opts, size) in cases {
        let opts: Vec<&str> = ten.iter().chain(opts).copied().collect();
        let (fio, ours) = (
            left_by("fio", before, &opts),
            left_by("ferrio", before, &opts),
        );
        if size > 0 {
            assert_eq!(fio.len() as u64, size, "{opts:?}: fio's file");
        }
        assert_eq!(ours.len(), fio.len(), "{opts:?}: the file's size");
        assert!(ours == fio, "{opts:?}: the file's bytes differ from fio's");
    }
}

/// The mode of the file `opts` creates in a fresh directory (umask 022 in both runs,
/// so the creating mode shows).
fn mode_left_by(tool: &str, opts: &[&str]) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch();
    let out = std::process::Command::new("sh")
        .current_dir(d.path())
        .arg("-c")
        .arg(r#"umask 022; exec "$@""#)
        .arg("sh")
        .arg(tool_path(tool))
        .args(["--name=j", "--filename=f", "--size=64k"])
        .args(opts)
        .output()
        .unwrap();
    ran(tool, opts, &out);
    std::fs::metadata(d.path().join("f"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// fio lays a file out with mode 0644 (extend_file) but creates one at the job's open
/// with 0600 (file_lookup_open): create_on_open (no layout then), a file
/// unlink_each_loop removed. ferrio made every file 0644 before 2026-11-25.
#[test]
fn a_file_created_at_the_jobs_open_is_private_and_a_laid_out_one_is_not_like_fio() {
    if !have_fio() {
        return;
    }
    let cases: &[(&[&str], u32)] = &[
        (&["--rw=write"], 0o644),
        (&["--rw=read"], 0o644),
        (&["--rw=write", "--create_on_open=1"], 0o600),
        (&["--rw=write", "--unlink_each_loop=1", "--loops=2"], 0o600),
    ];
    for (opts, want) in cases {
        let fio = mode_left_by("fio", opts);
        assert_eq!(fio, *want, "fio {opts:?}: {fio:o}");
        let ferrio = mode_left_by("ferrio", opts);
        assert_eq!(ferrio, fio, "{opts:?}: ferrio {ferrio:o}, fio {fio:o}");
    }
}

/// file_append with size= where the file is already within filesize= (the second
/// clone of a job sharing its file, after the first appended up to filesize=): fio
/// runs that thread with no I/O and no error, and so does ferrio (it refused the run
/// before 2026-11-25; without size= both still fail it, tests/differential_sizes.rs).
#[test]
fn file_append_with_size_and_nothing_to_append_runs_the_thread_idle_like_fio() {
    let mut tools = vec!["ferrio"];
    if have_fio() {
        tools.push("fio");
    }
    for (opts, moved) in [
        (&["--rw=write", "--filesize=128k"][..], [0, 128 << 10]),
        (&["--rw=read", "--filesize=128k"][..], [128 << 10, 0]),
    ] {
        for tool in &tools {
            let d = scratch();
            let out = tool_cmd(tool)
                .current_dir(d.path())
                .args(["--name=j", "--filename=f", "--file_append=1", "--size=1m"])
                .args(["--numjobs=2", "--output-format=json"])
                .args(opts)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{tool} {opts:?}: {err}");
            let v = parse_json(&out.stdout);
            let bytes = |j: usize| {
                let j = &v["jobs"][j];
                assert_eq!(j["error"], 0, "{tool} {opts:?}");
                [&j["read"]["io_bytes"], &j["write"]["io_bytes"]].map(|b| b.as_u64().unwrap())
            };
            assert_eq!(bytes(0), moved, "{tool} {opts:?}: the first clone appends");
            assert_eq!(
                bytes(1),
                [0, 0],
                "{tool} {opts:?}: the second has nothing to do"
            );
            let len = std::fs::metadata(d.path().join("f")).unwrap().len();
            assert_eq!(len, 128 << 10, "{tool} {opts:?}");
        }
    }
}
