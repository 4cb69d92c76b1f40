//! Pattern unit tests: the properties fio's rules guarantee (exact sequences against
//! fio itself are in tests/differential_sequence.rs).

use super::*;

fn job(f: impl FnOnce(&mut JobSpec)) -> JobSpec {
    let mut j = JobSpec::with_defaults("t", "");
    j.rw.random = true;
    j.rw.kind = RwKind::Read;
    f(&mut j);
    j
}

fn region(len: u64) -> Vec<Region> {
    vec![Region { start: 0, len }]
}

fn seeds() -> SeedSet {
    SeedSet::from_seed(1234, 1)
}

fn offsets(p: &mut Pattern, n: usize) -> Vec<u64> {
    (0..n).map(|_| p.next_io(u64::MAX).offset).collect()
}

#[test]
fn random_map_does_every_block_once_per_pass() {
    for gen in [
        RandomGenerator::Tausworthe,
        RandomGenerator::Tausworthe64,
        RandomGenerator::Lfsr,
    ] {
        let spec = job(|j| j.random_generator = gen);
        let mut p = Pattern::new(&spec, &region(1 << 20), &seeds());
        let mut v = offsets(&mut p, 256);
        v.sort_unstable();
        let all: Vec<u64> = (0..256).map(|b| b * 4096).collect();
        assert_eq!(v, all, "{gen:?}");
    }
}

#[test]
fn first_offsets_follow_the_offset_stream() {
    // 256 blocks: block = 256 · r / 2^32 for fio's first draws with randseed=1234.
    let spec = job(|_| {});
    let mut p = Pattern::new(&spec, &region(1 << 20), &seeds());
    let draws = [320323601u64, 1854933243, 312579007, 1132836363];
    let want: Vec<u64> = draws
        .iter()
        .map(|r| (256.0 * (*r as f64 / 4294967296.0)) as u64 * 4096)
        .collect();
    assert_eq!(offsets(&mut p, 4), want);
}

#[test]
fn randrepeat_repeats_each_pass_and_clones_differ() {
    let spec = job(|_| {});
    let mut p = Pattern::new(&spec, &region(1 << 20), &seeds());
    let a = offsets(&mut p, 256);
    p.reset_pass();
    assert_eq!(offsets(&mut p, 256), a);
    let mut q = Pattern::new(&spec, &region(1 << 20), &SeedSet::from_seed(1234, 2));
    assert_ne!(offsets(&mut q, 256), a);
}

#[test]
fn an_unfinished_pass_carries_on_with_its_map() {
    // fio resets a file only once it is done: a second loop of a half pass finishes
    // the same map instead of repeating blocks.
    let spec = job(|j| j.randrepeat = false);
    let mut p = Pattern::new(&spec, &region(1 << 20), &seeds());
    let mut v = offsets(&mut p, 128);
    p.reset_pass();
    v.extend(offsets(&mut p, 128));
    v.sort_unstable();
    v.dedup();
    assert_eq!(v.len(), 256);
}

#[test]
fn norandommap_may_repeat_blocks() {
    let spec = job(|j| j.norandommap = true);
    let mut p = Pattern::new(&spec, &region(64 << 10), &seeds());
    let mut v = offsets(&mut p, 16);
    v.sort_unstable();
    v.dedup();
    assert!(v.len() < 16, "16 draws over 16 blocks all distinct: {v:?}");
}

#[test]
fn rwmix_keeps_the_ratio() {
    let spec = job(|j| {
        j.rw.kind = RwKind::ReadWrite;
        j.rwmixread = 70;
    });
    let mut p = Pattern::new(&spec, &region(64 << 20), &seeds());
    let reads = (0..10_000)
        .filter(|_| p.next_io(u64::MAX).op == IoOp::Read)
        .count();
    assert!((6_500..7_500).contains(&reads), "{reads} reads of 10000");
}

#[test]
fn bssplit_uses_only_its_sizes_and_bsrange_stays_in_range() {
    let spec = job(|j| {
        j.bs[0] = BlockSize {
            min: 4096,
            max: 16384,
            split: vec![(4096, 50), (16384, 50)],
        };
        // (With the map, an I/O is cut short where it meets a block already done.)
        j.norandommap = true;
    });
    let mut p = Pattern::new(&spec, &region(64 << 20), &seeds());
    let lens: Vec<u64> = (0..1000).map(|_| p.next_io(u64::MAX).len).collect();
    assert!(lens.iter().all(|&l| l == 4096 || l == 16384));
    assert!(lens.contains(&4096) && lens.contains(&16384));
    let spec = job(|j| {
        j.bs[0] = BlockSize {
            min: 4096,
            max: 65536,
            split: vec![],
        };
        j.norandommap = true;
    });
    let mut p = Pattern::new(&spec, &region(64 << 20), &seeds());
    for _ in 0..1000 {
        let io = p.next_io(u64::MAX);
        assert!(
            (4096..=65536).contains(&io.len) && io.len.is_multiple_of(4096),
            "{io:?}"
        );
    }
}

#[test]
fn percentage_random_zero_is_sequential() {
    let spec = job(|j| j.percentage_random = [0; 3]);
    let mut p = Pattern::new(&spec, &region(1 << 20), &seeds());
    assert_eq!(offsets(&mut p, 4), [0, 4096, 8192, 12288]);
}

#[test]
fn zoned_sends_the_share_to_its_zone() {
    let spec = job(|j| {
        j.random_distribution =
            RandomDistribution::Zoned([vec![(80, 10), (20, 90)], vec![], vec![]]);
    });
    let mut p = Pattern::new(&spec, &region(100 << 20), &seeds());
    let first = offsets(&mut p, 10_000)
        .iter()
        .filter(|&&o| o < 10 << 20)
        .count();
    assert!((7_500..8_500).contains(&first), "{first}");
}

fn pass(p: &mut Pattern) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    while let Some(io) = p.next_io_or_end(u64::MAX) {
        v.push((io.offset, io.len));
        assert!(v.len() < 64, "{v:?}");
    }
    v
}

#[test]
fn a_block_past_the_end_of_the_file_is_not_issued() {
    // fio's io_u_fits: 10 KiB holds two 4 KiB blocks; the third would end past it.
    let spec = job(|j| j.rw.random = false);
    let mut p = Pattern::new(&spec, &region(10 << 10), &seeds());
    assert_eq!(pass(&mut p), [(0, 4096), (4096, 4096)]);
}

#[test]
fn a_larger_block_is_cut_at_the_end_of_the_file() {
    // bsrange 4k-16k over 12 KiB: whatever length is drawn, no I/O ends past the file.
    let spec = job(|j| {
        j.rw.random = false;
        j.bs = std::array::from_fn(|_| ferrio_config::BlockSize {
            min: 4096,
            max: 16384,
            split: Vec::new(),
        });
    });
    for seed in 1..20 {
        let mut p = Pattern::new(&spec, &region(12 << 10), &SeedSet::from_seed(seed, 1));
        let ios: Vec<(u64, u64)> = (0..30)
            .map(|_| p.next_io(u64::MAX))
            .map(|io| (io.offset, io.len))
            .collect();
        assert!(ios.iter().any(|&(_, len)| len > 4096), "{ios:?}");
        for (off, len) in &ios {
            assert!(off + len <= 12 << 10, "{ios:?}");
        }
    }
}

#[test]
fn percentage_random_mixes_random_and_sequential_offsets() {
    // percentage_random=50 over 1 GiB: about half the I/Os draw a random block, the
    // others go on sequentially (a random block right after the last I/O is almost
    // impossible), so about half the I/Os follow their predecessor; never all of them.
    let spec = job(|j| j.percentage_random = [50; 3]);
    let mut p = Pattern::new(&spec, &region(1 << 30), &seeds());
    let o = offsets(&mut p, 200);
    let follow = o.windows(2).filter(|w| w[1] == w[0] + 4096).count();
    // Bin(199, 1/2): mean 99.5, σ ≈ 7; the bounds also leave room for continuing
    // from the last sequential I/O instead (a quarter follow then).
    assert!((20..=160).contains(&follow), "{follow} of 199 follow");
}

#[test]
fn a_sequential_run_inside_a_random_job_stays_in_the_region() {
    // percentage_random=0 without a random map: at the end of the region fio takes a
    // random block instead of running past it.
    let spec = job(|j| {
        j.percentage_random = [0; 3];
        j.norandommap = true;
    });
    let mut p = Pattern::new(&spec, &region(4 * 4096), &seeds());
    let o = offsets(&mut p, 12);
    assert_eq!(o[..4], [0, 4096, 8192, 12288]);
    assert!(o.iter().all(|&x| x < 4 * 4096), "{o:?}");
    // Each end draws a random block (here 0, then 1 with this seed): the run does not
    // simply start over at the first block every time.
    assert_ne!(
        o[4..],
        [0, 4096, 8192, 12288, 0, 4096, 8192, 12288],
        "{o:?}"
    );
}

#[test]
fn zoned_abs_sends_the_share_to_its_byte_range() {
    // zoned_abs=60/64k:40/960k over 1 MiB: 60 % of the I/Os in the first 64 KiB.
    let spec = job(|j| {
        j.norandommap = true;
        j.random_distribution =
            RandomDistribution::ZonedAbs([vec![(60, 64 << 10), (40, 960 << 10)], vec![], vec![]]);
    });
    let mut p = Pattern::new(&spec, &region(1 << 20), &seeds());
    let o = offsets(&mut p, 2000);
    assert!(o.iter().all(|&x| x < 1 << 20));
    let first = o.iter().filter(|&&x| x < 64 << 10).count();
    // Bin(2000, 0.6): mean 1200, σ ≈ 22.
    assert!((1090..=1310).contains(&first), "{first}");
    // The upper half of the second zone: Bin(2000, 0.4 · 512/960), mean 427, σ ≈ 18.
    let upper = o.iter().filter(|&&x| x >= 512 << 10).count();
    assert!((337..=517).contains(&upper), "{upper}");
}

#[test]
fn an_accepted_move_sets_where_the_next_sequential_io_goes() {
    // zonemode=zbd moves an I/O; the next sequential one follows the moved I/O, in a
    // region that starts anywhere in the file.
    let spec = job(|j| j.rw.random = false);
    let regions = [Region {
        start: 1 << 20,
        len: 1 << 20,
    }];
    let mut p = Pattern::new(&spec, &regions, &seeds());
    let mut io = p.next_io_unlogged(u64::MAX);
    assert_eq!(io.offset, 1 << 20);
    io.offset = (1 << 20) + 65536;
    p.accepted(&mut io);
    assert_eq!(p.next_io(u64::MAX).offset, (1 << 20) + 65536 + 4096);
}

#[test]
fn the_plain_path_draws_what_the_general_one_does() {
    // The plain path (one file, uniform, no map, one block size) must hand out the
    // same I/Os, in order, and leave the same positions as `generate`'s general one.
    let cases: Vec<(JobSpec, u64)> = vec![
        (job(|j| j.norandommap = true), 1 << 20),
        (
            job(|j| {
                j.norandommap = true;
                j.rw.kind = RwKind::Write;
                j.bs[1].min = 8192;
                j.bs[1].max = 8192;
                j.blockalign[1] = 4096;
                j.random_generator = RandomGenerator::Tausworthe64;
            }),
            (1 << 20) + 4096 * 3 + 100,
        ),
        (
            job(|j| {
                j.norandommap = true;
                j.time_based = true;
                j.bs[0].min = 12288;
                j.bs[0].max = 12288;
            }),
            (1 << 20) + 512,
        ),
    ];
    for (spec, len) in cases {
        let mut plain = Pattern::new(&spec, &region(len), &seeds());
        assert!(plain.plain_lastb > 0, "{:?}", spec.rw);
        let mut general = Pattern::new(&spec, &region(len), &seeds());
        general.plain_lastb = 0;
        for i in 0..5000 {
            assert_eq!(
                plain.next_io(u64::MAX),
                general.next_io(u64::MAX),
                "I/O {i}"
            );
            if i == 2500 {
                assert_eq!(plain.reset_pass(), general.reset_pass());
            }
        }
        assert_eq!(plain.files[0].seq_pos, general.files[0].seq_pos);
        assert_eq!(plain.files[0].last_start, general.files[0].last_start);
        assert_eq!(plain.io_issues, general.io_issues);
    }
    // With the map (or a second file, or a block-size range) the general path runs.
    assert!(Pattern::new(&job(|_| {}), &region(1 << 20), &seeds()).plain_lastb == 0);
    let two = [Region {
        start: 0,
        len: 1 << 20,
    }; 2];
    assert!(Pattern::new(&job(|j| j.norandommap = true), &two, &seeds()).plain_lastb == 0);
}
