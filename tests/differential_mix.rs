//! Read/write mixes and access distributions, within stated statistical bounds, for
//! ferrio and for Debian's fio 3.33 (/usr/bin/fio) on the same jobs.
//!
//! Every count here is a sum of independent draws, so it is checked against the mean
//! of its binomial distribution ± 5 standard deviations (a false alarm about once in
//! 1.7 million runs). Each test also checks that its bound is tight enough to fail on
//! the obvious wrong answer (a 50/50 mix, a uniform distribution): a bound that could
//! not fail would make the test useless. fio must fall within the same bounds: that
//! pins what fio 3.33 does with `rwmixread`, `rwmixwrite` and `random_distribution`.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;

const SIGMAS: f64 = 5.0;

/// The binomial acceptance interval for `n` draws with probability `p`.
fn bound(n: u64, p: f64) -> (f64, f64) {
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    (mean - SIGMAS * sd, mean + SIGMAS * sd)
}

fn within(k: u64, n: u64, p: f64) -> bool {
    let (lo, hi) = bound(n, p);
    (lo..=hi).contains(&(k as f64))
}

/// The bound for (n, p) rejects the count a wrong probability `q` would give.
fn rejects(n: u64, p: f64, q: f64) -> bool {
    !within((n as f64 * q).round() as u64, n, p)
}

fn io(v: &Value, dir: &str) -> u64 {
    v["jobs"][0][dir]["total_ios"].as_u64().unwrap()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(|s| s.as_str()).collect()
}

/// (opts, probability of a read).
const MIXES: &[(&[&str], f64)] = &[
    (&["--rw=randrw", "--rwmixread=80"], 0.8),
    (&["--rw=randrw", "--rwmixread=30"], 0.3),
    (&["--rw=rw", "--rwmixread=90"], 0.9),
    (&["--rw=randrw", "--rwmixwrite=75"], 0.25),
    (&["--rw=randrw"], 0.5),
];

/// Check one run of a mix: the total is exact (`n`), the split within the bound,
/// and bytes follow the counts.
fn check_mix(who: &str, v: &Value, opts: &[&str], p: f64, n: u64, bs: u64) {
    let (r, w) = (io(v, "read"), io(v, "write"));
    assert_eq!(r + w, n, "{who} {opts:?}: {r} reads + {w} writes");
    let (lo, hi) = bound(n, p);
    assert!(
        within(r, n, p),
        "{who} {opts:?}: {r} reads of {n}, expected {lo:.0}..={hi:.0} (p={p}, {SIGMAS} sigma)"
    );
    for d in ["read", "write"] {
        assert_eq!(
            v["jobs"][0][d]["io_bytes"].as_u64().unwrap(),
            io(v, d) * bs,
            "{who} {opts:?}: {d} bytes"
        );
    }
}

#[test]
fn the_bounds_can_fail() {
    // 4096 draws: 50/50 is far outside the 80/20, 30/70, 90/10 and 25/75 bounds, and
    // 80/20 outside the 50/50 one.
    for (_, p) in MIXES {
        let wrong = if *p == 0.5 { 0.8 } else { 0.5 };
        assert!(rejects(4096, *p, wrong), "p={p} vs {wrong}");
        assert!(!rejects(4096, *p, *p));
    }
    assert!(rejects(4096, 0.8, 0.75), "5 points off must fail too");
}

/// rwmixread / rwmixwrite on the null engine (4096 I/Os each) and on files with psync.
#[test]
fn rwmix_splits_within_binomial_bounds() {
    let d = scratch();
    for (i, (opts, p)) in MIXES.iter().enumerate() {
        // The null engine: pure direction draws.
        let mut a: Vec<String> = ["--name=m", "--ioengine=null", "--bs=4k", "--size=16M"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(opts.iter().map(|s| s.to_string()));
        check_mix("ferrio null", &run_json(&refs(&a)), opts, *p, 4096, 4096);
        // A file with psync and 8 KiB blocks (2048 I/Os).
        let mut a: Vec<String> = vec![
            "--name=m".into(),
            format!("--filename={}", file_in(d.path(), &format!("m{i}"))),
            "--bs=8k".into(),
            "--size=16M".into(),
        ];
        a.extend(opts.iter().map(|s| s.to_string()));
        check_mix("ferrio psync", &run_json(&refs(&a)), opts, *p, 2048, 8192);
    }
}

/// The same jobs with fio 3.33: its splits fall within the same bounds.
#[test]
fn fio_rwmix_splits_within_the_same_bounds() {
    if !have_fio() {
        return;
    }
    for (opts, p) in MIXES {
        let mut a = vec!["--name=m", "--ioengine=null", "--bs=4k", "--size=16M"];
        a.extend_from_slice(opts);
        check_mix("fio 3.33", &fio_json(&a), opts, *p, 4096, 4096);
    }
}

/// Offsets of every I/O of a per-I/O completion-latency log (log_offset=1): the fifth
/// column of `<prefix>_clat.1.log`.
fn logged_offsets(dir: &std::path::Path, prefix: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join(format!("{prefix}_clat.1.log")))
        .unwrap_or_else(|e| panic!("{prefix}_clat.1.log: {e}"));
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').map(str::trim).collect();
            f[4].parse::<u64>()
                .unwrap_or_else(|_| panic!("offset in {l:?}"))
        })
        .collect()
}

/// Run a randread job on the null engine with a per-I/O log; the offsets, from ferrio
/// (`fio == false`) or fio 3.33.
fn offsets(fio: bool, dir: &std::path::Path, opts: &[&str]) -> Vec<u64> {
    let prefix = if fio { "fio" } else { "ferrio" };
    let log = format!("--write_lat_log={prefix}");
    let mut a = vec![
        "--name=z",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=64M",
        "--log_offset=1",
        &log,
        "--output-format=json",
    ];
    a.extend_from_slice(opts);
    let out = if fio {
        std::process::Command::new("fio")
            .args(&a)
            .current_dir(dir)
            .output()
            .expect("run fio")
    } else {
        ferrio()
            .args(&a)
            .current_dir(dir)
            .output()
            .expect("run ferrio")
    };
    assert!(
        out.status.success(),
        "{prefix} {a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    logged_offsets(dir, prefix)
}

/// random_distribution=zoned:50/10:50/90 (fio 3.33 HOWTO: 50 % of the accesses to the
/// first 10 % of the file, 50 % to the remaining 90 %).
#[test]
fn zoned_distribution_hits_each_zone_as_asked() {
    let size = 64u64 << 20;
    let n = 8192u64;
    let zone = size / 10;
    // Uniform access would put 10 % in the first zone: the bound must reject that.
    assert!(rejects(n, 0.5, 0.1));
    let mut runs = vec![("ferrio", false)];
    if have_fio() {
        runs.push(("fio 3.33", true));
    }
    for (who, fio) in runs {
        let d = scratch();
        let offs = offsets(
            fio,
            d.path(),
            &[
                "--random_distribution=zoned:50/10:50/90",
                "--norandommap",
                "--number_ios=8192",
            ],
        );
        assert_eq!(offs.len() as u64, n, "{who}: one log line per I/O");
        let first = offs.iter().filter(|&&o| o < zone).count() as u64;
        let (lo, hi) = bound(n, 0.5);
        assert!(
            within(first, n, 0.5),
            "{who}: {first} of {n} I/Os in the first 10 %, expected {lo:.0}..={hi:.0}"
        );
        assert!(offs.iter().all(|&o| o < size && o % 4096 == 0), "{who}");
    }
}

/// zeta(n, theta) = sum of k^-theta for k = 1..=n.
fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|k| (k as f64).powf(-theta)).sum()
}

/// random_distribution=zipf:1.2 over 16384 blocks: fio 3.33 (lib/zipf.c, Gray et al.'s
/// generator) draws rank 1 with probability exactly 1/zeta(n, theta) and rank 2 with
/// 2^-theta/zeta(n, theta), then scatters ranks over the file by a hash. So the most
/// popular block gets 1/zeta of the I/Os and the second 2^-theta/zeta (± 5 sigma);
/// a uniform pick would give each block 1/16384.
#[test]
fn zipf_most_popular_blocks_follow_theta() {
    let blocks = 16384u64;
    let n = 8192u64;
    let theta = 1.2;
    let z = zeta(blocks, theta);
    let (p1, p2) = (1.0 / z, 2f64.powf(-theta) / z);
    assert!(rejects(n, p1, 1.0 / blocks as f64) && rejects(n, p2, p1));
    let mut runs = vec![("ferrio", false)];
    if have_fio() {
        runs.push(("fio 3.33", true));
    }
    for (who, fio) in runs {
        let d = scratch();
        let offs = offsets(
            fio,
            d.path(),
            &["--random_distribution=zipf:1.2", "--number_ios=8192"],
        );
        assert_eq!(offs.len() as u64, n, "{who}");
        let mut hits: HashMap<u64, u64> = HashMap::new();
        for o in offs {
            *hits.entry(o / 4096).or_default() += 1;
        }
        let mut top: Vec<u64> = hits.values().copied().collect();
        top.sort_unstable_by(|a, b| b.cmp(a));
        for (rank, (k, p)) in [(top[0], p1), (top[1], p2)].iter().enumerate() {
            let (lo, hi) = bound(n, *p);
            assert!(
                within(*k, n, *p),
                "{who}: block of rank {} got {k} of {n}, expected {lo:.0}..={hi:.0}",
                rank + 1
            );
        }
    }
}
