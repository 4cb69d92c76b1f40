//! sprandom=1 (fio 3.4x SSD preconditioning) end to end on the sim engine: the
//! write_iolog's offsets cover every block, region by region, with each region's
//! rewrites where fio puts them; the sequence is fixed by the seed; fio's rules refuse
//! what it refuses.

mod common;
use common::*;
use std::collections::HashSet;

/// The blocks written, in order, by a sprandom job over 1 MiB of 4 KiB blocks.
fn offsets(dir: &std::path::Path, extra: &[&str]) -> Vec<u64> {
    let log = file_in(dir, "spr.log");
    let data = file_in(dir, "spr.dat");
    let mut args = vec![
        "--name=spr".to_string(),
        "--ioengine=sim".into(),
        format!("--filename={data}"),
        "--size=1m".into(),
        "--bs=4k".into(),
        "--rw=randwrite".into(),
        "--sprandom=1".into(),
        "--spr_num_regions=8".into(),
        format!("--write_iolog={log}"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&a);
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).unwrap();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // fio's v3 iolog: time, file, action, offset, length.
            (f.len() == 5 && f[2] == "write").then(|| {
                assert_eq!(f[4], "4096", "{l}");
                f[3].parse::<u64>().unwrap() / 4096
            })
        })
        .collect()
}

/// 1 MiB at spr_op=0.15: a physical size of 1048576 + ceil(157286.4) aligned down to
/// 4 KiB = 1204224 bytes, over 8 regions of 150528 bytes: 36 blocks each.
const REGION_BLOCKS: usize = 36;

#[test]
fn every_block_is_written_region_by_region() {
    let dir = scratch();
    let seq = offsets(dir.path(), &[]);
    let distinct: HashSet<u64> = seq.iter().copied().collect();
    assert_eq!(distinct.len(), 256, "every block once at least: {seq:?}");
    assert!(seq.iter().all(|&b| b < 256));
    // The rewrites bring the writes above the logical size, never past the physical.
    assert!(
        seq.len() > 256 && seq.len() <= 1_204_224 / 4096,
        "{}",
        seq.len()
    );
    // Each full region: its first write is a fresh block, then the blocks kept from
    // the region before are written again, then fresh blocks fill it.
    let mut seen = HashSet::new();
    let regions = seq.len() / REGION_BLOCKS;
    let mut rewrites_total = 0;
    for (r, chunk) in seq.chunks(REGION_BLOCKS).take(regions).enumerate() {
        let again: Vec<bool> = chunk.iter().map(|b| !seen.insert(*b)).collect();
        let n = again.iter().filter(|&&x| x).count();
        rewrites_total += n;
        if r == 0 {
            assert_eq!(n, 0);
            continue;
        }
        assert!(!again[0], "region {r}: {again:?}");
        assert!(again[1..1 + n].iter().all(|&x| x), "region {r}: {again:?}");
        assert!(again[1 + n..].iter().all(|&x| !x), "region {r}: {again:?}");
    }
    assert!(rewrites_total > 0);
}

#[test]
fn the_sequence_is_fixed_by_the_seed_and_spr_cs_moves_rewrites_last() {
    let dir = scratch();
    let a = offsets(dir.path(), &[]);
    assert_eq!(a, offsets(dir.path(), &[]));
    // As in fio, the sequence's end ends the job: loops add nothing.
    assert_eq!(a, offsets(dir.path(), &["--loops=2"]));
    assert_ne!(a, offsets(dir.path(), &["--randseed=99"]));
    // With a cache size the kept blocks are written at the end of the next region.
    let c = offsets(dir.path(), &["--spr_cs=4k"]);
    assert_eq!(c.iter().copied().collect::<HashSet<u64>>().len(), 256);
    let mut seen = HashSet::new();
    let second: Vec<bool> = c
        .chunks(REGION_BLOCKS)
        .take(3)
        .flat_map(|ch| ch.iter().map(|b| !seen.insert(*b)).collect::<Vec<_>>())
        .collect();
    let r2 = &second[2 * REGION_BLOCKS..];
    let n = r2.iter().filter(|&&x| x).count();
    assert!(
        n > 0 && r2[REGION_BLOCKS - n..].iter().all(|&x| x),
        "{r2:?}"
    );
}

#[test]
fn fio_rules_are_refused_by_name() {
    for (extra, why) in [
        (
            &["--rw=randread", "--sprandom=1"][..],
            "needs random writes",
        ),
        (
            &["--rw=randwrite", "--sprandom=1", "--norandommap=0"][..],
            "norandommap=1",
        ),
        (
            &["--rw=randwrite", "--sprandom=1", "--nrfiles=2"][..],
            "one file",
        ),
        (
            &["--rw=randwrite", "--sprandom=1", "--spr_cs=1m"][..],
            "spr_cs",
        ),
        (
            &["--rw=randwrite", "--sprandom=1", "--spr_op=2"][..],
            "spr_op",
        ),
    ] {
        let dir = scratch();
        let mut args = vec!["--name=spr", "--ioengine=sim", "--size=1m", "--directory"];
        let d = path_str(dir.path());
        args.push(&d);
        args.extend_from_slice(extra);
        let out = ferrio().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(why),
            "{extra:?}: {err}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{extra:?}: touched files"
        );
    }
}

#[test]
fn debug_sprandom_prints_the_plan() {
    let dir = scratch();
    let data = file_in(dir.path(), "spr.dat");
    let out = run_ok(&[
        "--name=spr",
        "--ioengine=sim",
        &format!("--filename={data}"),
        "--size=1m",
        "--rw=randwrite",
        "--sprandom=1",
        "--spr_num_regions=8",
        "--debug=sprandom",
    ]);
    // Debug lines go where fio's do: stdout.
    let err = String::from_utf8_lossy(&out.stdout);
    for want in [
        "physical_size:     1204224",
        "region_size:        150528",
        "region_write_count: 36",
    ] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("sprandom") && l.contains(want)),
            "{want}: {err}"
        );
    }
}
