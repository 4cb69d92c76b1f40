//! ioengine=libaio (raw io_setup/io_submit/io_getevents) on temporary files: every rw
//! mode with exact counts, buffered and O_DIRECT; batching; userspace_reap; and the
//! job files in tests/jobs that use libaio, run unchanged but for their file names and sizes.

mod common;
mod engines_support;
use common::*;
use engines_support::*;

fn unavailable() -> Option<String> {
    match probe("libaio", &["--iodepth=4"]) {
        Ok(_) => None,
        Err(e) if e.contains("io_setup") => Some(e),
        Err(e) => panic!("libaio probe job failed for another reason: {e}"),
    }
}

macro_rules! need_aio {
    () => {
        if let Some(why) = unavailable() {
            skip(&format!("the kernel has no native AIO: {why}"));
            return;
        }
    };
}

#[test]
fn every_mode_exact_counts() {
    need_aio!();
    every_mode("libaio", &["--iodepth=16"]);
}

#[test]
fn writes_land_at_the_right_offsets() {
    need_aio!();
    writes_land("libaio", &["--iodepth=8"]);
    writes_land("libaio", &["--iodepth=8", "--mem=mmapshared"]);
}

#[test]
fn batching_and_userspace_reap() {
    need_aio!();
    let d = direct_scratch().unwrap_or_else(scratch);
    let direct = if direct_ok(d.path()) {
        "--direct=1"
    } else {
        "--direct=0"
    };
    for extra in [
        vec![
            "--iodepth=16",
            "--iodepth_batch=8",
            "--iodepth_batch_complete_min=4",
            "--iodepth_batch_complete_max=16",
            "--iodepth_low=4",
        ],
        vec![
            "--iodepth=8",
            "--iodepth_batch_complete_min=0",
            "--iodepth_batch_complete_max=8",
            "--userspace_reap",
        ],
        vec![
            "--iodepth=8",
            "--iodepth_batch_complete_min=0",
            "--iodepth_batch_complete_max=0",
            "--userspace_reap",
        ],
        vec!["--iodepth=1"],
    ] {
        let file = file_in(d.path(), "b");
        let mut x = extra.clone();
        x.push(direct);
        let v = try_run(&job(&file, "libaio", "randread", 1 << 20, 4096, &x))
            .unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        assert_eq!(counts(&v).0[0], 256, "{extra:?}");
    }
    // fio's batch rules: the submit and depth maps match fio's for the same job
    // (deterministic with O_DIRECT: every reap happens on a full queue).
    if direct == "--direct=1" && have_fio() {
        let file = file_in(d.path(), "b8");
        let args = job(
            &file,
            "libaio",
            "randread",
            1 << 20,
            4096,
            &["--iodepth=16", "--iodepth_batch=8", direct],
        );
        let ours = try_run(&args).unwrap();
        let fa: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let theirs = fio_json(&fa);
        for k in ["iodepth_submit", "iodepth_level"] {
            assert_eq!(ours["jobs"][0][k], theirs["jobs"][0][k], "{k}");
        }
    }
}

#[test]
fn fio_examples_run_with_libaio_unchanged() {
    need_aio!();
    // Our job files (tests/jobs) that use libaio, each modelled on one of fio's samples.
    for name in [
        "aio-depths.fio",
        "rand-read.fio",
        "rand-write.fio",
        "seq-read.fio",
        "seq-write.fio",
        "file-server.fio",
    ] {
        let d = scratch();
        let src = std::fs::read_to_string(jobs_dir().join(name)).expect("job file exists");
        assert!(src.contains("ioengine=libaio"), "{name} uses libaio");
        let text = adapt_example(&src, &path_str(d.path()));
        assert!(text.contains("ioengine=libaio"));
        if text.contains("direct=1") && !direct_ok(d.path()) {
            skip(&format!(
                "{name} needs O_DIRECT, which the temporary file system refuses"
            ));
            continue;
        }
        let job = d.path().join(name);
        std::fs::write(&job, text).unwrap();
        let v = run_json_in(d.path(), &[job.to_str().unwrap()]);
        for j in v["jobs"].as_array().unwrap() {
            assert_eq!(j["error"].as_i64(), Some(0), "{name}: {j}");
            let ios: u64 = ["read", "write"]
                .iter()
                .map(|d| j[d]["total_ios"].as_u64().unwrap())
                .sum();
            assert!(ios > 0, "{name}: no I/O");
        }
    }
}
