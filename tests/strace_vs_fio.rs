//! System calls ferrio makes, seen under strace beside fio 3.33's for the same job:
//! end_fsync syncs at the end of every loop, as fio's do_io does (loops=3 makes three
//! fsyncs, a time_based job, which wraps inside one do_io, one, and a job without
//! end_fsync none; the write_iolog side of the same rule is in tests/iolog_syncs.rs),
//! and it syncs the files openfiles closed during the run too (fio opens them for
//! it); sync=dsync opens the job's file with O_DSYNC, sync=1 with O_SYNC; and
//! mem=mmaphuge / mem=shmhuge round the buffers up to hugepage-size. end_syncfs
//! (fio 3.42, which Debian's fio 3.33 lacks) is checked against its HOWTO: one
//! syncfs(2) per file system where end_fsync makes an fsync per file.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// The `syscalls` (strace's -e trace=) calls `tool` made running one write job on
/// `files`, as strace prints them (strace -f of the whole process tree, written to a
/// file so the tool's own output cannot mix in).
fn traced(
    strace: &Path,
    syscalls: &str,
    tool: &str,
    files: &[&Path],
    extra: &[&str],
) -> Vec<String> {
    for f in files {
        let _ = std::fs::remove_file(f);
    }
    let trace = files[0].with_extension(format!("{tool}.trace"));
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    // (In the scratch directory: a verify job leaves its state file in the cwd.)
    let out = Command::new(strace)
        .current_dir(files[0].parent().expect("a file in a directory"))
        .args(["-f", "-qq", "-e", &format!("trace={syscalls}"), "-o"])
        .arg(&trace)
        .arg(tool_path(tool))
        .args(["--name=j", "--rw=write", "--bs=4k", "--size=64k"])
        .arg(format!("--filename={}", names.join(":")))
        .args(extra)
        .arg("--output-format=terse")
        .output()
        .unwrap();
    assert!(out.status.success(), "{tool} {extra:?}: {out:?}");
    let text = std::fs::read_to_string(&trace).unwrap();
    text.lines().map(str::to_string).collect()
}

/// The fsync(2) calls `tool` made running one write job on `files`.
fn fsyncs(strace: &Path, tool: &str, files: &[&Path], extra: &[&str]) -> usize {
    let calls = traced(strace, "fsync", tool, files, extra);
    calls.iter().filter(|l| l.contains("fsync(")).count()
}

/// strace, a scratch directory and the job's file in it; None (skipped) without fio
/// or strace.
fn setup() -> Option<(std::path::PathBuf, tempfile::TempDir, std::path::PathBuf)> {
    if !have_fio() {
        return None;
    }
    let strace = skip::tool_or_skip("strace")?;
    let d = scratch();
    let file = d.path().join("f");
    Some((strace, d, file))
}

#[test]
fn end_fsync_runs_at_the_end_of_each_loop_as_fio() {
    let Some((strace, _d, file)) = setup() else {
        return;
    };
    let cases: [(&[&str], usize); 6] = [
        (&["--loops=3", "--end_fsync=1"], 3),
        // The close right after the loop's sync syncs nothing more (fio's
        // last_was_sync): one fsync, as with either option alone.
        (&["--end_fsync=1", "--fsync_on_close=1"], 1),
        (&["--fsync_on_close=1"], 1),
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
        let theirs = fsyncs(&strace, "fio", &[&file], extra);
        let ours = fsyncs(&strace, "ferrio", &[&file], extra);
        assert_eq!(theirs, want, "fio 3.33 with {extra:?}");
        assert_eq!(ours, theirs, "ferrio's fsyncs with {extra:?}");
    }
}

/// openfiles=1 over three files: each file is closed when its part is written, and
/// end_fsync (each loop) and fsync_on_close (each close, and the loop's end) still
/// sync all three, as fio, which opens a closed file to sync it.
#[test]
fn end_fsync_syncs_the_files_openfiles_closed_as_fio() {
    let Some((strace, d, _)) = setup() else {
        return;
    };
    let paths: Vec<_> = ["a", "b", "c"].iter().map(|n| d.path().join(n)).collect();
    let files: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let cases: [(&[&str], usize); 3] = [
        (&["--end_fsync=1"], 3),
        (&["--end_fsync=1", "--loops=2"], 6),
        (&["--fsync_on_close=1"], 5),
    ];
    for (extra, want) in cases {
        let mut args = vec!["--openfiles=1", "--size=96k"];
        args.extend_from_slice(extra);
        let theirs = fsyncs(&strace, "fio", &files, &args);
        let ours = fsyncs(&strace, "ferrio", &files, &args);
        assert_eq!(theirs, want, "fio 3.33 with {args:?}");
        assert_eq!(ours, theirs, "ferrio's fsyncs with {args:?}");
    }
}

/// The flags of each open of `file` (the part of strace's line after the path).
fn opens_of(strace: &Path, tool: &str, file: &Path, extra: &[&str]) -> Vec<String> {
    let name = format!("\"{}\", ", file.display());
    traced(strace, "openat,open", tool, &[file], extra)
        .iter()
        .filter_map(|l| l.split_once(&name).map(|(_, rest)| rest.to_string()))
        .collect()
}

#[test]
fn sync_dsync_opens_with_o_dsync_as_fio() {
    let Some((strace, _d, file)) = setup() else {
        return;
    };
    for (value, flag) in [("dsync", "O_DSYNC"), ("1", "O_SYNC")] {
        let extra = [format!("--sync={value}")];
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        for tool in ["fio", "ferrio"] {
            let opens = opens_of(&strace, tool, &file, &extra);
            // The job's own open is the one that carries the flag (the lay-out's
            // opens do not, in either tool).
            assert!(
                opens.iter().any(|o| o.contains(&format!("|{flag}"))),
                "{tool} sync={value}: {opens:?}"
            );
            if flag == "O_DSYNC" {
                assert!(
                    !opens.iter().any(|o| o.contains("O_SYNC")),
                    "{tool} sync={value}: {opens:?}"
                );
            }
        }
    }
}

/// Huge pages reserved for one test (as root), given back when dropped.
struct HugePages {
    before: Option<String>,
}

impl HugePages {
    const KNOB: &'static str = "/proc/sys/vm/nr_hugepages";

    /// At least `n` huge pages reserved; None (skipped) where they cannot be.
    fn reserve(n: u64) -> Option<HugePages> {
        let before = std::fs::read_to_string(Self::KNOB).ok()?;
        if before.trim().parse::<u64>().unwrap_or(0) >= n {
            return Some(HugePages { before: None });
        }
        let held = std::fs::write(Self::KNOB, n.to_string()).is_ok()
            && std::fs::read_to_string(Self::KNOB)
                .is_ok_and(|s| s.trim().parse::<u64>().unwrap_or(0) >= n);
        let pages = HugePages {
            before: Some(before),
        };
        if !held {
            skip::skip(&format!("cannot reserve {n} huge pages (needs root)"));
            return None;
        }
        Some(pages)
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            let _ = std::fs::write(Self::KNOB, before.trim());
        }
    }
}

#[test]
fn hugepage_size_rounds_the_huge_page_buffers_as_fio() {
    let Some((strace, _d, file)) = setup() else {
        return;
    };
    let Some(_pages) = HugePages::reserve(8) else {
        return;
    };
    // A 4k job's buffers are far below a huge page: the mapping (or segment) is one
    // huge page of the system's size, or hugepage-size when it is given.
    let cases: [(&str, &[&str], &str); 3] = [
        ("mmap", &["--mem=mmaphuge"], "2097152"),
        ("mmap", &["--mem=mmaphuge", "--hugepage-size=4m"], "4194304"),
        (
            "shmget",
            &["--mem=shmhuge", "--hugepage-size=4m"],
            "4194304",
        ),
    ];
    for (call, extra, want) in cases {
        let hugetlb = if call == "mmap" {
            "MAP_HUGETLB"
        } else {
            "SHM_HUGETLB"
        };
        for tool in ["fio", "ferrio"] {
            let calls = traced(&strace, call, tool, &[&file], extra);
            let sizes: Vec<&str> = calls
                .iter()
                .filter(|l| l.contains(hugetlb))
                .filter_map(|l| l.split(", ").nth(1))
                .collect();
            assert_eq!(sizes, [want], "{tool} {extra:?}: {calls:?}");
        }
    }
}

/// (syncfs, fsync) calls of a job run with `extra`.
fn syncfs_and_fsyncs(strace: &Path, files: &[&Path], extra: &[&str]) -> (usize, usize) {
    let calls = traced(strace, "fsync,syncfs", "ferrio", files, extra);
    let count = |call: &str| calls.iter().filter(|l| l.contains(call)).count();
    (count("syncfs("), count("fsync("))
}

#[test]
fn end_syncfs_syncs_each_file_system_once_per_loop_instead_of_each_file() {
    let Some((strace, d, file)) = setup() else {
        return;
    };
    let second = d.path().join("g");
    // A file on another file system than the scratch directory's, when there is one.
    let shm = Path::new("/dev/shm");
    let dev = |p: &Path| std::os::unix::fs::MetadataExt::dev(&std::fs::metadata(p).unwrap());
    let elsewhere = (shm.is_dir() && dev(shm) != dev(d.path()))
        .then(|| shm.join(format!("ferrio-syncfs-{}", std::process::id())));
    // (files, options, file systems they are on, loops)
    let mut cases: Vec<(Vec<&Path>, &[&str], usize, usize)> = vec![
        (vec![&file], &[], 1, 1),
        (vec![&file, &second], &[], 1, 1),
        (vec![&file], &["--loops=3"], 1, 3),
        // end_fsync and fsync_on_close add no fsync: fio syncs with syncfs alone.
        (vec![&file], &["--end_fsync=1", "--fsync_on_close=1"], 1, 1),
    ];
    if let Some(other) = &elsewhere {
        cases.push((vec![&file, other.as_path()], &[], 2, 1));
    }
    for (files, extra, systems, loops) in cases {
        let args = [&["--end_syncfs=1"], extra].concat();
        let got = syncfs_and_fsyncs(&strace, &files, &args);
        assert_eq!(got, (systems * loops, 0), "{files:?} {extra:?}");
        // Where end_fsync makes one fsync per file and loop (fio's, counted here).
        let fio = fsyncs(
            &strace,
            "fio",
            &files,
            &[extra, &["--end_fsync=1"]].concat(),
        );
        assert_eq!(fio, files.len() * loops, "fio {files:?} {extra:?}");
    }
    if let Some(other) = &elsewhere {
        let _ = std::fs::remove_file(other);
    }
    // No syncfs without end_syncfs, and none in a job that only reads.
    assert_eq!(syncfs_and_fsyncs(&strace, &[&file], &[]), (0, 0));
    let read = syncfs_and_fsyncs(&strace, &[&file], &["--end_syncfs=1", "--rw=read"]);
    assert_eq!(read, (0, 0));
}

#[test]
fn end_syncfs_is_refused_by_engines_that_cannot_sync() {
    let out = ferrio()
        .args(["--name=j", "--ioengine=null", "--size=1m", "--end_syncfs=1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("end_syncfs=1") && err.contains("ioengine=null") && err.contains("psync"),
        "{err}"
    );
}

/// The io_submit opcodes of a libaio write-and-verify job.
fn aio_opcodes(strace: &Path, file: &Path, extra: &[&str]) -> (usize, usize) {
    let base = [
        "--ioengine=libaio",
        "--iodepth=4",
        "--verify=crc32c",
        "--rw=randwrite",
    ];
    let calls = traced(
        strace,
        "io_submit",
        "ferrio",
        &[file],
        &[&base[..], extra].concat(),
    );
    let count = |op: &str| calls.iter().map(|l| l.matches(op).count()).sum::<usize>();
    let plain = count("IOCB_CMD_PREAD,") + count("IOCB_CMD_PWRITE,");
    let vectored = count("IOCB_CMD_PREADV,") + count("IOCB_CMD_PWRITEV,");
    (plain, vectored)
}

/// libaio_vectored=1 (fio 3.39, which Debian's fio 3.33 lacks): every read and write
/// goes as PREADV/PWRITEV with one iovec, as fio's does (compared by hand with
/// one built from source), and the data still verifies; 16 writes and their 16
/// read-backs.
#[test]
fn libaio_vectored_submits_preadv_and_pwritev() {
    let Some((strace, _d, file)) = setup() else {
        return;
    };
    assert_eq!(aio_opcodes(&strace, &file, &[]), (32, 0));
    assert_eq!(
        aio_opcodes(&strace, &file, &["--libaio_vectored=1"]),
        (0, 32)
    );
}
