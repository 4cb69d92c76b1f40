//! End-to-end: every rw mode with the file engines moves exactly the bytes fio would.

mod common;
use common::*;

fn counts(dir: &std::path::Path, engine: &str, rw: &str, extra: &[&str]) -> serde_json::Value {
    let file = file_in(dir, &format!("{engine}-{rw}"));
    let mut args = vec![
        "--name=t".to_string(),
        format!("--ioengine={engine}"),
        format!("--rw={rw}"),
        "--bs=4k".to_string(),
        "--size=1M".to_string(),
        format!("--filename={file}"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_json(&a)
}

#[test]
fn user_level_check_randread_32m_gives_8192_ios() {
    let d = scratch();
    let f = file_in(d.path(), "x");
    let v = run_json(&[
        "--name=t",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=32M",
        &format!("--filename={f}"),
    ]);
    assert_eq!(dir_counts(&v, "read"), (33554432, 8192));
    assert_eq!(dir_counts(&v, "write"), (0, 0));
}

#[test]
fn single_direction_modes_move_exactly_size_bytes() {
    let d = scratch();
    let mut cases = Vec::new();
    for engine in ["sync", "psync", "vsync", "pvsync", "pvsync2"] {
        for (rw, dir) in [
            ("read", "read"),
            ("write", "write"),
            ("randread", "read"),
            ("randwrite", "write"),
            ("trim", "trim"),
            ("randtrim", "trim"),
        ] {
            cases.push((engine, rw, dir));
        }
    }
    // Each case on a file of its own (`counts`), so they run a few at a time.
    common::cases::each_case(&cases, |&(engine, rw, dir)| {
        let v = counts(d.path(), engine, rw, &[]);
        assert_eq!(dir_counts(&v, dir), (1 << 20, 256), "{engine} {rw}");
        for other in ["read", "write", "trim"].iter().filter(|o| **o != dir) {
            assert_eq!(dir_counts(&v, other), (0, 0), "{engine} {rw} {other}");
        }
    });
}

#[test]
fn mixed_modes_split_size_between_directions() {
    let d = scratch();
    for rw in ["rw", "readwrite", "randrw"] {
        let v = counts(d.path(), "psync", rw, &[]);
        let (rb, ri) = dir_counts(&v, "read");
        let (wb, wi) = dir_counts(&v, "write");
        assert_eq!(rb + wb, 1 << 20, "{rw}");
        assert_eq!(ri + wi, 256, "{rw}");
        assert!(ri > 50 && wi > 50, "{rw}: a 50/50 mix gave {ri}/{wi}");
    }
    let v = counts(d.path(), "psync", "randrw", &["--rwmixread=100"]);
    assert_eq!(dir_counts(&v, "read"), (1 << 20, 256));
}

#[test]
fn trimwrite_trims_and_writes_each_block() {
    // fio: "if io_size=64K is specified, fio will trim a total of 64K bytes and also
    // write 64K bytes on the same trimmed blocks".
    let d = scratch();
    let v = counts(d.path(), "psync", "trimwrite", &[]);
    assert_eq!(dir_counts(&v, "trim"), (1 << 20, 256));
    assert_eq!(dir_counts(&v, "write"), (1 << 20, 256));
    let v = run_json(&[
        "--name=n",
        "--ioengine=null",
        "--rw=trimwrite",
        "--bs=4k",
        "--size=1M",
    ]);
    assert_eq!(dir_counts(&v, "trim"), (1 << 20, 256));
    assert_eq!(dir_counts(&v, "write"), (1 << 20, 256));
}

#[test]
fn null_engine_needs_no_file_and_counts_exactly() {
    let d = scratch();
    let v = run_json_in(
        d.path(),
        &[
            "--name=n",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=64M",
        ],
    );
    assert_eq!(dir_counts(&v, "read"), (64 << 20, 16384));
    let made: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert!(made.is_empty(), "null engine created files: {made:?}");
}

#[test]
fn loops_and_io_size_and_number_ios() {
    let d = scratch();
    let v = counts(d.path(), "psync", "read", &["--loops=3"]);
    assert_eq!(dir_counts(&v, "read"), (3 << 20, 768));
    let v = counts(d.path(), "psync", "randread", &["--io_size=3M"]);
    assert_eq!(dir_counts(&v, "read"), (3 << 20, 768));
    let v = counts(d.path(), "psync", "read", &["--number_ios=10"]);
    assert_eq!(dir_counts(&v, "read"), (40960, 10));
    // io_size above size moves io_size with do_verify=0 too (fio 3.33 to 3.42 stop
    // after one pass there, a bug fio fixed after 3.42: docs/random.md).
    for rw in ["write", "read", "randread"] {
        let v = counts(d.path(), "psync", rw, &["--io_size=3M", "--do_verify=0"]);
        let dir = if rw == "write" { "write" } else { "read" };
        assert_eq!(dir_counts(&v, dir), (3 << 20, 768), "{rw}");
    }
}

#[test]
fn numjobs_clones_and_group_reporting() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let v = run_json(&[
        "--name=g",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        &format!("--directory={dir}"),
        "--numjobs=3",
    ]);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 3);
    for j in 0..3 {
        assert!(
            d.path().join(format!("g.{j}.0")).exists(),
            "clone file g.{j}.0"
        );
    }
    let v = run_json(&[
        "--name=g",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        &format!("--directory={dir}"),
        "--numjobs=3",
        "--group_reporting",
    ]);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(dir_counts(&v, "write"), (3 * 256 * 1024, 3 * 64));
}

#[test]
fn time_based_runs_for_runtime_and_wraps() {
    let d = scratch();
    let v = counts(
        d.path(),
        "psync",
        "read",
        &["--time_based", "--runtime=1", "--invalidate=0"],
    );
    let (bytes, _) = dir_counts(&v, "read");
    assert!(
        bytes > 1 << 20,
        "time_based must wrap around the 1M file, did {bytes}"
    );
    let rt = v["jobs"][0]["read"]["runtime"].as_u64().unwrap();
    assert!((900..=1500).contains(&rt), "runtime {rt} ms");
}
