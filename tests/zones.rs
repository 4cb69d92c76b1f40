//! zonemode=zbd against the simulated zoned device (ioengine=sim, sim_zonesize=): the
//! device enforces a zoned drive's rules (a write off the write pointer fails with EIO,
//! one zone too many active with EOVERFLOW), and zbd jobs never break them. Each test
//! reads the job's write_iolog and follows the write pointers itself: every write
//! starts at its zone's write pointer (or at the zone's start once the zone was full,
//! i.e. after a reset), ends within the capacity, no more zones are open than the
//! limit, and every read lies below a write pointer.

mod common;
use common::*;
use std::collections::BTreeMap;

const K: u64 = 1024;

/// (op, offset, length) of every read and write in a write_iolog.
fn ios(log: &str) -> Vec<(String, u64, u64)> {
    log.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [_, _, op @ ("read" | "write" | "trim"), off, len] => {
                    Some((op.to_string(), off.parse().unwrap(), len.parse().unwrap()))
                }
                _ => None,
            }
        })
        .collect()
}

/// The zone resets the normal output reports ("; N zone resets").
fn printed_resets(stdout: &str) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.contains(" zone resets"))
        .expect("a write line");
    let n = line.rsplit("; ").next().unwrap().split(' ').next().unwrap();
    n.parse().unwrap()
}

/// Run a sim job with zonemode=zbd and its log; returns (exit ok, stderr, the I/Os).
fn run(opts: &[&str]) -> (bool, String, Vec<(String, u64, u64)>) {
    let (ok, err, ios, _) = run_out(opts);
    (ok, err, ios)
}

/// `run`, with the normal output.
fn run_out(opts: &[&str]) -> (bool, String, Vec<(String, u64, u64)>, String) {
    let d = scratch();
    let log = d.path().join("io.log");
    let o = ferrio()
        .args([
            "--name=z",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--zonemode=zbd",
            "--randrepeat=0",
            "--randseed=7",
            "--output-format=normal",
        ])
        .arg(format!("--write_iolog={}", log.display()))
        .args(opts)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        ios(&text),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// The write-pointer model: checks each I/O in order against zones of `zs` bytes with
/// capacity `cap`; `limit` bounds the zones written and not full (0: none). Returns
/// the number of resets it saw (writes at a zone's start while the zone held data).
fn check(ios: &[(String, u64, u64)], zs: u64, cap: u64, limit: usize, early_resets: bool) -> u64 {
    let mut wp: BTreeMap<u64, u64> = BTreeMap::new();
    let mut resets = 0;
    for (i, (op, off, len)) in ios.iter().enumerate() {
        let z = off / zs;
        let start = z * zs;
        let w = wp.entry(z).or_insert(start);
        if op == "trim" {
            assert_eq!((*off, *len), (start, zs), "I/O {i}: a trim is a whole zone");
            *w = start;
        } else if op == "write" {
            if *off != *w {
                assert_eq!(
                    *off, start,
                    "I/O {i}: write at {off}, zone write pointer {w}"
                );
                assert!(
                    early_resets || *w == start + cap,
                    "I/O {i}: zone {z} reset before it was full (wp {w})"
                );
                resets += 1;
            }
            assert!(
                off + len <= start + cap,
                "I/O {i}: write {off}+{len} past the capacity"
            );
            *w = off + len;
            if limit > 0 {
                let open = wp
                    .iter()
                    .filter(|(&z, &p)| p > z * zs && p < z * zs + cap)
                    .count();
                assert!(open <= limit, "I/O {i}: {open} zones open, limit {limit}");
            }
        } else {
            assert!(
                *off >= start && off + len <= *w,
                "I/O {i}: read {off}+{len} beyond the write pointer {w}"
            );
        }
    }
    resets
}

fn bytes(ios: &[(String, u64, u64)], op: &str) -> u64 {
    ios.iter().filter(|i| i.0 == op).map(|i| i.2).sum()
}

#[test]
fn random_writes_follow_the_write_pointers_within_the_open_limit() {
    for (opts, limit) in [
        (&["--max_open_zones=2"][..], 2),
        (&["--max_open_zones=3", "--iodepth=16"][..], 3),
        // The device's limits are honoured without max_open_zones.
        (&["--sim_max_active_zones=2", "--iodepth=8"][..], 2),
        (
            &["--sim_max_open_zones=4", "--sim_max_active_zones=3"][..],
            3,
        ),
        (&["--max_open_zones=4", "--job_max_open_zones=2"][..], 2),
        (&[][..], 0),
    ] {
        let mut args = vec![
            "--size=2m",
            "--io_size=8m",
            "--sim_zonesize=256k",
            "--rw=randwrite",
            "--bs=4k",
        ];
        args.extend_from_slice(opts);
        let (ok, err, ios, out) = run_out(&args);
        assert!(ok, "{opts:?}: {err}");
        assert_eq!(bytes(&ios, "write"), 8 << 20, "{opts:?}");
        let resets = check(&ios, 256 * K, 256 * K, limit, false);
        assert_eq!(printed_resets(&out), resets, "{opts:?}");
        // 8 MiB into 2 MiB of zones: every zone is filled and reset again and again.
        assert!(resets >= 8 * 3, "{opts:?}: {resets} resets");
    }
}

#[test]
fn zone_capacity_and_mixed_block_sizes() {
    let (ok, err, ios) = run(&[
        "--size=2m",
        "--io_size=6m",
        "--sim_zonesize=256k",
        "--sim_zonecap=200k",
        "--rw=randwrite",
        "--bsrange=4k-32k",
        "--max_open_zones=2",
        "--iodepth=4",
    ]);
    assert!(ok, "{err}");
    check(&ios, 256 * K, 200 * K, 2, false);
}

#[test]
fn a_region_off_zone_boundaries_is_rounded_to_whole_zones() {
    let (ok, err, ios) = run(&[
        "--offset=4k",
        "--size=600k",
        "--sim_zonesize=256k",
        "--rw=write",
        "--bs=4k",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("rounded up offset from 4096 to 262144"),
        "{err}"
    );
    assert!(
        err.contains("rounded down io_size from 356352 to 262144"),
        "{err}"
    );
    let offs: Vec<u64> = ios.iter().map(|i| i.1).collect();
    let want: Vec<u64> = (0..64).map(|b| 256 * K + b * 4 * K).collect();
    assert_eq!(offs, want);
}

#[test]
fn sequential_writes_skip_from_the_capacity_to_the_next_zone() {
    let (ok, err, ios) = run(&[
        "--size=1m",
        "--sim_zonesize=256k",
        "--sim_zonecap=192k",
        "--rw=write",
        "--bs=64k",
    ]);
    assert!(ok, "{err}");
    let want: Vec<u64> = (0..4)
        .flat_map(|z| (0..3).map(move |b| z * 256 * K + b * 64 * K))
        .collect();
    let got: Vec<u64> = ios.iter().map(|i| i.1).collect();
    assert_eq!(got, want);
}

#[test]
fn reads_stay_below_the_write_pointers() {
    for extra in [
        &["--rw=randrw"][..],
        &["--rw=randrw", "--iodepth=8", "--max_open_zones=2"][..],
    ] {
        let mut args = vec![
            "--size=2m",
            "--io_size=4m",
            "--sim_zonesize=256k",
            "--bs=4k",
        ];
        args.extend_from_slice(extra);
        let (ok, err, ios) = run(&args);
        assert!(ok, "{extra:?}: {err}");
        assert!(bytes(&ios, "read") > 0 && bytes(&ios, "write") > 0);
        check(&ios, 256 * K, 256 * K, 0, false);
    }
    // Nothing written, nothing to read: the job ends at once, without an error.
    let (ok, err, ios) = run(&["--size=1m", "--sim_zonesize=256k", "--rw=randread"]);
    assert!(ok && ios.is_empty(), "{err} {ios:?}");
    // read_beyond_wp=1 reads anywhere.
    let (ok, err, ios) = run(&[
        "--size=1m",
        "--sim_zonesize=256k",
        "--rw=randread",
        "--read_beyond_wp=1",
    ]);
    assert!(ok && bytes(&ios, "read") == 1 << 20, "{err}");
}

#[test]
fn reset_threshold_and_frequency_reset_zones_early() {
    let (ok, err, ios, out) = run_out(&[
        "--size=1m",
        "--io_size=4m",
        "--sim_zonesize=256k",
        "--rw=randwrite",
        "--bs=4k",
        "--max_open_zones=1",
        "--zone_reset_threshold=0.1",
        "--zone_reset_frequency=0.5",
    ]);
    assert!(ok, "{err}");
    let resets = check(&ios, 256 * K, 256 * K, 1, true);
    assert_eq!(printed_resets(&out), resets);
    // Once a tenth of the region (~102k) holds data, every second write resets its
    // zone: about one reset per 104k written, where filling zones alone would reset
    // 12 times (4 MiB of writes into 4 zones of 256k).
    assert!(resets > 30, "{resets} resets");
}

#[test]
fn trims_reset_zones() {
    let (ok, err, ios, out) = run_out(&[
        "--size=1m",
        "--sim_zonesize=128k",
        "--rw=trimwrite",
        "--bs=128k",
        "--loops=3",
    ]);
    assert!(ok, "{err}");
    assert_eq!(bytes(&ios, "trim"), 3 << 20);
    check(&ios, 128 * K, 128 * K, 0, false);
    // The first pass trims empty zones; the next two reset 8 full zones each.
    assert_eq!(printed_resets(&out), 16);
    // A trim must be a whole zone.
    let (ok, err, _) = run(&["--size=1m", "--sim_zonesize=128k", "--rw=trim", "--bs=64k"]);
    assert!(
        !ok && err.contains("trim block size 65536 is not the zone size"),
        "{err}"
    );
}

#[test]
fn the_device_enforces_its_rules() {
    // Random writes without zonemode=zbd: off the write pointer, EIO.
    let o = ferrio()
        .args([
            "--name=z",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--size=1m",
            "--sim_zonesize=256k",
            "--rw=randwrite",
            "--bs=4k",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("Input/output error"),
        "{err}"
    );
    // Sequential writes without zonemode=zbd are at the write pointers already.
    let o = ferrio()
        .args([
            "--name=z",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--size=1m",
            "--sim_zonesize=256k",
            "--rw=write",
            "--bs=4k",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // ignore_zone_limits=1 opens more zones than the device has active: EOVERFLOW.
    let (ok, err, _) = run(&[
        "--size=2m",
        "--sim_zonesize=256k",
        "--sim_max_active_zones=2",
        "--rw=randwrite",
        "--bs=4k",
        "--ignore_zone_limits=1",
    ]);
    assert!(!ok && err.contains("Value too large"), "{err}");
}

#[test]
fn jobs_the_zones_cannot_take_are_refused() {
    for (opts, want) in [
        (
            &["--zonesize=128k"][..],
            "does not match the device zone size 262144",
        ),
        (
            &["--sim_max_open_zones=2", "--max_open_zones=3"][..],
            "larger than the device's limit (2)",
        ),
        (
            &["--job_max_open_zones=2"][..],
            "job_max_open_zones cannot be used without",
        ),
        (
            &["--offset=4k", "--size=256k"][..],
            "io_size must be at least one zone",
        ),
        (&["--bs=512k"][..], "exceeds the zone size"),
    ] {
        let mut args = vec!["--sim_zonesize=256k", "--rw=randwrite", "--size=1m"];
        args.extend_from_slice(opts);
        let (ok, err, _) = run(&args);
        assert!(!ok && err.contains(want), "{opts:?}: {err}");
    }
    // Emulated zones need a zone size.
    let o = ferrio()
        .args([
            "--name=z",
            "--ioengine=null",
            "--size=1m",
            "--zonemode=zbd",
            "--rw=randwrite",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("zonesize= is mandatory"),
        "{err}"
    );
}

#[test]
fn refused_before_any_file_is_laid_out() {
    let d = scratch();
    for opts in [
        &["--zonesize=256k", "--offset=4k", "--size=256k"][..],
        // Two files of 128k: each smaller than a zone.
        &["--zonesize=256k", "--size=256k", "--nrfiles=2"][..],
        &["--size=1m"][..],
    ] {
        for extra in [&[][..], &["--parse-only"][..]] {
            let o = ferrio()
                .args(["--name=z", "--zonemode=zbd", "--rw=randwrite", "--bs=4k"])
                .arg(format!("--directory={}", d.path().display()))
                .args(opts)
                .args(extra)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                !o.status.success() && err.contains("job 'z'"),
                "{opts:?}: {err}"
            );
            let laid_out = std::fs::read_dir(d.path()).unwrap().count();
            assert_eq!(laid_out, 0, "{opts:?} {extra:?}: a file was laid out");
        }
    }
}
