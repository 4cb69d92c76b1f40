//! The buffer policy's rules and fills, against fio's.

use super::*;
use ferrio_config::builder::Overrides;
use ferrio_config::jobfile::{parse_text, Env};
use ferrio_config::session::assemble;
use std::path::Path;

fn spec(opts: &[&str]) -> JobSpec {
    let text = format!("[t]\n{}\n", opts.join("\n"));
    let sections = parse_text(&text, Path::new("t.fio"), &Env::system()).unwrap();
    assemble(&[], &[sections], &[], &Overrides::default())
        .expect("options")
        .jobs
        .remove(0)
}

fn policy(opts: &[&str]) -> BufferPolicy {
    let s = spec(opts);
    BufferPolicy::with_seeds(&s, &SeedSet::from_seed(1, 1), 1 << 20, None).expect("policy")
}

#[test]
fn a_verify_job_refills_and_never_scrambles_as_fios() {
    let p = policy(&["rw=write", "verify=crc32c"]);
    assert!((p.refill, p.scramble) == (true, false));
    let p = policy(&["rw=write", "verify=md5", "refill_buffers=0"]);
    assert!((p.refill, p.scramble) == (false, false));
}

#[test]
fn fios_rules_between_the_options() {
    let p = policy(&["rw=write"]);
    assert!((p.content == Content::Random, p.refill, p.scramble) == (true, false, true));
    // zero_buffers given: no scrambling, unless scramble_buffers is given too.
    let p = policy(&["rw=write", "zero_buffers"]);
    assert!((p.content == Content::Zero, p.scramble) == (true, false));
    let p = policy(&["rw=write", "zero_buffers", "scramble_buffers=1"]);
    assert!(p.scramble);
    // Compression: refill unless refill_buffers was given; never scramble.
    let p = policy(&["rw=write", "buffer_compress_percentage=50"]);
    assert!((p.refill, p.scramble, p.chunked) == (true, false, true));
    let p = policy(&[
        "rw=write",
        "refill_buffers=0",
        "buffer_compress_percentage=50",
    ]);
    assert!(!p.refill);
    // 100 % is zero buffers, filled once; 0 % still stops scrambling.
    let p = policy(&["rw=write", "buffer_compress_percentage=100"]);
    assert!(
        (p.content == Content::Zero, p.refill, p.scramble, p.chunked)
            == (true, false, false, false)
    );
    let p = policy(&["rw=write", "buffer_compress_percentage=0"]);
    assert!((p.refill, p.scramble) == (false, false));
    // Dedupe turns refill on at parse time; a later refill_buffers=0 wins.
    let p = policy(&["rw=write", "dedupe_percentage=30"]);
    assert!((p.refill, p.scramble, p.chunked) == (true, false, true));
    let p = policy(&["rw=write", "dedupe_percentage=30", "refill_buffers=0"]);
    assert!(!p.refill);
    // A pattern: refilled when the job reads (so far), never scrambled or zeroed.
    let p = policy(&["rw=randrw", "zero_buffers", "buffer_pattern=0xab"]);
    assert!(
        (
            p.content == Content::Pattern(vec![0xab]),
            p.refill,
            p.scramble
        ) == (true, true, false)
    );
    let p = policy(&["rw=write", "buffer_pattern=0xab"]);
    assert!(!p.refill);
    let p = policy(&["buffer_pattern=0xab", "rw=write"]);
    assert!(p.refill, "fio looks at the mode given before the pattern");
}

#[test]
fn random_fills_draw_fios_buffer_stream() {
    let mut p = policy(&["rw=write", "refill_buffers"]);
    let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
    p.init(&mut a);
    p.prepare(&mut b, 0, 0);
    let mut r = FioRand::new(SeedSet::from_seed(1, 1).get(Stream::Buf), false);
    let (mut x, mut y) = (vec![0u8; 4096], vec![0u8; 4096]);
    fill::fill(&mut r, &mut x);
    fill::fill(&mut r, &mut y);
    assert_eq!((a, b), (x, y));
}

#[test]
fn a_read_only_job_draws_nothing_at_init() {
    let mut p = policy(&["rw=read"]);
    let mut a = vec![3u8; 64];
    p.init(&mut a);
    assert!(a.iter().all(|&x| x == 3));
}

#[test]
fn compressed_chunks_have_zero_tails() {
    let mut p = policy(&[
        "rw=write",
        "bs=4k",
        "buffer_compress_percentage=25",
        "buffer_compress_chunk=1k",
    ]);
    let mut b = vec![0xffu8; 4096];
    p.prepare(&mut b, 0, 0);
    for chunk in b.chunks(1024) {
        assert!(chunk[768..].iter().all(|&x| x == 0));
        assert!(chunk[..768].iter().filter(|&&x| x == 0).count() < 20);
    }
}

#[test]
fn scramble_stamps_every_sector() {
    let mut p = policy(&["rw=write"]);
    let mut b = vec![0u8; 4096];
    p.init(&mut b);
    let before = b.clone();
    p.prepare(&mut b, 8192, 3_000_000_005);
    let line = ((5u64 ^ 8192) & 7) as usize * 64;
    for (i, blk) in b.chunks(512).enumerate() {
        let w = |o: usize| u64::from_ne_bytes(blk[o..o + 8].try_into().unwrap());
        assert_eq!((w(line), w(48), w(56)), (8192 + 512 * i as u64, 3, 5));
    }
    assert_eq!(b[64..line.max(64)], before[64..line.max(64)]);
}

#[test]
fn empty_working_set_is_refused() {
    // (A size in bytes is refused when the job is read; a size=N% one only here, once
    // the planned size is known: 64 KiB.)
    let s = spec(&[
        "rw=write",
        "size=1m",
        "bs=4k",
        "dedupe_percentage=50",
        "dedupe_mode=working_set",
        "dedupe_working_set_percentage=1",
    ]);
    let e = BufferPolicy::with_seeds(&s, &SeedSet::from_seed(1, 1), 64 << 10, None).unwrap_err();
    assert!(e.contains("working set is empty"), "{e}");
}

#[test]
fn compressed_chunks_end_in_the_buffer_pattern() {
    // fio fills the compressible tail of each chunk with buffer_pattern, not zeroes.
    let mut p = policy(&[
        "rw=write",
        "bs=4k",
        "buffer_compress_percentage=25",
        "buffer_compress_chunk=1k",
        "buffer_pattern=0xab",
    ]);
    let mut b = vec![0u8; 4096];
    p.prepare(&mut b, 0, 0);
    for chunk in b.chunks(1024) {
        assert!(
            chunk[768..].iter().all(|&x| x == 0xab),
            "{:?}",
            &chunk[768..]
        );
    }
}
