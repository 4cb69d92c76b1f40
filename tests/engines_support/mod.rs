//! Helpers for the per-engine integration tests (tests/engines_*.rs): run one job on
//! a temporary file and check exact I/O counts for every rw mode.
#![allow(dead_code)]

use super::common::*;

/// The rw modes and, for a region of `blocks` blocks, the (reads, writes, trims) each
/// must issue in one pass.
pub const MODES: &[(&str, [u64; 3])] = &[
    ("read", [1, 0, 0]),
    ("randread", [1, 0, 0]),
    ("write", [0, 1, 0]),
    ("randwrite", [0, 1, 0]),
    ("trim", [0, 0, 1]),
    ("randtrim", [0, 0, 1]),
    ("trimwrite", [0, 1, 1]),
];

#[allow(unused_imports)]
pub use super::common::skip::{direct_ok, direct_scratch, skip};

/// Run ferrio; Ok(json) on success, Err(stderr) on failure.
pub fn try_run(args: &[String]) -> Result<serde_json::Value, String> {
    let mut a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    a.push("--output-format=json");
    let out = ferrio().args(&a).output().expect("run ferrio");
    if out.status.success() {
        Ok(parse_json(&out.stdout))
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ))
    }
}

/// A job on `file` of `size` bytes with `bs`, plus `extra` options.
pub fn job(file: &str, engine: &str, rw: &str, size: u64, bs: u64, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "--name=t".to_string(),
        format!("--ioengine={engine}"),
        format!("--rw={rw}"),
        format!("--bs={bs}"),
        format!("--size={size}"),
        format!("--filename={file}"),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// (read, write, trim) total_ios and io_bytes of the first job; asserts no error.
pub fn counts(v: &serde_json::Value) -> ([u64; 3], [u64; 3]) {
    let j = &v["jobs"][0];
    assert_eq!(j["error"].as_i64(), Some(0), "job error: {v}");
    let mut ios = [0; 3];
    let mut bytes = [0; 3];
    for (i, d) in ["read", "write", "trim"].iter().enumerate() {
        ios[i] = j[d]["total_ios"].as_u64().unwrap();
        bytes[i] = j[d]["io_bytes"].as_u64().unwrap();
    }
    (ios, bytes)
}

/// Every rw mode (and a mixed one) on a temporary file, buffered and, where the file
/// system allows, with O_DIRECT: exact I/O and byte counts.
pub fn every_mode(engine: &str, extra: &[&str]) {
    let size: u64 = 1 << 20;
    let bs: u64 = 4096;
    let blocks = size / bs;
    // O_DIRECT runs in a directory that accepts it; without one the direct variant
    // is skipped visibly (and fails in CI).
    let mut variants = vec![(false, scratch())];
    if let Some(dd) = direct_scratch() {
        variants.push((true, dd));
    }
    for (direct, d) in variants {
        for (rw, want) in MODES {
            let file = file_in(d.path(), &format!("{engine}-{rw}-{direct}"));
            let mut x: Vec<&str> = extra.to_vec();
            let dflag = format!("--direct={}", direct as u8);
            x.push(&dflag);
            let v = try_run(&job(&file, engine, rw, size, bs, &x))
                .unwrap_or_else(|e| panic!("{engine} rw={rw} direct={direct}: {e}"));
            let (ios, bytes) = counts(&v);
            for k in 0..3 {
                assert_eq!(
                    ios[k],
                    want[k] * blocks,
                    "{engine} rw={rw} direct={direct}: ios {ios:?}"
                );
                assert_eq!(
                    bytes[k],
                    want[k] * size,
                    "{engine} rw={rw} direct={direct}: bytes {bytes:?}"
                );
            }
        }
        for rw in ["rw", "randrw"] {
            let file = file_in(d.path(), &format!("{engine}-{rw}-{direct}"));
            let mut x: Vec<&str> = extra.to_vec();
            let dflag = format!("--direct={}", direct as u8);
            x.push(&dflag);
            x.push("--rwmixread=30");
            let v = try_run(&job(&file, engine, rw, size, bs, &x))
                .unwrap_or_else(|e| panic!("{engine} rw={rw} direct={direct}: {e}"));
            let (ios, bytes) = counts(&v);
            assert_eq!(ios[0] + ios[1], blocks, "{engine} rw={rw}: {ios:?}");
            assert_eq!(bytes[0] + bytes[1], size);
            // rwmixread=30: reads are a binomial count, mean 0.3 n; ±5 sigma (for 256
            // I/Os 40..=113) rejects a 50/50 split (128) and one-way traffic.
            let (n, p) = (blocks as f64, 0.3);
            let sd = (n * p * (1.0 - p)).sqrt();
            let (lo, hi) = (n * p - 5.0 * sd, n * p + 5.0 * sd);
            assert!(
                (lo..=hi).contains(&(ios[0] as f64)) && !(lo..=hi).contains(&(n * 0.5)),
                "{engine} rw={rw}: {} reads of {blocks}, expected {lo:.0}..={hi:.0}",
                ios[0]
            );
            assert_eq!(bytes[0], ios[0] * bs, "{engine} rw={rw}: read bytes");
        }
    }
}

/// Writes with a known pattern land in the file at the right offsets (buffers and
/// offsets reach the kernel intact).
pub fn writes_land(engine: &str, extra: &[&str]) {
    let d = scratch();
    let file = file_in(d.path(), "pattern");
    let size: u64 = 256 << 10;
    let mut x: Vec<&str> = extra.to_vec();
    x.push("--buffer_pattern=0x5a6b7c8d");
    let v = try_run(&job(&file, engine, "randwrite", size, 8192, &x))
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
    let (ios, _) = counts(&v);
    assert_eq!(ios[1], size / 8192);
    let data = std::fs::read(&file).unwrap();
    assert_eq!(data.len() as u64, size);
    for (i, b) in data.iter().enumerate() {
        assert_eq!(*b, [0x5a, 0x6b, 0x7c, 0x8d][i % 4], "{engine}: byte {i}");
    }
}

/// The engine runs a job; Err(message) when it failed (for feature probes).
pub fn probe(engine: &str, extra: &[&str]) -> Result<serde_json::Value, String> {
    let d = scratch();
    let file = file_in(d.path(), "probe");
    try_run(&job(&file, engine, "randread", 64 << 10, 4096, extra))
}
