//! The SPRandom model's numbers (from the formulas fio's sprandom.c documents) and
//! the properties of the offset sequence it drives.

use super::*;
use std::collections::HashSet;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn write_amplification_and_gc_validity_follow_the_op() {
    // WA ≈ 0.5 / OP + 0.7; the GC block's validity is 1 - 1/WA.
    assert!(close(write_amplification(0.15), 0.5 / 0.15 + 0.7));
    assert!(close(write_amplification(0.5), 1.7));
    assert!(close(gc_validity(4.0), 0.75));
    assert!(close(
        gc_validity(write_amplification(0.15)),
        1.0 - 1.0 / (0.5 / 0.15 + 0.7)
    ));
    // More over-provisioning: less write amplification, emptier GC blocks.
    assert!(gc_validity(write_amplification(0.28)) < gc_validity(write_amplification(0.07)));
}

#[test]
fn validity_distribution_is_the_resampled_desnoyers_curve() {
    let floor = gc_validity(write_amplification(0.15));
    assert_eq!(validity_distribution(1, 0.15), vec![1.0]);
    let two = validity_distribution(2, 0.15);
    assert!(close(two[0], floor) && close(two[1], 1.0), "{two:?}");
    // Three regions by hand: validities 1, (1+g)/2, g take 1/v of space each
    // (cumulative 1, 1+1/v1, 1+1/v1+1/g); the middle region, at the midpoint of that
    // cumulative space, interpolates between the 2nd and 3rd points.
    let v1 = (1.0 + floor) / 2.0;
    let (s1, s2) = (1.0 + 1.0 / v1, 1.0 + 1.0 / v1 + 1.0 / floor);
    let mid = (1.0 + s2) / 2.0;
    let expect = v1 + (floor - v1) * (mid - s1) / (s2 - s1);
    let three = validity_distribution(3, 0.15);
    assert!(close(three[0], floor) && close(three[2], 1.0), "{three:?}");
    assert!(close(three[1], expect), "{three:?} vs {expect}");
    assert!((three[1] - 0.867_261_811_944_487_7).abs() < 1e-12);
    // The least valid region is written first; validity rises to 1.
    let d = validity_distribution(100, 0.21);
    assert!(d.windows(2).all(|w| w[0] <= w[1]));
    assert!(close(d[0], gc_validity(write_amplification(0.21))) && close(d[99], 1.0));
}

#[test]
fn plan_sizes_regions_from_the_physical_size() {
    // 1 MiB logical at 15% OP: 1048576 + ceil(157286.4) = 1205863, aligned down to 4k.
    assert_eq!(physical_size(0.15, 1 << 20, 4096), 1_204_224);
    let p = Plan::new(1 << 20, 4096, 0.28, 5, 0).unwrap();
    assert_eq!(p.physical, physical_size(0.28, 1 << 20, 4096));
    assert_eq!(p.region_size, p.physical / 5);
    assert_eq!(p.region_blocks, p.region_size / 4096);
    // round((1 - validity) * 10000) per region.
    assert_eq!(p.invalid_pct, vec![4023, 3201, 2272, 1211, 0]);
    let e = Plan::new(1 << 20, 4096, 0.15, 4, 1 << 20).unwrap_err();
    assert!(e.contains("spr_cs=1048576") && e.contains("region"), "{e}");
    let e = Plan::new(8192, 4096, 0.15, 100, 0).unwrap_err();
    assert!(e.contains("spr_num_regions=100"), "{e}");
}

/// The whole sequence over `blocks` blocks, with the region each write was in.
fn run(blocks: u64, regions: u32, cache: bool, seed: u64) -> (Vec<(usize, u64)>, Plan) {
    let cs = if cache { 4096 } else { 0 };
    let plan = Plan::new(blocks * 4096, 4096, 0.15, regions, cs).unwrap();
    let mut lfsr = Lfsr::new(blocks, 0x1234).unwrap();
    let mut s = Sprandom::new(plan.clone(), cache, seed);
    let mut out = Vec::new();
    while let Some(b) = s.next_block(&mut lfsr) {
        out.push((s.region(), b));
        assert!(out.len() < 10 * blocks as usize, "sequence does not end");
    }
    (out, plan)
}

#[test]
fn every_block_is_written_and_each_full_region_holds_its_share() {
    for cache in [false, true] {
        let blocks = 4000;
        let (seq, plan) = run(blocks, 8, cache, 7);
        let seen: HashSet<u64> = seq.iter().map(|&(_, b)| b).collect();
        assert_eq!(seen.len() as u64, blocks, "cache={cache}");
        assert!(seq.iter().all(|&(_, b)| b < blocks));
        // The fresh blocks come in the LFSR's order, each once.
        let mut lfsr = Lfsr::new(blocks, 0x1234).unwrap();
        let lfsr_order: Vec<u64> = std::iter::from_fn(|| lfsr.next_value()).collect();
        let mut first = HashSet::new();
        let fresh: Vec<u64> = seq
            .iter()
            .filter(|&&(_, b)| first.insert(b))
            .map(|&(_, b)| b)
            .collect();
        assert_eq!(fresh, lfsr_order);
        // Regions are written in order, each full one with exactly its block count.
        assert!(seq.windows(2).all(|w| w[0].0 <= w[1].0));
        let last = seq.last().unwrap().0;
        for r in 0..last {
            let n = seq.iter().filter(|&&(x, _)| x == r).count() as u64;
            assert_eq!(n, plan.region_blocks, "cache={cache} region {r}");
        }
        // Rewrites are more than the logical size alone: the physical size is written.
        assert!(seq.len() as u64 > blocks);
    }
}

#[test]
fn rewrites_open_a_region_without_cache_and_close_it_with_one() {
    for cache in [false, true] {
        let (seq, _) = run(4000, 8, cache, 7);
        let mut written = HashSet::new();
        for r in 0..seq.last().unwrap().0 {
            let region: Vec<bool> = seq
                .iter()
                .filter(|&&(x, _)| x == r)
                .map(|&(_, b)| !written.insert(b))
                .collect();
            let rewrites = region.iter().filter(|&&x| x).count();
            if r == 0 {
                assert_eq!(rewrites, 0);
                continue;
            }
            assert!(rewrites > 0, "region {r}");
            // Without a cache the rewrites come right after the region's first write
            // (fio's switch to a region takes a fresh block); with one, last.
            let fresh: Vec<bool> = if cache {
                region[..region.len() - rewrites].to_vec()
            } else {
                [&region[..1], &region[1 + rewrites..]].concat()
            };
            let re = if cache {
                &region[region.len() - rewrites..]
            } else {
                &region[1..1 + rewrites]
            };
            assert!(
                re.iter().all(|&x| x) && fresh.iter().all(|&x| !x),
                "cache={cache} region {r}"
            );
        }
    }
}

#[test]
fn rewrite_share_follows_each_regions_invalid_chance() {
    let (seq, plan) = run(40_000, 4, false, 11);
    let mut written = HashSet::new();
    let by_region: Vec<(usize, bool)> = seq.iter().map(|&(r, b)| (r, !written.insert(b))).collect();
    // Blocks written in region r are rewritten in region r+1 with chance invalid_pct[r].
    for r in 0..2 {
        let rewrites = by_region
            .iter()
            .filter(|&&(x, re)| x == r + 1 && re)
            .count() as f64;
        let want = plan.invalid_pct[r] as f64 / 10_000.0;
        let got = rewrites / plan.region_blocks as f64;
        assert!((got - want).abs() < 0.03, "region {r}: {got} vs {want}");
    }
}

#[test]
fn the_sequence_is_fixed_by_the_seed() {
    assert_eq!(run(2000, 8, false, 3).0, run(2000, 8, false, 3).0);
    assert_ne!(run(2000, 8, false, 3).0, run(2000, 8, false, 4).0);
}
