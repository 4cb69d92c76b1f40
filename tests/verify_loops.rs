//! A verify job's phases as fio 3.33 runs them: with loops=N each loop's writes
//! are read back before the next loop writes (so N times the bytes are verified);
//! verify_only counts the writes it does not issue (bytes and I/Os, fio's dry run)
//! with no write runtime; and each direction has its own runtime — the write
//! phases for writes, the verify phases for reads — not the job's. Checked against
//! fio where it is installed.

mod common;
use common::*;
use std::process::Command;

fn job(file: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "--name=v".into(),
        "--bs=4k".into(),
        "--size=256k".into(),
        format!("--filename={file}"),
        "--output-format=json".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// One direction's (io_bytes, total_ios, runtime ms).
type Dir = (u64, u64, u64);

/// Per direction (read, write): (io_bytes, total_ios, runtime ms).
fn dirs(v: &serde_json::Value) -> [Dir; 2] {
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 0, "{j}");
    ["read", "write"].map(|d| {
        let n = |k: &str| j[d][k].as_u64().unwrap();
        (n("io_bytes"), n("total_ios"), n("runtime"))
    })
}

/// With fio installed, the job's bytes and I/Os per direction under fio 3.33 must
/// be ferrio's (`r`, `w`).
fn same_counts_as_fio(dir: &std::path::Path, args: &[String], r: Dir, w: Dir) {
    if !have_fio() {
        return;
    }
    let [fr, fw] = dirs(&fio_run(dir, args));
    assert_eq!((r.0, r.1), (fr.0, fr.1), "{args:?}: reads vs fio");
    assert_eq!((w.0, w.1), (fw.0, fw.1), "{args:?}: writes vs fio");
}

fn ferrio_run(dir: &std::path::Path, args: &[String]) -> serde_json::Value {
    let o = ferrio().args(args).current_dir(dir).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    parse_json(&o.stdout)
}

fn fio_run(dir: &std::path::Path, args: &[String]) -> serde_json::Value {
    // In the scratch directory: fio leaves its verify state file in the working one.
    let o = Command::new("fio")
        .args(args)
        .arg("--verify_state_save=0")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    parse_json(&o.stdout)
}

const CASES: &[&[&str]] = &[
    &["--rw=write", "--verify=crc32c", "--loops=3"],
    &["--rw=randwrite", "--verify=md5", "--loops=2", "--iodepth=4"],
    &["--rw=randrw", "--verify=crc64", "--loops=2"],
    &["--rw=write", "--verify=crc32c", "--verify_only=1"],
    &[
        "--rw=randwrite",
        "--verify=xxhash",
        "--verify_only=1",
        "--loops=2",
    ],
];

#[test]
fn each_loop_is_verified_and_verify_only_counts_its_dry_writes() {
    let d = scratch();
    let file = file_in(d.path(), "l.dat");
    for extra in CASES {
        // verify_only checks what an earlier (identical) run wrote.
        if extra.contains(&"--verify_only=1") {
            let mut w: Vec<&str> = extra
                .iter()
                .copied()
                .filter(|a| *a != "--verify_only=1")
                .collect();
            w.push("--loops=1");
            ferrio_run(d.path(), &job(&file, &w));
        }
        let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, extra)));
        let loops = if extra.contains(&"--loops=3") {
            3
        } else if extra.contains(&"--loops=2") {
            2
        } else {
            1
        };
        if extra.contains(&"--rw=randrw") {
            // Every block a loop wrote is read back besides the job's own reads.
            assert!(r.0 > w.0 && w.0 > 0, "{extra:?}: {r:?} {w:?}");
        } else {
            assert_eq!(w.0, loops * (256 << 10), "{extra:?}: every loop writes");
            assert_eq!(w.1, loops * 64, "{extra:?}");
            // A random writer may write a block twice in one loop: it is read once.
            assert!(
                r.0 <= w.0 && r.0 > (loops - 1) * (256 << 10),
                "{extra:?}: {r:?}"
            );
        }
        if extra.contains(&"--verify_only=1") {
            assert_eq!(w.2, 0, "{extra:?}: writes not issued take no time");
            assert!(r.2 > 0, "{extra:?}");
        }
        if !have_fio() {
            continue;
        }
        let [fr, fw] = dirs(&fio_run(d.path(), &job(&file, extra)));
        // Bytes and counts as fio's (runtimes are timings: only 0 is compared).
        assert_eq!((r.0, r.1), (fr.0, fr.1), "{extra:?}: reads vs fio");
        assert_eq!((w.0, w.1), (fw.0, fw.1), "{extra:?}: writes vs fio");
        assert_eq!((w.2 == 0, r.2 == 0), (fw.2 == 0, fr.2 == 0), "{extra:?}");
    }
}

#[test]
fn verify_only_prints_no_write_rate_like_fio() {
    let d = scratch();
    let file = file_in(d.path(), "n.dat");
    let base = [
        "--name=v",
        "--bs=4k",
        "--size=128k",
        "--rw=write",
        "--verify=crc32c",
    ];
    let mut a: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    a.push(format!("--filename={file}"));
    // In the scratch directory: the state file lands there.
    let run = |a: &[String]| ferrio().args(a).current_dir(d.path()).output().unwrap();
    let o = run(&a);
    assert!(o.status.success());
    a.push("--verify_only=1".into());
    let o = run(&a);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    // No write block, no WRITE group line (no write runtime); the reads are there.
    assert!(
        out.contains("  read: IOPS=") && out.contains("   READ: bw="),
        "{out}"
    );
    assert!(
        !out.contains("write: IOPS=") && !out.contains("WRITE: bw="),
        "{out}"
    );
    assert!(out.contains("issued rwts: total=32,32,0,0"), "{out}");
    assert!(out.contains("IO depths    : 1=100.0%"), "{out}");
}

#[test]
fn write_and_verify_phases_each_have_their_own_runtime() {
    // The write phase and the verify phase share the job's time: the directions'
    // runtimes (each rounded up) add to at most the job's plus 2 ms, where a single
    // runtime for both directions would count the job twice.
    let d = scratch();
    let file = file_in(d.path(), "t.dat");
    let v = ferrio_run(
        d.path(),
        &job(
            &file,
            &["--rw=randwrite", "--verify=sha256", "--size=8m", "--bs=16k"],
        ),
    );
    let [r, w] = dirs(&v);
    let job_ms = v["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!(r.2 > 0 && w.2 > 0, "{r:?} {w:?}");
    assert!(
        r.2 + w.2 <= job_ms + 2,
        "read {} + write {} ms vs job {job_ms}",
        r.2,
        w.2
    );
}

/// The null engine keeps no data, so its verify pretends as fio's does: the read
/// phase still reads every written block back (same bytes and I/Os as fio), and
/// nothing fails.
#[test]
fn a_diskless_engines_verify_reads_back_and_checks_nothing_like_fio() {
    let d = scratch();
    for extra in [
        &["--rw=randwrite", "--verify=md5"][..],
        &["--rw=write", "--verify=crc32c", "--loops=2"],
        &["--rw=randwrite", "--verify=null", "--iodepth=4"],
    ] {
        let mut args = job("nullfile", extra);
        args.push("--ioengine=null".into());
        let ours = dirs(&ferrio_run(d.path(), &args));
        assert_eq!(
            ours[0].0, ours[1].0,
            "{extra:?}: every written byte read back"
        );
        assert!(ours[1].0 > 0, "{extra:?}");
        if have_fio() {
            let theirs = dirs(&fio_run(d.path(), &args));
            assert_eq!(
                (ours[0].0, ours[0].1, ours[1].0, ours[1].1),
                (theirs[0].0, theirs[0].1, theirs[1].0, theirs[1].1),
                "{extra:?}"
            );
        }
    }
}

/// A verifying job whose files are never done (no random map: norandommap or a
/// blockalign below the block size) ends its passes as fio's do: the first pass runs
/// until the bytes of all loops are written, its blocks are read back once (an
/// overwritten block once), and the later loops have nothing left.
#[test]
fn loops_without_a_random_map_verify_once_after_all_the_writes_like_fio() {
    let d = scratch();
    let file = file_in(d.path(), "m.dat");
    let seeded = ["--randrepeat=0", "--randseed=7", "--rw=randwrite"];
    let cases: &[&[&str]] = &[
        &["--verify=sha1", "--loops=3", "--norandommap"],
        &["--verify=crc32c", "--loops=3", "--blockalign=512"],
        &[
            "--verify=crc32c",
            "--loops=2",
            "--norandommap",
            "--io_size=1m",
        ],
    ];
    for extra in cases {
        let extra: Vec<&str> = seeded.iter().chain(extra.iter()).copied().collect();
        let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, &extra)));
        let loops = if extra.contains(&"--loops=3") { 3 } else { 2 };
        let per_loop = if extra.contains(&"--io_size=1m") {
            1 << 20
        } else {
            256 << 10
        };
        assert_eq!(
            w.0,
            loops * per_loop,
            "{extra:?}: all loops' bytes are written"
        );
        // One verify phase: at most the file's blocks (each read once), fewer than
        // one per write.
        assert!(r.1 <= 64 && r.1 < w.1, "{extra:?}: {r:?} {w:?}");
        same_counts_as_fio(d.path(), &job(&file, &extra), r, w);
    }
}

/// io_size above size in a verifying job: fio verifies after every pass, the extra
/// passes io_size asks for included, and counts the read-back toward io_size (its
/// keep_running sums every read and write), so `size=256k io_size=1m` writes 256
/// KiB, reads it back, and does that twice.
#[test]
fn io_size_above_size_verifies_each_pass_and_counts_the_read_back_like_fio() {
    let d = scratch();
    let file = file_in(d.path(), "s.dat");
    let cases: &[&[&str]] = &[
        &["--rw=write", "--verify=crc32c"],
        &[
            "--rw=randwrite",
            "--verify=md5",
            "--ioengine=libaio",
            "--iodepth=8",
        ],
        &["--rw=rw", "--verify=crc7"],
    ];
    for extra in cases {
        // (fio 3.33 fails its own rw verify with randrepeat=0: the default seeds.)
        let mut a = vec!["--io_size=1m"];
        a.extend_from_slice(extra);
        let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, &a)));
        if extra.contains(&"--rw=rw") {
            // The job's reads, writes and read-back together reach io_size.
            assert!(r.0 + w.0 >= 1 << 20 && w.0 < 1 << 20, "{a:?}: {r:?} {w:?}");
        } else {
            assert_eq!((w.0, w.1), (512 << 10, 128), "{a:?}: two passes of writes");
            assert_eq!((r.0, r.1), (512 << 10, 128), "{a:?}: each read back");
        }
        same_counts_as_fio(d.path(), &job(&file, &a), r, w);
    }
}

#[test]
fn passes_shorter_than_size_run_again_after_their_verify_and_number_ios_counts_the_read_back_like_fio(
) {
    // fio's verify phase reopens the files, so keep_running sees them not done: a
    // write:16k pass over 1 MiB (52 blocks, the last one ending at the file's end,
    // so the file is done) runs again until the bytes moved, read-back included,
    // reach size. number_ios counts the read-back too: 100 over 64 blocks stops
    // after the first pass's check.
    let d = scratch();
    let file = file_in(d.path(), "h.dat");
    let cases: &[(&[&str], u64, u64)] = &[
        // 64 written and read: 128 >= 100 blocks, no second pass.
        (
            &[
                "--rw=write",
                "--verify=crc32c",
                "--number_ios=100",
                "--io_size=1m",
            ],
            64,
            64,
        ),
        // 3 loops, 300 blocks: 64+64 twice, then 44 written and read.
        (
            &[
                "--rw=write",
                "--verify=crc32c",
                "--number_ios=100",
                "--loops=3",
            ],
            172,
            172,
        ),
        // Over 256 KiB the 14th block would start past the end: fio wraps to the
        // start within the pass (its files never done), writes 64 blocks and
        // checks the 13 places written.
        (&["--rw=write:16k", "--verify=sha1"], 64, 13),
        // 52 blocks a pass over 1 MiB: 3 passes write and read 156 (1248 KiB).
        (&["--rw=write:16k", "--size=1m", "--verify=sha1"], 156, 156),
        (
            &[
                "--rw=write:16k",
                "--size=1m",
                "--verify=md5",
                "--ioengine=libaio",
                "--iodepth=4",
            ],
            156,
            156,
        ),
    ];
    for (extra, writes, reads) in cases {
        let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, extra)));
        assert_eq!((w.1, r.1), (*writes, *reads), "{extra:?}: writes, reads");
        same_counts_as_fio(d.path(), &job(&file, extra), r, w);
    }
}

#[test]
fn verify_only_ends_its_dry_passes_where_the_jobs_own_end_like_fio() {
    // The dry run walks the writes as the job would issue them, so it stops with
    // the files (write:16k: 52 blocks over 1 MiB, then two more passes after each
    // check) and with io_size (1 MiB written and read reach 2 MiB: one pass, where
    // ferrio had walked 2 MiB of writes).
    let d = scratch();
    let file = file_in(d.path(), "o.dat");
    let cases: &[(&[&str], u64)] = &[
        (&["--rw=write:16k"], 156),
        (&["--rw=write", "--io_size=2m"], 256),
        (
            &["--rw=write", "--bs=3k", "--io_size=3m", "--number_ios=300"],
            300,
        ),
    ];
    for (extra, blocks) in cases {
        let mut a = vec!["--size=1m", "--verify=crc32c"];
        a.extend_from_slice(extra);
        let mut write = a.clone();
        write.push("--do_verify=0");
        let mut only = a.clone();
        only.push("--verify_only");
        let _ = ferrio_run(d.path(), &job(&file, &write));
        let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, &only)));
        assert_eq!(
            (w.1, r.1),
            (*blocks, *blocks),
            "{only:?}: dry writes, reads"
        );
        if !have_fio() {
            continue;
        }
        let _ = fio_run(d.path(), &job(&file, &write));
        let [fr, fw] = dirs(&fio_run(d.path(), &job(&file, &only)));
        assert_eq!((r.0, r.1), (fr.0, fr.1), "{only:?}: reads vs fio");
        assert_eq!((w.0, w.1), (fw.0, fw.1), "{only:?}: dry writes vs fio");
    }
}

#[test]
fn verify_backlog_rounds_start_at_fios_log_lengths_and_count_toward_the_job() {
    // fio starts a backlog round when the blocks logged and not yet checked reach a
    // multiple of verify_backlog (an overwrite replaces its block, so norandommap
    // rounds come later than every N writes), and its keep_running and number_ios
    // count the rounds' reads; an asynchronous engine's reads also fill do_io's
    // allowance of twice the size.
    let d = scratch();
    let file = file_in(d.path(), "b.dat");
    let seeded = ["--randrepeat=0", "--randseed=1234"];
    let cases: &[(&[&str], u64, u64)] = &[
        (
            &["--rw=write:16k", "--size=1m", "--verify_backlog=8"],
            156,
            156,
        ),
        (
            &[
                "--rw=write",
                "--size=1m",
                "--verify_backlog=8",
                "--verify_backlog_batch=4",
                "--number_ios=100",
            ],
            52,
            52,
        ),
        (
            &[
                "--rw=randwrite",
                "--size=1m",
                "--verify_backlog=16",
                "--norandommap",
            ],
            256,
            254,
        ),
        (
            &[
                "--rw=randwrite",
                "--verify_backlog=8",
                "--verify_backlog_batch=3",
                "--norandommap",
                "--loops=2",
            ],
            128,
            118,
        ),
        (
            &[
                "--rw=randwrite",
                "--verify_backlog=4",
                "--io_size=1m",
                "--norandommap",
                "--ioengine=libaio",
                "--iodepth=1",
            ],
            164,
            156,
        ),
    ];
    for (extra, writes, reads) in cases {
        let mut a = vec!["--verify=crc32c"];
        a.extend_from_slice(&seeded);
        a.extend_from_slice(extra);
        let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, &a)));
        assert_eq!((w.1, r.1), (*writes, *reads), "{a:?}: writes, reads");
        same_counts_as_fio(d.path(), &job(&file, &a), r, w);
    }
}

#[test]
fn verify_only_walks_an_asynchronous_jobs_passes_as_it_wrote_them() {
    // An asynchronous engine's pass ends at the bytes it queued (fio's bytes_issued),
    // a mixed job's before either direction reaches the end: the dry run ends its
    // passes there too, so it walks the writes the job made (fio master's
    // t/numberio_overlap.py case 5; fio 3.33 fails its own check of this job).
    let d = scratch();
    let file = file_in(d.path(), "a.dat");
    let mut a = vec![
        "--ioengine=io_uring",
        "--bs=128k",
        "--size=1m",
        "--io_size=4m",
        "--rw=rw",
        "--verify=crc32c",
    ];
    let write: Vec<&str> = a.iter().copied().chain(["--do_verify=0"]).collect();
    let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, &write)));
    assert_eq!(r.0 + w.0, 4 << 20, "{write:?}: io_size moved");
    a.push("--verify_only");
    let [r, w] = dirs(&ferrio_run(d.path(), &job(&file, &a)));
    assert!(r.1 > 0 && w.1 > 0, "{a:?}: walked {w:?}, checked {r:?}");
}

#[test]
fn verify_only_with_openfiles_below_nrfiles_checks_every_block() {
    // fio 3.33's dry run starts each file over whenever it reopens it, so it checks
    // only each file's first block (docs/verify.md); ferrio checks all 256, so a
    // damaged block in the middle of the last file fails the check.
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    let a = [
        "--name=v",
        "--size=1m",
        "--nrfiles=4",
        "--openfiles=2",
        "--rw=write",
        "--verify=crc32c",
        "--output-format=json",
        &dir,
    ];
    ferrio_run(d.path(), &a.map(String::from));
    let only: Vec<String> = a
        .iter()
        .chain(&["--verify_only"])
        .map(|s| s.to_string())
        .collect();
    let [r, w] = dirs(&ferrio_run(d.path(), &only));
    assert_eq!((r.1, w.1), (256, 256), "every block walked and read");
    let victim = d.path().join("v.0.3");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[(128 << 10) + 100] ^= 0xff;
    std::fs::write(&victim, bytes).unwrap();
    let o = ferrio().args(&only).current_dir(d.path()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("v.0.3 offset 131072"),
        "the damaged block went unnoticed: {err}"
    );
}

/// verify_only replaces a writing job's writes with a dry run; a job that only reads
/// does its reads and checks each, as without verify_only (fio:
/// `verify_only && td_write`). ferrio read nothing and passed any file.
#[test]
fn verify_only_in_a_reading_job_reads_and_checks_like_fio() {
    let d = scratch();
    let f = path_str(&d.path().join("f"));
    ferrio_run(d.path(), &job(&f, &["--rw=write", "--verify=crc32c"]));
    for rw in ["--rw=read", "--rw=randread"] {
        let args = job(&f, &[rw, "--verify=crc32c", "--verify_only=1"]);
        let [r, w] = dirs(&ferrio_run(d.path(), &args));
        assert_eq!(
            (r.0, r.1, w.1),
            (256 << 10, 64, 0),
            "{rw}: every block read"
        );
        same_counts_as_fio(d.path(), &args, r, w);
    }
    // A damaged block fails the read that meets it.
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[(128 << 10) + 100] ^= 0xff;
    std::fs::write(&f, bytes).unwrap();
    let args = job(&f, &["--rw=read", "--verify=crc32c", "--verify_only=1"]);
    let o = ferrio().args(&args).current_dir(d.path()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("offset 131072"),
        "the damaged block went unnoticed: {err}"
    );
}
