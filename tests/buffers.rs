//! Buffer contents (docs/buffers.md): what ferrio writes compresses and dedupes at the
//! ratios the options ask for, measured on the written file with a real compressor
//! (zlib, level 6) and a count of distinct blocks; and it is byte for byte what fio
//! 3.33 writes for the same job (skipped, with a message, where fio is absent unless
//! FERRIO_REQUIRE_FIO or CI is set).
//!
//! Tolerances: a compressed size within 4 points of (100 − buffer_compress_percentage) %
//! of the file (zlib adds a few bytes per 64 KiB of random data and its window finds
//! little else), and a share of distinct blocks within 5 points of
//! (100 − dedupe_percentage) % (1024 blocks: fio's per-buffer coin flips stay within
//! about 1.5 points of the percentage; the seeds are fixed, so the runs repeat).

mod common;
use common::*;
use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::Command;

const SIZE: &str = "4M";
const BS: usize = 4096;

/// Run a one-job write of SIZE to `path` with `tool` (ferrio or fio) and return the
/// file's bytes.
fn written(tool: &str, path: &Path, opts: &[&str]) -> Vec<u8> {
    let mut cmd = if tool == "fio" {
        Command::new("fio")
    } else {
        ferrio()
    };
    if tool != "fio" {
        // fio 3.33's offset seeding, so random writes land where fio's do.
        cmd.arg("--fio_seeds=3.33");
    }
    let out = cmd
        .args(["--name=buf", "--ioengine=psync", "--bs=4k"])
        .arg(format!("--size={SIZE}"))
        .arg(format!("--filename={}", path.display()))
        .args(opts.iter().map(|o| format!("--{o}")))
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{tool} {opts:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(path).expect("written file");
    std::fs::remove_file(path).expect("remove");
    bytes
}

/// zlib-compressed size / size.
fn compressed_share(bytes: &[u8]) -> f64 {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap().len() as f64 / bytes.len() as f64
}

/// Distinct `block`-byte blocks / blocks.
fn distinct_share(bytes: &[u8], block: usize) -> f64 {
    let blocks: HashSet<&[u8]> = bytes.chunks(block).collect();
    blocks.len() as f64 / bytes.len().div_ceil(block) as f64
}

/// ferrio's file for the job, checked against fio's when fio is there (the two run
/// at the same time, each on its own file).
fn ferrio_and_fio(opts: &[&str]) -> Vec<u8> {
    let dir = scratch();
    let (ours, theirs) = std::thread::scope(|s| {
        let fio_file = dir.path().join("fio.dat");
        let fio = have_fio().then(|| s.spawn(move || written("fio", &fio_file, opts)));
        let ours = written("ferrio", &dir.path().join("ferrio.dat"), opts);
        let theirs = fio.map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        (ours, theirs)
    });
    if let Some(theirs) = theirs {
        assert_eq!(ours.len(), theirs.len(), "{opts:?}: file sizes");
        let first = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        assert_eq!(first, None, "{opts:?}: first byte that differs from fio's");
    }
    ours
}

fn near(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: {:.1} %, asked for {:.1} % (± {:.1})",
        got * 100.0,
        want * 100.0,
        tol * 100.0
    );
}

#[test]
fn compress_percentage_compresses_as_asked() {
    let cases = [
        (&["rw=write", "buffer_compress_percentage=50"][..], 50.0),
        (
            &[
                "rw=write",
                "buffer_compress_percentage=25",
                "buffer_compress_chunk=1k",
            ][..],
            25.0,
        ),
        (
            &[
                "rw=randwrite",
                "randseed=7",
                "buffer_compress_percentage=80",
            ][..],
            80.0,
        ),
        (
            &[
                "rw=write",
                "buffer_compress_percentage=90",
                "buffer_compress_chunk=0",
            ][..],
            90.0,
        ),
    ];
    common::cases::each_case(&cases, |&(opts, p)| {
        let data = ferrio_and_fio(opts);
        near(
            compressed_share(&data),
            1.0 - p / 100.0,
            0.04,
            &format!("{opts:?} compressed size"),
        );
        // Compressible, yet no block repeats.
        near(
            distinct_share(&data, BS),
            1.0,
            0.0,
            &format!("{opts:?} distinct blocks"),
        );
    });
}

#[test]
fn compressible_part_is_the_pattern() {
    let data = ferrio_and_fio(&[
        "rw=write",
        "buffer_compress_percentage=30",
        "buffer_pattern=0xdeadbeef",
    ]);
    // Each 512-byte chunk: 358 random bytes, then the pattern from its first byte.
    let pattern = [0xde, 0xad, 0xbe, 0xef];
    for chunk in data.chunks(512).take(64) {
        for (i, &b) in chunk[358..].iter().enumerate() {
            assert_eq!(b, pattern[i % 4]);
        }
        assert_ne!(chunk[354..358], pattern);
    }
    near(compressed_share(&data), 0.70, 0.04, "compressed size");
}

#[test]
fn dedupe_percentage_dedupes_as_asked() {
    let cases = [
        (&["rw=write", "dedupe_percentage=40"][..], 40.0),
        (
            &["rw=randwrite", "randseed=3", "dedupe_percentage=70"][..],
            70.0,
        ),
        (
            &[
                "rw=write",
                "dedupe_percentage=50",
                "dedupe_mode=working_set",
                "dedupe_working_set_percentage=10",
            ][..],
            50.0,
        ),
        (
            &[
                "rw=write",
                "dedupe_percentage=25",
                "buffer_compress_percentage=50",
            ][..],
            25.0,
        ),
    ];
    common::cases::each_case(&cases, |&(opts, p)| {
        let data = ferrio_and_fio(opts);
        near(
            distinct_share(&data, BS),
            1.0 - p / 100.0,
            0.05,
            &format!("{opts:?} distinct blocks"),
        );
    });
    // Both at once: half of each block is zeroes, a quarter of the blocks repeat.
    let data = ferrio_and_fio(&[
        "rw=write",
        "dedupe_percentage=25",
        "buffer_compress_percentage=50",
    ]);
    assert!(compressed_share(&data) < 0.55);
}

#[test]
fn full_dedupe_is_one_chunk_repeated() {
    let data = ferrio_and_fio(&["rw=write", "dedupe_percentage=100"]);
    // Every 512-byte chunk (the default buffer_compress_chunk) is the same.
    assert_eq!(distinct_share(&data, 512), 512.0 / data.len() as f64);
}

#[test]
fn working_set_repeats_only_its_pages() {
    let data = ferrio_and_fio(&[
        "rw=write",
        "dedupe_percentage=60",
        "dedupe_mode=working_set",
        "dedupe_working_set_percentage=5",
    ]);
    // The repeated blocks come from the working set: 5 % of 4 MiB = 51 blocks.
    let mut count = std::collections::HashMap::<&[u8], u32>::new();
    for b in data.chunks(BS) {
        *count.entry(b).or_default() += 1;
    }
    let repeated = count.values().filter(|&&n| n > 1).count();
    assert!(
        (30..=51).contains(&repeated),
        "{repeated} distinct repeated blocks"
    );
}

#[test]
fn defaults_and_classic_options() {
    // Default: the unit's random buffer, filled once and scrambled per 512-byte sector
    // before each write (with the I/O's time, so not compared with fio's bytes): no
    // sector repeats, yet a compressor whose window spans two writes finds the rest of
    // the buffer again, as with fio.
    let dir = scratch();
    let data = written("ferrio", &dir.path().join("d.dat"), &["rw=write"]);
    near(distinct_share(&data, 512), 1.0, 0.0, "distinct sectors");
    assert!(compressed_share(&data) < 0.2);
    // (fio's random fill is 98 % incompressible: its words' low bits repeat.)
    assert!(compressed_share(&data[..BS]) > 0.95);
    // zero_buffers: zeroes; refill_buffers: fresh random data per write; a pattern.
    let zero = ferrio_and_fio(&["rw=write", "zero_buffers"]);
    assert!(zero.iter().all(|&b| b == 0));
    let refill = ferrio_and_fio(&["rw=write", "refill_buffers"]);
    assert!(compressed_share(&refill) > 0.95);
    near(distinct_share(&refill, 512), 1.0, 0.0, "distinct sectors");
    let pat = ferrio_and_fio(&["rw=write", "buffer_pattern=\"abc\""]);
    assert_eq!(&pat[..7], b"abcabca");
    // The pattern starts again at every buffer, so every block is the same.
    assert_eq!(distinct_share(&pat, BS), BS as f64 / pat.len() as f64);
    // 100 % compressible is zeroes.
    let full = ferrio_and_fio(&["rw=write", "buffer_compress_percentage=100"]);
    assert!(full.iter().all(|&b| b == 0));
}

#[test]
fn impossible_dedupe_settings_are_refused() {
    let dir = scratch();
    let file = file_in(dir.path(), "never");
    for (opts, says) in [
        (
            vec![
                "--dedupe_percentage=50",
                "--dedupe_mode=working_set",
                "--filename=X",
            ],
            "needs size=",
        ),
        (
            vec![
                "--size=1M",
                "--dedupe_percentage=60",
                "--dedupe_mode=working_set",
                "--dedupe_working_set_percentage=50",
                "--filename=X",
            ],
            "at most 100",
        ),
        (
            vec![
                "--size=1M",
                "--nrfiles=2",
                "--dedupe_percentage=60",
                "--dedupe_mode=working_set",
                "--directory=D",
            ],
            "one file per job",
        ),
        (
            vec!["--size=1M", "--dedupe_percentage=101", "--filename=X"],
            "dedupe_percentage",
        ),
        (
            vec![
                "--size=64k",
                "--dedupe_percentage=50",
                "--dedupe_mode=working_set",
                "--dedupe_working_set_percentage=1",
                "--filename=X",
            ],
            "working set is empty",
        ),
        (
            vec!["--size=1M", "--dedupe_mode=sometimes", "--filename=X"],
            "dedupe_mode",
        ),
    ] {
        let mut args = vec!["--name=bad", "--rw=write"];
        let d = path_str(dir.path());
        let opts: Vec<String> = opts
            .iter()
            .map(|o| o.replace('X', &file).replace('D', &d))
            .collect();
        args.extend(opts.iter().map(String::as_str));
        let out = ferrio().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing is touched"
    );
}

#[test]
fn each_loop_starts_the_buffer_stream_over() {
    // fio reseeds at every loop (randrepeat without randseed): the second loop's
    // writes take the seeds from the start, where the first loop's came after the
    // unit's initial fill; so loop 2's block k is loop 1's block k − 1.
    let one = ferrio_and_fio(&["rw=write", "refill_buffers"]);
    let two = ferrio_and_fio(&["rw=write", "refill_buffers", "loops=2"]);
    assert_eq!(two[BS..], one[..one.len() - BS]);
    assert_ne!(two[..BS], one[..BS]);
    // With randseed given, fio does not reseed: loop 2 goes on with new data.
    let seeded = ferrio_and_fio(&["rw=write", "refill_buffers", "loops=2", "randseed=9"]);
    let seeded_one = ferrio_and_fio(&["rw=write", "refill_buffers", "randseed=9"]);
    assert!(seeded
        .chunks(BS)
        .zip(seeded_one.chunks(BS))
        .all(|(a, b)| a != b));
    // Dedupe decisions start over too.
    ferrio_and_fio(&["rw=write", "dedupe_percentage=50", "loops=2"]);
}

#[test]
fn laid_out_files_hold_the_jobs_buffer_contents() {
    // A job that reads gets its file laid out first, with its own buffer contents
    // (fio's layout fills one largest-write block at a time from the thread's
    // stream): compressible when asked, unique blocks by default.
    let data = ferrio_and_fio(&["rw=read", "buffer_compress_percentage=60"]);
    near(
        compressed_share(&data),
        0.40,
        0.04,
        "laid-out compressed size",
    );
    let plain = ferrio_and_fio(&["rw=randread", "bs=8k"]);
    near(
        distinct_share(&plain, BS),
        1.0,
        0.0,
        "laid-out distinct blocks",
    );
    assert!(compressed_share(&plain) > 0.95);
    // A read-write job's writes go on from where the layout left the stream.
    ferrio_and_fio(&["rw=randrw", "refill_buffers", "dedupe_percentage=20"]);
    ferrio_and_fio(&["rw=write", "overwrite=1", "refill_buffers", "number_ios=16"]);
}

#[test]
fn a_create_serialize_0_job_fills_its_units_before_laying_out_its_file() {
    // fio lays such a job's file out in the job's own thread, after it has filled its
    // iodepth units (init_io_u, then setup_files): the layout takes the stream's
    // draws after the units' first fills, and the writes go on after the layout's.
    // (Found by scripts/fuzz-vs-fio, seed 270 job 50.)
    for extra in [
        &["number_ios=64"][..],
        &["number_ios=64", "buffer_compress_percentage=50"],
        &["number_ios=64", "iodepth=4", "ioengine=libaio", "bs=8k"],
        &["number_ios=64", "refill_buffers", "dedupe_percentage=50"],
    ] {
        let job = |serialize: &'static str| {
            let mut opts = vec!["rw=randrw", "scramble_buffers=0", serialize];
            opts.extend_from_slice(extra);
            ferrio_and_fio(&opts)
        };
        assert_ne!(
            job("create_serialize=0"),
            job("create_serialize=1"),
            "{extra:?}: the layout's draws move"
        );
    }
}

#[test]
fn unused_units_still_draw_their_first_fill() {
    // fio fills one buffer per iodepth unit at the start, even with a synchronous
    // engine that uses one: with iodepth=4 the written data starts three fills later.
    let one = ferrio_and_fio(&["rw=write", "refill_buffers"]);
    let four = ferrio_and_fio(&["rw=write", "refill_buffers", "iodepth=4"]);
    assert_eq!(four[..four.len() - 3 * BS], one[3 * BS..]);
}

#[test]
fn each_write_carries_the_buffer_fio_gives_it() {
    // Without refill_buffers a unit's buffer is filled once, so which unit carries a
    // write decides its bytes. fio takes units from a stack, the last one first: with
    // iodepth=4 a synchronous engine writes every block out of the fourth fill, and an
    // asynchronous one goes through units 3, 2, 1, 0, then reuses each as it completes.
    let one = ferrio_and_fio(&["rw=write", "scramble_buffers=0"]);
    let four = ferrio_and_fio(&["rw=write", "scramble_buffers=0", "iodepth=4"]);
    assert_ne!(one[..BS], four[..BS]);
    assert!(four.chunks(BS).all(|b| b == &four[..BS]), "one buffer");
    for engine in ["libaio", "io_uring"] {
        let engine = format!("ioengine={engine}");
        let data = ferrio_and_fio(&["rw=randwrite", "scramble_buffers=0", "iodepth=4", &engine]);
        let distinct: HashSet<&[u8]> = data.chunks(BS).collect();
        assert_eq!(distinct.len(), 4, "{engine}: four units' buffers");
    }
}
