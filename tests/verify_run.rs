//! verify= in ferrio's own runs: the read-back after the writes for write,
//! randwrite and mixed jobs with synchronous and asynchronous engines, the
//! verify_backlog rounds, read-only jobs checking what they read, failures and the
//! error policy (continue_on_error=verify, verify_fatal), verify_dump's files,
//! refused layouts and --crctest.

mod common;
use common::*;

fn job(file: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "--name=v".into(),
        "--bs=4k".into(),
        "--size=256k".into(),
        format!("--filename={file}"),
        "--output-format=json".into(),
        // No state file in the working directory (the repository).
        "--verify_state_save=0".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn run(args: &[String]) -> (bool, serde_json::Value, String) {
    let o = ferrio().args(args).output().expect("run ferrio");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let v = parse_json(&o.stdout);
    (o.status.success(), v, err)
}

fn bytes(v: &serde_json::Value, dir: &str) -> u64 {
    v["jobs"][0][dir]["io_bytes"].as_u64().unwrap()
}

#[test]
fn written_blocks_are_read_back_and_checked_for_each_mode_and_engine() {
    let dir = scratch();
    let file = file_in(dir.path(), "m.dat");
    for extra in [
        &["--rw=write", "--verify=crc32c"][..],
        &["--rw=randwrite", "--verify=md5"],
        &[
            "--rw=randwrite",
            "--verify=xxhash",
            "--ioengine=libaio",
            "--iodepth=16",
        ],
        &[
            "--rw=randwrite",
            "--verify=sha1",
            "--bsrange=4k-16k",
            "--verify_interval=4k",
        ],
        &["--rw=write", "--verify=sha256", "--loops=2"],
    ] {
        let (ok, v, err) = run(&job(&file, extra));
        assert!(ok, "{extra:?}: {err}");
        // loops=2: each loop's writes are read back (as fio; tests/verify_loops.rs).
        assert_eq!(bytes(&v, "read"), bytes(&v, "write"), "{extra:?}");
        assert!(bytes(&v, "read") >= 256 << 10, "{extra:?}: {v}");
    }
    // A mix: its writes are verified after the job (its reads as usual).
    let (ok, v, err) = run(&job(&file, &["--rw=randrw", "--verify=crc64"]));
    assert!(ok, "{err}");
    assert!(bytes(&v, "read") > 0 && bytes(&v, "write") > 0);
    // do_verify=0: nothing is read back.
    let (ok, v, _) = run(&job(
        &file,
        &["--rw=write", "--verify=crc64", "--do_verify=0"],
    ));
    assert!(ok);
    assert_eq!(bytes(&v, "read"), 0);
}

#[test]
fn backlog_rounds_verify_along_the_way() {
    let dir = scratch();
    let file = file_in(dir.path(), "b.dat");
    let (ok, v, err) = run(&job(
        &file,
        &[
            "--rw=randwrite",
            "--verify=crc32c",
            "--verify_backlog=8",
            "--verify_backlog_batch=4",
        ],
    ));
    assert!(ok, "{err}");
    // Every block read once: by a backlog round or by the final pass.
    assert_eq!(bytes(&v, "read"), 256 << 10);
}

/// Write clean blocks, then corrupt blocks 2 and 5.
fn corrupted(dir: &std::path::Path, kind: &str) -> String {
    let file = file_in(dir, "c.dat");
    let (ok, _, err) = run(&job(
        &file,
        &["--rw=write", &format!("--verify={kind}"), "--do_verify=0"],
    ));
    assert!(ok, "{err}");
    let mut b = std::fs::read(&file).unwrap();
    b[2 * 4096 + 1000] ^= 0x10;
    b[5 * 4096 + 3000] ^= 0x01;
    std::fs::write(&file, b).unwrap();
    file
}

#[test]
fn failures_follow_the_error_policy() {
    let dir = scratch();
    let file = corrupted(dir.path(), "crc32c");
    let check = |extra: &[&str]| {
        let mut e = vec!["--rw=write", "--verify=crc32c", "--verify_only=1"];
        e.extend_from_slice(extra);
        run(&job(&file, &e))
    };
    // Default: the first failure stops the job with EILSEQ (84), as fio.
    let (ok, v, err) = check(&[]);
    assert!(!ok);
    assert_eq!(v["jobs"][0]["error"], 84);
    assert!(
        err.contains("crc32c: verify failed at file") && err.contains("offset 8192"),
        "{err}"
    );
    assert!(
        err.contains("Expected CRC: ") && err.contains("Received CRC: "),
        "{err}"
    );
    assert!(!err.contains("offset 20480"), "stopped at the first: {err}");
    // continue_on_error=verify: both counted, every block read.
    let (ok, v, err) = check(&["--continue_on_error=verify"]);
    assert!(ok, "{err}");
    assert_eq!(v["jobs"][0]["total_err"], 2);
    assert_eq!(v["jobs"][0]["first_error"], 84);
    assert_eq!(bytes(&v, "read"), 256 << 10);
    // verify_fatal: the first failure ends the job even so.
    let (_, v, err) = check(&["--continue_on_error=verify", "--verify_fatal=1"]);
    assert_eq!(v["jobs"][0]["total_err"], 1, "{err}");
    assert!(bytes(&v, "read") < 256 << 10);
}

#[test]
fn a_bad_header_is_named_like_fio() {
    let dir = scratch();
    let file = corrupted(dir.path(), "md5");
    let mut b = std::fs::read(&file).unwrap();
    b[7 * 4096] = 0; // the magic of block 7
    std::fs::write(&file, b).unwrap();
    let (_, _, err) = run(&job(
        &file,
        &[
            "--rw=write",
            "--verify=md5",
            "--verify_only=1",
            "--continue_on_error=verify",
        ],
    ));
    assert!(
        err.contains("verify: bad magic header ac00, wanted acca at file")
            && err.contains("offset 28672"),
        "{err}"
    );
}

#[test]
fn verify_dump_writes_the_received_and_expected_blocks() {
    let dir = scratch();
    let file = corrupted(dir.path(), "sha1");
    let o = ferrio()
        .args(job(
            &file,
            &[
                "--rw=write",
                "--verify=sha1",
                "--verify_only=1",
                "--verify_dump=1",
                "--verify_fatal=1",
            ],
        ))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("received data dumped as c.dat.8192.received"),
        "{err}"
    );
    let got = std::fs::read(dir.path().join("c.dat.8192.received")).unwrap();
    let want = std::fs::read(dir.path().join("c.dat.8192.expected")).unwrap();
    assert_eq!(got.len(), 4096);
    // Regenerated from the header's seed: only the flipped byte differs.
    assert_eq!(got[1000] ^ want[1000], 0x10);
    assert_eq!(got.iter().zip(&want).filter(|(a, b)| a != b).count(), 1);
}

#[test]
fn read_only_jobs_check_every_read() {
    let dir = scratch();
    let file = corrupted(dir.path(), "crc16");
    let (ok, v, err) = run(&job(
        &file,
        &[
            "--rw=randread",
            "--verify=crc16",
            "--continue_on_error=verify",
        ],
    ));
    assert!(ok, "{err}");
    assert_eq!(v["jobs"][0]["total_err"], 2, "{err}");
}

#[test]
fn layouts_that_cannot_fit_are_refused_before_any_io() {
    let dir = scratch();
    let file = file_in(dir.path(), "n.dat");
    for (extra, says) in [
        (
            &["--bs=128", "--verify=sha512"][..],
            "must be larger than its header",
        ),
        (
            &["--verify=md5", "--verify_offset=4090"],
            "verify_offset=4090",
        ),
        (&["--verify=pattern"], "verify=pattern needs verify_pattern"),
        (&["--verify=sha4"], "verify"),
        (&["--verify_pattern=0xzz"], "bad pattern"),
    ] {
        let mut e = vec!["--rw=write"];
        e.extend_from_slice(extra);
        let o = ferrio().args(job(&file, &e)).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{extra:?}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(
            !std::path::Path::new(&file).exists(),
            "{extra:?} touched the file"
        );
    }
}

#[test]
fn crctest_prints_each_checksum_like_fio() {
    let o = run_ok(&["--crctest=crc32c,xxhash"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("crc32c:\t\t") && lines[0].ends_with(" MiB/sec"),
        "{out}"
    );
    assert!(lines[1].starts_with("xxhash:\t\t"), "{out}");
    let o = ferrio().arg("--crctest=murmur3").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn trimmed_blocks_must_read_back_as_zeros() {
    // fio 3.33 aborts on this job (an assertion in fio_ro_check): ferrio runs it.
    let dir = scratch();
    let file = file_in(dir.path(), "t.dat");
    let (ok, v, err) = run(&job(
        &file,
        &[
            "--rw=write",
            "--verify=crc32c",
            "--trim_percentage=50",
            "--trim_backlog=8",
        ],
    ));
    assert!(ok, "{err}");
    let j = &v["jobs"][0];
    let trims = j["trim"]["total_ios"].as_u64().unwrap();
    assert!(trims > 8 && trims < 56, "about half of 64 blocks: {trims}");
    assert_eq!(
        bytes(&v, "read"),
        256 << 10,
        "trimmed blocks are verified too"
    );
    let data = std::fs::read(&file).unwrap();
    let zero = data
        .chunks(4096)
        .filter(|b| b.iter().all(|&x| x == 0))
        .count();
    assert_eq!(zero as u64, trims, "each trim punched its block");
    // Without trim_verify_zero the trimmed blocks are not read back.
    let (ok, v, err) = run(&job(
        &file,
        &[
            "--rw=write",
            "--verify=crc32c",
            "--trim_percentage=50",
            "--trim_backlog=8",
            "--trim_verify_zero=0",
        ],
    ));
    assert!(ok, "{err}");
    let trims = v["jobs"][0]["trim"]["total_ios"].as_u64().unwrap();
    assert_eq!(bytes(&v, "read"), (64 - trims) * 4096);
}

/// fio ≥ 3.40's trim verify (t/verify-trim.py, run by hand on a loop device, where
/// fio master gives the same counts): trims are I/Os of the job, so they count toward
/// number_ios, and every block picked is trimmed before the job ends, so about
/// trim_percentage % of the writes are trimmed whatever trim_backlog is.
#[test]
fn trims_count_toward_number_ios_and_every_picked_block_is_trimmed() {
    let counts = |extra: &[&str]| {
        let dir = scratch();
        let file = file_in(dir.path(), "t.dat");
        let mut a = vec!["--rw=write", "--verify=md5", "--number_ios=64"];
        a.extend(extra);
        let (ok, v, err) = run(&job(&file, &a));
        assert!(ok, "{a:?}: {err}");
        let n = |d: &str| v["jobs"][0][d]["total_ios"].as_u64().unwrap();
        (n("read"), n("write"), n("trim"))
    };
    for backlog in ["--trim_backlog=1", "--trim_backlog=16"] {
        let all = ["--trim_percentage=100", backlog];
        assert_eq!(counts(&all), (32, 32, 32), "{all:?}");
    }
    let no_verify = [
        "--trim_percentage=100",
        "--trim_backlog=16",
        "--do_verify=0",
    ];
    assert_eq!(counts(&no_verify), (0, 32, 32), "{no_verify:?}");
    // Half the writes, within the harness's 10 %: the last round's picks, short of a
    // trim_backlog, are trimmed too.
    for backlog in ["--trim_backlog=1", "--trim_backlog=8", "--trim_backlog=16"] {
        let (_, w, t) = counts(&["--trim_percentage=50", backlog]);
        let expected = w as f64 / 2.0;
        assert!(
            (t as f64 - expected).abs() <= 0.1 * expected && w + t >= 64 && w < 64,
            "{backlog}: {w} writes, {t} trims"
        );
    }
}

/// verify_only=1 without verify=: nothing is written and nothing checked, as fio's
/// dry run (ferrio issued the writes before 2026-11-25). The writes not issued are
/// counted, with no runtime.
#[test]
fn verify_only_without_a_verify_method_writes_nothing() {
    let dir = scratch();
    let file = file_in(dir.path(), "kept.dat");
    std::fs::write(&file, vec![0x5au8; 256 << 10]).unwrap();
    let (ok, v, err) = run(&job(&file, &["--rw=randwrite", "--verify_only=1"]));
    assert!(ok, "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), vec![0x5au8; 256 << 10]);
    let w = &v["jobs"][0]["write"];
    assert_eq!(
        (w["total_ios"].as_u64(), w["io_bytes"].as_u64()),
        (Some(64), Some(256 << 10))
    );
    assert_eq!(w["runtime"].as_u64(), Some(0));
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(0));
}

/// A mixed job's verify_only walk counts its reads as well, none issued, as fio's
/// dry run does; with verify= the read-back's reads come on top (ferrio counted only
/// those before 2026-11-25). Compared with fio 3.33 where it is installed, each tool
/// walking a file it wrote itself.
#[test]
fn a_mixed_verify_only_walk_counts_its_reads_like_fio() {
    let dir = scratch();
    let counts = |tool: &str, extra: &[&str]| {
        let mut cmd = tool_cmd(tool);
        if tool == "ferrio" {
            cmd.arg("--fio_seeds=3.33");
        }
        let o = cmd
            .args(["--name=k", "--size=1M", "--rw=randrw", "--randseed=7"])
            .args(["--allrandrepeat=1", "--verify_state_save=0"])
            .arg(format!("--filename={}", file_in(dir.path(), tool)))
            .arg("--output-format=json")
            .args(extra)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{tool} {extra:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v = parse_json(&o.stdout);
        let j = &v["jobs"][0];
        (
            j["read"]["total_ios"].as_u64().unwrap(),
            j["write"]["total_ios"].as_u64().unwrap(),
        )
    };
    let tools: &[&str] = if have_fio() {
        &["ferrio", "fio"]
    } else {
        &["ferrio"]
    };
    let mut seen = Vec::new();
    for &tool in tools {
        // The job itself, writing the blocks the walks check (no read-back).
        let (reads, writes) = counts(tool, &["--verify=crc32c", "--do_verify=0"]);
        assert!(reads > 0 && writes > 0, "{tool}");
        let walk = counts(tool, &["--verify_only=1"]);
        assert_eq!(
            walk,
            (reads, writes),
            "{tool}: the walk counts what the job would do"
        );
        let checked = counts(tool, &["--verify_only=1", "--verify=crc32c"]);
        assert_eq!(
            checked,
            (reads + writes, writes),
            "{tool}: plus one read per write"
        );
        seen.push((walk, checked));
    }
    assert!(
        seen.windows(2).all(|w| w[0] == w[1]),
        "ferrio and fio: {seen:?}"
    );
}
