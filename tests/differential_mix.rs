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

/// One line of a per-I/O completion-latency log with log_offset=1 (fio 3.33's
/// format: time, latency, direction, block size, offset, priority).
struct Row {
    ddir: u64,
    bs: u64,
    offset: u64,
}

fn log_rows(dir: &std::path::Path, prefix: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join(format!("{prefix}_clat.1.log")))
        .unwrap_or_else(|e| panic!("{prefix}_clat.1.log: {e}"));
    text.lines()
        .map(|l| {
            let f: Vec<u64> = l
                .split(',')
                .map(|x| x.trim().parse().unwrap_or_else(|_| panic!("{l:?}")))
                .collect();
            Row {
                ddir: f[2],
                bs: f[3],
                offset: f[4],
            }
        })
        .collect()
}

/// Run a job on the null engine (randread unless `opts` say otherwise) with a per-I/O
/// log; its rows, from ferrio (`fio == false`) or fio 3.33.
fn logged(fio: bool, dir: &std::path::Path, opts: &[&str]) -> Vec<Row> {
    let prefix = if fio { "fio" } else { "ferrio" };
    let log = format!("--write_lat_log={prefix}");
    let mut a = vec![
        "--name=z",
        "--ioengine=null",
        "--log_offset=1",
        &log,
        "--output-format=json",
    ];
    if !opts.iter().any(|o| o.starts_with("--rw=")) {
        a.push("--rw=randread");
    }
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
    log_rows(dir, prefix)
}

fn offsets(fio: bool, dir: &std::path::Path, opts: &[&str]) -> Vec<u64> {
    let mut o = vec!["--bs=4k", "--size=64M"];
    o.extend_from_slice(opts);
    logged(fio, dir, &o).iter().map(|r| r.offset).collect()
}

/// ferrio, and fio when installed.
fn tools() -> Vec<(&'static str, bool)> {
    let mut runs = vec![("ferrio", false)];
    if have_fio() {
        runs.push(("fio 3.33", true));
    }
    runs
}

/// The rand-zones.fio example of fio 3.33 (examples/rand-zones.fio):
/// random_distribution=zoned:50/5:30/15:20/ puts 50 % of the accesses in the first
/// 5 % of the file, 30 % in the next 15 % and 20 % in the remaining 80 %.
#[test]
fn rand_zones_example_hits_each_zone_as_asked() {
    let size = 64u64 << 20;
    let n = 8192u64;
    for (who, fio) in tools() {
        let d = scratch();
        let offs = offsets(
            fio,
            d.path(),
            &[
                "--random_distribution=zoned:50/5:30/15:20/",
                "--norandommap",
                "--number_ios=8192",
            ],
        );
        assert_eq!(offs.len() as u64, n, "{who}");
        let zone = |lo: u64, hi: u64| {
            offs.iter()
                .filter(|&&o| o >= size * lo / 100 && o < size * hi / 100)
                .count() as u64
        };
        for (lo, hi, p) in [(0, 5, 0.5), (5, 20, 0.3), (20, 100, 0.2)] {
            // Uniform access would give the zone its width: the bound must reject it.
            assert!(rejects(n, p, (hi - lo) as f64 / 100.0));
            let k = zone(lo, hi);
            let (a, b) = bound(n, p);
            assert!(
                within(k, n, p),
                "{who}: {k} of {n} I/Os in {lo}-{hi} %, expected {a:.0}..={b:.0}"
            );
        }
    }
}

/// The iometer-file-access-server.fio example of fio 3.33: rw=randrw, rwmixread=80 and
/// bssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10, on the null engine. The
/// direction and the block size of each I/O are independent draws.
#[test]
fn iometer_example_mix_and_block_sizes() {
    let n = 8192u64;
    let split = [
        (512u64, 0.10),
        (1024, 0.05),
        (2048, 0.05),
        (4096, 0.60),
        (8192, 0.02),
        (16384, 0.04),
        (32768, 0.04),
        (65536, 0.10),
    ];
    for (who, fio) in tools() {
        let d = scratch();
        let rows = logged(
            fio,
            d.path(),
            &[
                "--rw=randrw",
                "--rwmixread=80",
                "--bssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10",
                "--size=256M",
                "--norandommap",
                "--number_ios=8192",
            ],
        );
        assert_eq!(rows.len() as u64, n, "{who}");
        let reads = rows.iter().filter(|r| r.ddir == 0).count() as u64;
        assert!(
            within(reads, n, 0.8),
            "{who}: {reads} reads of {n}, expected {:?}",
            bound(n, 0.8)
        );
        for (bs, p) in split {
            let k = rows.iter().filter(|r| r.bs == bs).count() as u64;
            assert!(
                within(k, n, p),
                "{who}: {k} I/Os of {bs} bytes of {n}, expected {:?}",
                bound(n, p)
            );
            assert!(rows.iter().all(|r| r.offset % 512 == 0));
        }
    }
}

/// The zipf.fio example of fio 3.33: random_distribution=zipf:0.5 (norandommap). With
/// theta = 0.5 the hottest block gets 1/zeta(n, 0.5) of the accesses (see below).
#[test]
fn zipf_example_hottest_block() {
    let blocks = 16384u64;
    let n = 32768u64;
    let p1 = 1.0 / zeta(blocks, 0.5);
    assert!(rejects(n, p1, 1.0 / blocks as f64));
    for (who, fio) in tools() {
        let d = scratch();
        let offs = offsets(
            fio,
            d.path(),
            &[
                "--random_distribution=zipf:0.5",
                "--norandommap",
                "--io_size=128M",
            ],
        );
        assert_eq!(offs.len() as u64, n, "{who}: io_size is twice the file");
        let mut hits: HashMap<u64, u64> = HashMap::new();
        for o in offs {
            *hits.entry(o / 4096).or_default() += 1;
        }
        let top = *hits.values().max().unwrap();
        assert!(
            within(top, n, p1),
            "{who}: hottest block {top} of {n}, expected {:?}",
            bound(n, p1)
        );
    }
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
    for (who, fio) in tools() {
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
/// a uniform pick would give each block 1/16384. 65536 I/Os (io_size = 4 × size)
/// make the bound tight enough (± 0.8 points) to catch a rank-1 share off by 1.3
/// points (e.g. the first rank's threshold halved).
#[test]
fn zipf_most_popular_blocks_follow_theta() {
    let blocks = 16384u64;
    let n = 65536u64;
    let theta = 1.2;
    let z = zeta(blocks, theta);
    let (p1, p2) = (1.0 / z, 2f64.powf(-theta) / z);
    assert!(rejects(n, p1, 1.0 / blocks as f64) && rejects(n, p2, p1));
    for (who, fio) in tools() {
        let d = scratch();
        let offs = offsets(
            fio,
            d.path(),
            &["--random_distribution=zipf:1.2", "--io_size=256M"],
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

/// random_distribution=zoned_abs:50/4M:50/60M (fio 3.33 HOWTO: absolute zone sizes):
/// half of the accesses in the first 4 MiB of a 64 MiB file.
#[test]
fn zoned_abs_hits_each_zone_as_asked() {
    let n = 8192u64;
    assert!(rejects(n, 0.5, 4.0 / 64.0));
    for (who, fio) in tools() {
        let d = scratch();
        let offs = offsets(
            fio,
            d.path(),
            &[
                "--random_distribution=zoned_abs:50/4M:50/60M",
                "--norandommap",
                "--number_ios=8192",
            ],
        );
        assert_eq!(offs.len() as u64, n, "{who}");
        let first = offs.iter().filter(|&&o| o < 4 << 20).count() as u64;
        assert!(
            within(first, n, 0.5),
            "{who}: {first} of {n} in the first 4 MiB, expected {:?}",
            bound(n, 0.5)
        );
    }
}

/// zoned_abs zones past the file's end: a draw that lands in one ends the pass, and
/// fio says so (`zoned_abs sizes exceed file size`; at every such end, ferrio once per
/// thread); ferrio wrote as many blocks as fio but said nothing. Where every zone is
/// past the file, the pass ends before its first I/O: fio writes nothing (ferrio
/// wrote one block at offset 0 before 2026-11-25).
#[test]
fn zoned_abs_past_the_file_ends_the_pass_and_says_so_like_fio() {
    let run = |tool: &str, size: &str| {
        let d = scratch();
        let mut cmd = tool_cmd(tool);
        if tool == "ferrio" {
            cmd.arg("--fio_seeds=3.33");
        }
        let o = cmd
            .args(["--name=j", "--filename=f", "--rw=randwrite"])
            .arg(format!("--size={size}"))
            .args([
                "--random_distribution=zoned_abs:50/1M:50/2M",
                "--output-format=json",
            ])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{tool}");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let writes = io(&parse_json(&o.stdout), "write");
        (
            writes,
            err.matches("zoned_abs sizes exceed file size").count(),
        )
    };
    // (The counts are fio 3.33's seeding, which --fio_seeds=3.33 gives ferrio.)
    let v333 = || {
        let v = std::process::Command::new("fio").arg("--version").output();
        v.is_ok_and(|o| o.stdout.starts_with(b"fio-3.33"))
    };
    let ferrio = run("ferrio", "1M");
    assert!(ferrio.0 > 0 && ferrio.0 < 256, "{ferrio:?}");
    assert_eq!(ferrio.1, 1, "said once, when the pass ended");
    if have_fio() && v333() {
        assert_eq!(ferrio, run("fio", "1M"));
    }
    // Both zones past a 128 KiB file: no I/O at all.
    assert_eq!(run("ferrio", "128k"), (0, 1));
    if have_fio() {
        assert_eq!(run("fio", "128k"), (0, 1));
    }
}

/// How many I/Os start where the previous one ended.
fn follows_previous(offs: &[u64], bs: u64) -> u64 {
    offs.windows(2).filter(|w| w[1] == w[0] + bs).count() as u64
}

/// percentage_random=P on rw=randread: each I/O is random with probability P %, else
/// sequential, and fio 3.33 continues a sequential I/O from where the previous I/O
/// (random or not) ended (io_u.c get_next_seq_offset uses f->last_pos, updated after
/// every I/O). So (100 - P) % of the I/Os follow their predecessor (a random pick lands
/// there with probability 1/16384 only).
fn check_percentage_random(who: &str, fio: bool) {
    let n = 8192u64;
    for (pct, p_seq) in [(50, 0.5), (80, 0.2)] {
        // A separate sequential stream (continuing from the last *sequential* I/O)
        // would give p_seq² instead: the bound must reject it.
        assert!(rejects(n - 1, p_seq, p_seq * p_seq));
        let d = scratch();
        let opt = format!("--percentage_random={pct}");
        let offs = offsets(fio, d.path(), &[&opt, "--norandommap", "--number_ios=8192"]);
        assert_eq!(offs.len() as u64, n, "{who}");
        let k = follows_previous(&offs, 4096);
        assert!(
            within(k, n - 1, p_seq),
            "{who} percentage_random={pct}: {k} of {} I/Os follow the previous one, \
             expected {:?}",
            n - 1,
            bound(n - 1, p_seq)
        );
    }
}

#[test]
fn fio_percentage_random_continues_from_the_last_io() {
    if have_fio() {
        check_percentage_random("fio 3.33", true);
    }
}

#[test]
fn percentage_random_continues_from_the_last_io() {
    check_percentage_random("ferrio", false);
}

/// Sequential jobs are deterministic: the whole sequence of (direction, block size,
/// offset) of every I/O equals fio 3.33's, for `offset`, wrapping with `io_size`,
/// `loops`, per-direction block sizes and `bsrange` with `number_ios`.
#[test]
fn sequential_offsets_equal_fios() {
    same_offsets_as_fio(&[
        &["--rw=write", "--bs=4k", "--size=1M", "--offset=64k"],
        &["--rw=read", "--bs=16k", "--size=1M", "--io_size=1536k"],
        &["--rw=read", "--bs=64k", "--size=1M", "--loops=3"],
        &["--rw=write", "--bs=4k,8k", "--size=1M"],
        &[
            "--rw=read",
            "--bsrange=4k-4k",
            "--size=512k",
            "--number_ios=77",
        ],
    ]);
}

/// `rw=read:8k` with bs=4k over 1 MiB: one pass, 86 I/Os (4 KiB read, 8 KiB
/// skipped, up to the end of the file), as fio 3.33; likewise `rw=write:4k` (85).
#[test]
fn sequential_offsets_with_holes_equal_fios() {
    same_offsets_as_fio(&[
        &["--rw=read:8k", "--bs=4k", "--size=1M"],
        &["--rw=write:4k", "--bs=8k", "--size=1M", "--offset=12k"],
    ]);
}

fn same_offsets_as_fio(jobs: &[&[&str]]) {
    if !have_fio() {
        return;
    }
    for job in jobs {
        let rows = |fio: bool| {
            let d = scratch();
            logged(fio, d.path(), job)
                .iter()
                .map(|r| (r.ddir, r.bs, r.offset))
                .collect::<Vec<_>>()
        };
        let (ours, theirs) = (rows(false), rows(true));
        assert!(!theirs.is_empty(), "{job:?}");
        assert_eq!(
            ours, theirs,
            "{job:?}: (direction, bs, offset) of every I/O"
        );
    }
}
