//! ioengine=io_uring on temporary files: every rw mode with exact counts (buffered and
//! O_DIRECT), batching options, fixedbufs, registerfiles, nonvectored, force_async,
//! sqthread_poll, hipri, and clear errors. A test skips only when the kernel really has
//! no io_uring (or forbids it), and says so.

mod common;
mod engines_support;
use common::*;
use engines_support::*;

/// None when io_uring works here; Some(reason) when the kernel lacks or forbids it.
fn unavailable() -> Option<String> {
    match probe("io_uring", &["--iodepth=4"]) {
        Ok(_) => None,
        Err(e) if e.contains("io_uring_setup") => Some(e),
        Err(e) => panic!("io_uring probe job failed for another reason: {e}"),
    }
}

macro_rules! need_uring {
    () => {
        if let Some(why) = unavailable() {
            skip(&format!("the kernel has no usable io_uring: {why}"));
            return;
        }
    };
}

#[test]
fn every_mode_exact_counts() {
    need_uring!();
    every_mode("io_uring", &["--iodepth=16"]);
}

#[test]
fn every_mode_depth_one() {
    need_uring!();
    every_mode("io_uring", &["--iodepth=1"]);
}

#[test]
fn writes_land_at_the_right_offsets() {
    need_uring!();
    writes_land("io_uring", &["--iodepth=8"]);
    writes_land(
        "io_uring",
        &["--iodepth=8", "--fixedbufs", "--registerfiles"],
    );
    writes_land("io_uring", &["--iodepth=8", "--nonvectored=0"]);
    writes_land(
        "io_uring",
        &["--iodepth=8", "--nonvectored=1", "--force_async=2"],
    );
}

#[test]
fn engine_options() {
    need_uring!();
    for extra in [
        vec!["--fixedbufs"],
        vec!["--registerfiles"],
        vec!["--fixedbufs", "--registerfiles", "--direct=1"],
        vec!["--nonvectored=0"],
        vec!["--nonvectored=1"],
        vec!["--force_async=1"],
        vec!["--mem=shm"],
        vec!["--mem=mmap", "--fixedbufs"],
        vec!["--iomem_align=64k", "--direct=1"],
    ] {
        let d = if extra.contains(&"--direct=1") {
            match direct_scratch() {
                Some(d) => d,
                None => continue,
            }
        } else {
            scratch()
        };
        let file = file_in(d.path(), "f");
        let mut x = vec!["--iodepth=8"];
        x.extend(extra.iter().copied());
        let v = try_run(&job(&file, "io_uring", "randrw", 512 << 10, 4096, &x))
            .unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let (ios, _) = counts(&v);
        assert_eq!(ios[0] + ios[1], 128, "{extra:?}");
    }
}

#[test]
fn batching_keeps_exact_counts_and_fills_the_maps() {
    need_uring!();
    let d = scratch();
    for extra in [
        vec!["--iodepth=16", "--iodepth_batch=4"],
        vec![
            "--iodepth=16",
            "--iodepth_batch=0",
            "--iodepth_batch_complete_min=4",
            "--iodepth_batch_complete_max=16",
        ],
        vec![
            "--iodepth=16",
            "--iodepth_low=4",
            "--iodepth_batch_complete_max=16",
        ],
        vec![
            "--iodepth=8",
            "--iodepth_batch_complete_min=0",
            "--iodepth_batch_complete_max=0",
        ],
        vec![
            "--iodepth=8",
            "--iodepth_batch=3",
            "--iodepth_batch_complete_min=2",
        ],
    ] {
        let file = file_in(d.path(), "b");
        let v = try_run(&job(&file, "io_uring", "randread", 1 << 20, 4096, &extra))
            .unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let (ios, bytes) = counts(&v);
        assert_eq!(ios[0], 256, "{extra:?}");
        assert_eq!(bytes[0], 1 << 20);
        let j = &v["jobs"][0];
        let sum = |k: &str| -> f64 {
            j[k].as_object()
                .unwrap()
                .values()
                .map(|x| x.as_f64().unwrap())
                .sum()
        };
        for k in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
            assert!(
                (sum(k) - 100.0).abs() < 0.5,
                "{k} sums to {} with {extra:?}: {}",
                sum(k),
                j[k]
            );
        }
    }
    // With a submit batch of 4, every submission carries 4 I/Os (256 is a multiple of 4).
    let file = file_in(d.path(), "b4");
    let v = try_run(&job(
        &file,
        "io_uring",
        "randread",
        1 << 20,
        4096,
        &["--iodepth=16", "--iodepth_batch=4"],
    ))
    .unwrap();
    assert_eq!(
        v["jobs"][0]["iodepth_submit"]["4"].as_f64(),
        Some(100.0),
        "{}",
        v["jobs"][0]["iodepth_submit"]
    );
}

#[test]
fn slat_is_reported_for_an_async_engine() {
    need_uring!();
    let d = scratch();
    let file = file_in(d.path(), "s");
    let v = try_run(&job(
        &file,
        "io_uring",
        "randread",
        1 << 20,
        4096,
        &["--iodepth=8"],
    ))
    .unwrap();
    let r = &v["jobs"][0]["read"];
    assert!(
        r["slat_ns"]["N"].as_u64().unwrap() == 256,
        "{}",
        r["slat_ns"]
    );
    assert_eq!(r["clat_ns"]["N"].as_u64(), Some(256));
    assert_eq!(r["lat_ns"]["N"].as_u64(), Some(256));
}

#[test]
fn time_based_and_number_ios() {
    need_uring!();
    let d = scratch();
    let file = file_in(d.path(), "t");
    let v = try_run(&job(
        &file,
        "io_uring",
        "randread",
        256 << 10,
        4096,
        &[
            "--iodepth=32",
            "--number_ios=10",
            "--time_based",
            "--runtime=1",
        ],
    ))
    .unwrap();
    // A time-based job ignores number_ios, as fio 3.33 does: a second of I/O is far
    // more than ten.
    assert!(counts(&v).0[0] > 10, "{}", counts(&v).0[0]);
    let v = try_run(&job(
        &file,
        "io_uring",
        "randread",
        256 << 10,
        4096,
        &["--iodepth=32", "--number_ios=10"],
    ))
    .unwrap();
    assert_eq!(counts(&v).0[0], 10);
    let v = try_run(&job(
        &file,
        "io_uring",
        "randread",
        256 << 10,
        4096,
        &["--iodepth=32", "--loops=3"],
    ))
    .unwrap();
    assert_eq!(counts(&v).0[0], 3 * 64);
}

#[test]
fn sqthread_poll_runs_or_says_why_not() {
    need_uring!();
    match probe(
        "io_uring",
        &["--iodepth=8", "--sqthread_poll", "--sqthread_poll_cpu=0"],
    ) {
        Ok(v) => assert_eq!(counts(&v).0[0], 16),
        Err(e) => {
            assert!(
                e.contains("io_uring_setup") && e.contains("sqthread_poll"),
                "unclear error: {e}"
            );
            common::skip::skip(&format!("sqthread_poll not permitted here: {e}"));
        }
    }
}

#[test]
fn hipri_needs_direct_io() {
    need_uring!();
    let e = probe("io_uring", &["--hipri"]).unwrap_err();
    assert!(e.contains("hipri") && e.contains("direct=1"), "{e}");
}

#[test]
fn hipri_on_a_file_fails_clearly_or_runs() {
    need_uring!();
    let Some(d) = direct_scratch() else {
        return;
    };
    let file = file_in(d.path(), "h");
    // Regular files on most file systems cannot be polled: the kernel fails the I/O
    // with EOPNOTSUPP, which must surface as the job's error, not a hang.
    match try_run(&job(
        &file,
        "io_uring",
        "randread",
        64 << 10,
        4096,
        &["--hipri", "--direct=1", "--iodepth=4"],
    )) {
        Ok(v) => {
            let err = v["jobs"][0]["error"].as_i64().unwrap();
            if err == 0 {
                assert_eq!(counts(&v).0[0], 16);
            } else {
                assert_eq!(err, libc::EOPNOTSUPP as i64, "{v}");
            }
        }
        Err(e) => assert!(
            e.contains("Operation not supported") || e.contains("io_uring"),
            "{e}"
        ),
    }
}

#[test]
fn direct_io_block_size_must_match_the_logical_block_size() {
    need_uring!();
    let Some(d) = direct_scratch() else {
        return;
    };
    let file = file_in(d.path(), "lbs");
    std::fs::write(&file, vec![0u8; 1 << 20]).unwrap();
    let e = try_run(&job(
        &file,
        "io_uring",
        "randread",
        1 << 20,
        1000,
        &["--direct=1"],
    ))
    .map(|v| v.to_string())
    .unwrap_or_else(|e| e);
    assert!(e.contains("logical block size"), "{e}");
}

#[test]
fn depth_and_submit_maps_match_fio() {
    need_uring!();
    if !have_fio() {
        return;
    }
    let d = scratch();
    for extra in [
        vec!["--iodepth=8"],
        vec!["--iodepth=16", "--iodepth_batch=4", "--iodepth_low=8"],
    ] {
        let file = file_in(d.path(), "m");
        let args = job(&file, "io_uring", "randread", 4 << 20, 4096, &extra);
        let ours = try_run(&args).unwrap();
        let fa: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let theirs = fio_json(&fa);
        for k in ["iodepth_level", "iodepth_submit"] {
            assert_eq!(
                ours["jobs"][0][k], theirs["jobs"][0][k],
                "{k} with {extra:?}"
            );
        }
    }
}
