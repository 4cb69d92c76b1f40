//! fio 3.33's I/O sequence where a job's sizes and counts decide where a pass ends
//! (docs/random.md, "End of a pass"): sizes that are not a multiple of the block
//! size, filesize= above size=, a random offset past the region (fio fails it and the
//! file is done), number_ios over loops, and the null engine's file names. Each job
//! runs under fio and ferrio with write_iolog and the same seed; the logs must be
//! identical line for line, file names included (timestamps aside), and the laid-out
//! files the same size. A verifying job draws its write sizes from the read seed.
//!
//! Skipped (with a message) when fio is absent, unless FERRIO_REQUIRE_FIO or CI is set.

mod common;
use common::*;
use std::process::Command;

/// Every line of `tool`'s write_iolog for the job (timestamps dropped), then the
/// sizes of the files the job laid out, in name order. `existing` files (name, size)
/// are made, sparse, before the job runs.
fn log_of(tool: &str, opts: &[&str], existing: &[(&str, u64)]) -> Vec<String> {
    let d = scratch();
    for (name, size) in existing {
        let f = std::fs::File::create(d.path().join(name)).unwrap();
        f.set_len(*size).unwrap();
    }
    let mut cmd = if tool == "fio" {
        Command::new("fio")
    } else {
        ferrio()
    };
    let o = cmd
        .current_dir(d.path())
        .args(["--name=j", "--randrepeat=0", "--randseed=4321"])
        .arg("--write_iolog=io.log")
        .arg("--output-format=json")
        .args(opts)
        .output()
        .expect("run");
    assert!(
        o.status.success(),
        "{tool} {opts:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(d.path().join("io.log")).expect("iolog");
    let mut out: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .collect();
    let mut sizes: Vec<(String, u64)> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("j."))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().len())
        })
        .collect();
    sizes.sort();
    out.extend(sizes.into_iter().map(|(n, s)| format!("laid out {n} {s}")));
    out
}

fn assert_same(opts: &[&str]) {
    assert_same_over(opts, &[]);
}

fn assert_same_over(opts: &[&str], existing: &[(&str, u64)]) {
    // Each tool in a directory of its own: both run at the same time.
    let (f, r) = std::thread::scope(|s| {
        let fio = s.spawn(|| log_of("fio", opts, existing));
        let r = log_of("ferrio", opts, existing);
        (
            fio.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            r,
        )
    });
    let ios = |v: &[String]| {
        v.iter()
            .filter(|l| l.contains(" read ") || l.contains(" write "))
            .count()
    };
    assert!(ios(&f) > 1, "{opts:?}: fio logged only {f:?}");
    if let Some(i) = (0..f.len().max(r.len())).find(|&i| f.get(i) != r.get(i)) {
        panic!(
            "{opts:?}: first difference at line {}: fio {:?}, ferrio {:?} ({} vs {} I/Os)",
            i + 1,
            f.get(i),
            r.get(i),
            ios(&f),
            ios(&r)
        );
    }
}

#[test]
fn sizes_not_a_multiple_of_the_block_size_match_fio() {
    if !have_fio() {
        return;
    }
    let mut cases = Vec::new();
    for engine in ["--ioengine=null", "--ioengine=psync"] {
        for job in [
            // fio never starts an I/O in the partial last block; with a random map
            // (or sequentially) the file runs out first, without one the pass moves
            // size= bytes (one more I/O).
            &["--size=10k", "--bs=4k", "--rw=randread"][..],
            &["--size=10k", "--bs=4k", "--rw=read"],
            &["--size=10k", "--bs=4k", "--rw=rw"],
            &["--size=10k", "--bs=4k", "--rw=randrw", "--loops=2"],
            &["--size=10k", "--bs=4k", "--rw=randread", "--norandommap"],
            &["--size=30k", "--bs=4k", "--rw=randwrite", "--nrfiles=3"],
            &[
                "--size=66k",
                "--bs=4k",
                "--rw=randwrite",
                "--nrfiles=2",
                "--norandommap",
            ],
            &[
                "--size=66k",
                "--rw=randrw",
                "--nrfiles=2",
                "--bsrange=4k-16k",
                "--loops=2",
            ],
            &[
                "--size=66k",
                "--bs=8k",
                "--rw=randread",
                "--random_generator=lfsr",
                "--loops=2",
            ],
            &["--size=66k", "--bs=8k", "--rw=rw"],
            &[
                "--size=66k",
                "--bs=8k",
                "--rw=randrw",
                "--random_distribution=zoned:50/10:50/90",
            ],
            &["--size=1m", "--io_size=10k", "--bs=4k", "--rw=rw"],
        ] {
            let mut job = job.to_vec();
            job.push(engine);
            cases.push(job);
        }
    }
    common::cases::each_case(&cases, |job| assert_same(job));
}

/// fio checks a block against the job's size only at its start and against the file
/// at its end (fill_io_u; get_next_buflen returns a single block size unchecked), so
/// on a file longer than size= a sequential pass issues the partial last block whole:
/// size=1M bs=3k reads 342 blocks of a 2 MiB file and 341 of a new one (ferrio read
/// 341 of both). A random job's sequential part (percentage_random) takes that block
/// too, and on a file without room fails it, which ends the pass.
#[test]
fn a_partial_last_block_is_issued_whole_where_the_file_goes_on_like_fio() {
    if !have_fio() {
        return;
    }
    let mut cases = Vec::new();
    for job in [
        &["--rw=read"][..],
        &["--rw=write"],
        &["--rw=read", "--offset=64k", "--loops=2"],
        &["--rw=read", "--nrfiles=2", "--filename_format=f.$filenum"],
        &["--rw=randread", "--percentage_random=50"],
        &["--rw=randwrite", "--percentage_random=90", "--loops=2"],
    ] {
        for existing in [0, 2 << 20] {
            let mut job = job.to_vec();
            job.extend(["--size=1M", "--bs=3k"]);
            if !job.iter().any(|o| o.starts_with("--nrfiles")) {
                job.push("--filename=j.0.0");
            }
            cases.push((job, existing));
        }
    }
    // size=N% below 100 is rounded down to the block size (fio's setup_files), so
    // no partial block is left to run past: 50 % of 91 KiB in 16 KiB blocks is two.
    for job in [
        &["--rw=read"][..],
        &["--rw=randread", "--norandommap"],
        &["--rw=write"],
    ] {
        let mut job = job.to_vec();
        job.extend(["--size=50%", "--bs=16k", "--filename=j.0.0"]);
        cases.push((job, 93184));
    }
    common::cases::each_case(&cases, |(job, existing)| {
        let files: Vec<(&str, u64)> = if *existing == 0 {
            vec![]
        } else {
            vec![("j.0.0", *existing), ("f.0", *existing), ("f.1", *existing)]
        };
        assert_same_over(job, &files)
    });
    // Clones set up one after another: the one at offset 128k lays the file out to
    // 1152 KiB, so the one at 64k, set up after it, has room for its last block.
    let args = [
        "--name=j",
        "--filename=f",
        "--size=1M",
        "--bs=3k",
        "--numjobs=3",
        "--offset_increment=64k",
    ];
    let ios = |tool| {
        let d = scratch();
        let v = tool_json_in(tool, d.path(), &args);
        let jobs = v["jobs"].as_array().unwrap().iter();
        jobs.map(|j| j["read"]["total_ios"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    let fio = ios("fio");
    assert_eq!(fio, [341, 341, 342], "fio");
    assert_eq!(ios("ferrio"), fio, "reads per clone");
}

#[test]
fn filesize_above_size_does_size_worth_of_io_like_fio() {
    if !have_fio() {
        return;
    }
    for job in [
        &["--ioengine=psync", "--rw=randread"][..],
        &["--ioengine=psync", "--rw=read"],
        &["--ioengine=psync", "--rw=randread", "--nrfiles=2"],
        &["--ioengine=null", "--rw=randread", "--loops=3"],
        &["--ioengine=null", "--rw=randrw", "--nrfiles=3", "--loops=2"],
        &["--ioengine=null", "--rw=rw", "--nrfiles=3", "--loops=2"],
        &["--ioengine=null", "--rw=randread", "--norandommap"],
        &[
            "--ioengine=null",
            "--rw=randread",
            "--random_generator=lfsr",
            "--loops=2",
        ],
    ] {
        let mut job = job.to_vec();
        job.extend(["--size=64k", "--filesize=128k", "--bs=4k"]);
        assert_same(&job);
    }
}

#[test]
fn a_random_offset_past_the_region_ends_the_pass_like_fio() {
    if !have_fio() {
        return;
    }
    // Writes of 16k on a random map kept in 4k blocks (fio's quirk): near the end of
    // the pass the next free block lies past the last 16k slot, fio fails the I/O and
    // the file is done (ferrio used to wrap it to offset 0).
    for job in [
        &["--rw=randrw", "--bssplit=4k/50:8k/50,16k/"][..],
        &["--rw=randrw", "--bssplit=4k/50:8k/50,16k/", "--loops=2"],
        &[
            "--rw=randrw",
            "--bs_is_seq_rand=1",
            "--bs=4k,16k",
            "--percentage_random=50",
        ],
        &[
            "--rw=randwrite",
            "--bs_is_seq_rand=1",
            "--bssplit=4k/50:8k/50,16k/",
            "--percentage_random=30",
            "--nrfiles=2",
        ],
        &["--rw=randrw", "--bsrange=4k-64k", "--nrfiles=2"],
    ] {
        let mut job = job.to_vec();
        job.extend(["--ioengine=null", "--size=256k"]);
        assert_same(&job);
    }
}

#[test]
fn number_ios_counts_over_all_loops_like_fio() {
    if !have_fio() {
        return;
    }
    for job in [
        &["--rw=randread", "--size=1m", "--number_ios=10", "--loops=3"][..],
        &["--rw=randread", "--size=16k", "--number_ios=3", "--loops=3"],
        &["--rw=read", "--size=16k", "--number_ios=6", "--loops=2"],
        &["--rw=randrw", "--size=1m", "--number_ios=5", "--loops=2"],
    ] {
        let mut job = job.to_vec();
        job.extend(["--ioengine=null", "--bs=4k"]);
        assert_same(&job);
    }
}

#[test]
fn number_ios_is_ignored_by_a_time_based_job_as_fio_does() {
    let job = [
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--rw=randread",
        "--number_ios=10",
        "--time_based",
        "--runtime=1s",
    ];
    let ios = |v: &serde_json::Value| v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    // Ten null I/Os take microseconds; a second of them is far more, however loaded
    // the machine.
    assert!(ios(&run_json(&job)) > 10);
    if have_fio() {
        assert!(ios(&fio_json(&job)) > 10, "fio stopped at number_ios");
    }
    // Without time_based the limit holds (1 MiB would be 256 I/Os).
    assert_eq!(ios(&run_json(&job[..5])), 10);
}

#[test]
fn the_null_engine_names_its_files_as_fio_does() {
    if !have_fio() {
        return;
    }
    for job in [
        &["--nrfiles=3"][..],
        &[
            "--nrfiles=3",
            "--filename_format=f.$jobnum.$filenum",
            "--file_service_type=random",
        ],
        &["--filename=a:b"],
    ] {
        let mut job = job.to_vec();
        job.extend(["--ioengine=null", "--size=96k", "--bs=4k", "--rw=randrw"]);
        assert_same(&job);
    }
}

/// filesize=LOW-HIGH: each file's size is a draw of fio's file-size stream, in file
/// order, rounded down to the smallest block size; a file that exists with a size in
/// the range keeps it and takes no draw (runner/filesize_range.rs). The sizes show in
/// the iologs (where each file's I/O ends) and in the laid-out files.
#[test]
fn filesize_ranges_draw_fios_sizes() {
    if !have_fio() {
        return;
    }
    assert_same(&["--nrfiles=4", "--filesize=64k-1m", "--rw=randread"]);
    // Two threads draw from seeds of their own; their iolog lines interleave as they
    // run, so only the laid-out sizes are compared.
    let opts = [
        "--numjobs=2",
        "--nrfiles=2",
        "--filesize=64k-1m",
        "--bs=4k,16k",
        "--rw=write",
    ];
    let sizes = |tool| -> Vec<String> {
        let lines = log_of(tool, &opts, &[]);
        lines
            .into_iter()
            .filter(|l| l.starts_with("laid out"))
            .collect()
    };
    let fio = sizes("fio");
    assert_eq!(fio.len(), 4, "{fio:?}");
    assert_eq!(fio, sizes("ferrio"));
    assert_same(&[
        "--nrfiles=3",
        "--filesize=100k-300k",
        "--random_generator=tausworthe64",
        "--rw=read",
    ]);
    // j.0.0 is kept at 100 KiB, j.0.1 (2 MiB, outside the range) reads a drawn size.
    assert_same_over(
        &["--nrfiles=3", "--filesize=64k-1m", "--rw=read"],
        &[("j.0.0", 100 << 10), ("j.0.1", 2 << 20)],
    );
}

/// Threads sharing one file with a filesize= range: fio sets up each thread's files
/// before the next one's (create_serialize), so the first draws the size and lays the
/// file out, and the others find it in the range and keep it (ferrio drew a size for
/// each clone, and one read past the file's end).
#[test]
fn threads_sharing_a_file_keep_the_size_the_first_drew_like_fio() {
    if !have_fio() {
        return;
    }
    let args = [
        "--name=j",
        "--filename=shared",
        "--size=1M",
        "--filesize=64k-256k",
        "--rw=randread",
        "--numjobs=3",
        "--randrepeat=0",
        "--randseed=4321",
    ];
    let run = |tool| {
        let d = scratch();
        let v = tool_json_in(tool, d.path(), &args);
        let ios: Vec<u64> = v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["read"]["total_ios"].as_u64().unwrap())
            .collect();
        let size = std::fs::metadata(d.path().join("shared")).unwrap().len();
        (ios, size)
    };
    let (fio, ferrio) = (run("fio"), run("ferrio"));
    assert!(
        fio.0.iter().all(|&n| n > 0 && n * 4096 <= fio.1),
        "fio: {fio:?}"
    );
    assert_eq!(ferrio, fio, "reads per clone and the file's size");
}

/// A later job over a file an earlier job lays out sizes itself from that layout, not
/// from the file as it was before the run: fio sets every job's files up in turn
/// (create_serialize), so `size=50%` and a job without size= see the writer's 1 MiB,
/// not the 256 KiB on disk (ferrio read 128 KiB and 256 KiB).
#[test]
fn a_later_job_sizes_itself_from_the_file_an_earlier_job_lays_out_like_fio() {
    if !have_fio() {
        return;
    }
    for size in [Some("--size=50%"), None, Some("--offset=50%")] {
        let mut args = vec![
            "--name=a",
            "--filename=f",
            "--size=1M",
            "--rw=write",
            "--name=b",
            "--stonewall",
            "--filename=f",
            "--rw=read",
        ];
        args.extend(size);
        let run = |tool| {
            let d = scratch();
            std::fs::write(d.path().join("f"), vec![0u8; 256 << 10]).unwrap();
            let v = tool_json_in(tool, d.path(), &args);
            let jobs = v["jobs"].as_array().unwrap();
            let read = jobs[1]["read"]["io_bytes"].as_u64().unwrap();
            let size = std::fs::metadata(d.path().join("f")).unwrap().len();
            (read, size)
        };
        let (fio, ferrio) = (run("fio"), run("ferrio"));
        assert_eq!(fio.1, 1 << 20, "fio laid the file out: {size:?}");
        assert_eq!(
            ferrio, fio,
            "{size:?}: the reader's bytes and the file's size"
        );
    }
    // A file missing before the run: each clone's offset=25% is of the file as the
    // setups before it leave it (1 MiB, then 2.25 MiB), so the file ends at
    // 576 KiB + 2 MiB (ferrio took 25% of size= for both: 2.5 MiB).
    let args = [
        "--name=j",
        "--filename=f",
        "--size=1M",
        "--name=k",
        "--filename=f",
        "--numjobs=2",
        "--size=2M",
        "--offset=25%",
        "--new_group",
    ];
    let size = |tool| {
        let d = scratch();
        tool_json_in(tool, d.path(), &args);
        std::fs::metadata(d.path().join("f")).unwrap().len()
    };
    let fio = size("fio");
    assert_eq!(fio, (576 << 10) + (2 << 20), "fio");
    assert_eq!(size("ferrio"), fio, "the file's size");
}

/// fio sets up create_serialize jobs' files one after another (extend_file), so a
/// file_append job starts at the end the setups before it leave. A reading clone's
/// setup lays the file out to its region's end, so the next clone reads after it; a
/// writing one's only fallocates, which makes the file longer with native, posix and
/// truncate, not with none or keep. (ferrio read and wrote both clones' first MiB.)
#[test]
fn file_append_clones_start_where_the_setups_before_them_end_like_fio() {
    if !have_fio() {
        return;
    }
    let base = [
        "--name=j",
        "--filename=f",
        "--size=1M",
        "--bs=256k",
        "--file_append=1",
        "--numjobs=2",
    ];
    for extra in [
        ["--rw=read", "--fallocate=none"],
        ["--rw=write", "--fallocate=none"],
        ["--rw=write", "--fallocate=keep"],
        ["--rw=write", "--fallocate=native"],
        ["--rw=write", "--fallocate=posix"],
    ] {
        let args: Vec<&str> = base.iter().chain(&extra).copied().collect();
        let run = |tool| {
            let d = scratch();
            let v = tool_json_in(tool, d.path(), &args);
            let mut moved: Vec<u64> = v["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| {
                    j["read"]["io_bytes"].as_u64().unwrap()
                        + j["write"]["io_bytes"].as_u64().unwrap()
                })
                .collect();
            moved.sort();
            (moved, std::fs::metadata(d.path().join("f")).unwrap().len())
        };
        let (fio, ferrio) = (run("fio"), run("ferrio"));
        assert_eq!(fio.0, [1 << 20, 1 << 20], "{extra:?}: fio's clones");
        assert_eq!(
            ferrio, fio,
            "{extra:?}: bytes per clone and the file's size"
        );
    }
    // A writer without overwrite or file_append unlinks a file too short for it and
    // makes it anew; with fallocate=none it stays empty, so a later job sized from
    // it has nothing to do (fio fails that job; ferrio refuses the run).
    let args = [
        "--name=a",
        "--filename=f",
        "--size=1M",
        "--rw=write",
        "--fallocate=none",
        "--name=b",
        "--stonewall",
        "--filename=f",
        "--rw=read",
    ];
    let d = scratch();
    std::fs::write(d.path().join("f"), vec![0u8; 256 << 10]).unwrap();
    let out = Command::new("fio")
        .current_dir(d.path())
        .args(args)
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "fio fails the reader");
    let v = parse_json(&out.stdout);
    assert_eq!(v["jobs"][1]["error"], 22, "the reader's error");
    std::fs::write(d.path().join("f"), vec![0u8; 256 << 10]).unwrap();
    let out = ferrio().current_dir(d.path()).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "job 'b': size= is not set and 'f' is empty once the jobs before it are set up"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::metadata(d.path().join("f")).unwrap().len(),
        256 << 10
    );
}

/// A bsrange after a bssplit sets the smallest and largest block size (fio's header
/// shows them); the split still picks the sizes, aligned down to that smallest size
/// and cut at the largest, and the job stops once less than the largest is left of
/// io_size, as fio's option order and get_next_buflen make it.
#[test]
fn a_bsrange_after_a_bssplit_bounds_its_sizes_like_fio() {
    if !have_fio() {
        return;
    }
    assert_same(&[
        "--size=1M",
        "--loops=2",
        "--rw=randrw",
        "--bssplit=4k/50:64k/30:1k/",
        "--bsrange=1k-8k",
    ]);
    assert_same(&[
        "--size=1M",
        "--io_size=1M",
        "--rw=rw:8k",
        "--rwmixread=90",
        "--bssplit=4k/50:8k/50,8k/100",
        "--bsrange=4k-64k",
    ]);
    // Before the bssplit, a bsrange changes nothing.
    assert_same(&[
        "--size=1M",
        "--rw=randread",
        "--bsrange=1k-2k",
        "--bssplit=4k/50:16k/50",
    ]);
}

#[test]
fn a_verifying_job_draws_its_write_sizes_from_the_read_seed_like_fio() {
    if !have_fio() {
        return;
    }
    // fio seeds write's size stream like read's once verify= is set, so the same
    // bssplit draws other sizes than without verify (146 writes against 124 here).
    assert_same(&[
        "--size=1M",
        "--rw=randwrite",
        "--bssplit=4k/50:16k/50",
        "--verify=crc32c",
        "--do_verify=0",
    ]);
    // The read-back is logged too; a mixed job's reads keep their own sizes.
    assert_same(&[
        "--size=1M",
        "--rw=randrw",
        "--bsrange=4k-32k",
        "--verify=md5",
    ]);
}

#[test]
fn numjobs_clones_take_fios_offsets_in_fios_order() {
    // fio's first clone is subjob numjobs-1: with offset_increment the second job in
    // the report is the one furthest into the file (a 12 MiB file, write:112k).
    let per_job = |tool: &str| -> Vec<u64> {
        let d = scratch();
        let job = [
            "--name=j",
            "--bs=16k",
            "--rw=write:112k",
            "--filesize=12m",
            "--offset=120k",
            "--offset_increment=4m",
            "--io_size=3m",
            "--loops=2",
            "--numjobs=3",
        ];
        let v = tool_json_in(tool, d.path(), &job);
        let jobs = v["jobs"].as_array().unwrap();
        jobs.iter()
            .map(|j| j["write"]["total_ios"].as_u64().unwrap())
            .collect()
    };
    let ours = per_job("ferrio");
    // Two loops of 3 MiB where the file leaves room; 8 MiB in, its end comes first.
    assert_eq!(ours, [285, 217, 252]);
    assert!(
        ours[1] < ours[2],
        "the first clone starts furthest in: {ours:?}"
    );
    if have_fio() {
        assert_eq!(ours, per_job("fio"));
    }
}

/// file_append with filesize=: the file ends at filesize=, so only what is missing
/// up to it is appended; a file already within it (or past it, or a job with
/// neither size= nor filesize=) has nothing to append, which fio fails and ferrio
/// refuses, touching nothing.
#[test]
fn file_append_with_filesize_appends_up_to_it_like_fio() {
    if !have_fio() {
        return;
    }
    let run = |tool: &str, before: u64, opts: &[&str]| {
        let d = scratch();
        let f = d.path().join("f");
        std::fs::write(&f, vec![0u8; before as usize]).unwrap();
        let o = tool_cmd(tool)
            .current_dir(d.path())
            .args(["--name=j", "--filename=f", "--file_append=1"])
            .args(opts)
            .arg("--output-format=json")
            .output()
            .expect("run");
        let moved = o.status.success().then(|| {
            let v = parse_json(&o.stdout);
            v["jobs"][0]["write"]["io_bytes"].as_u64().unwrap()
                + v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap()
        });
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        (moved, std::fs::metadata(&f).unwrap().len(), err)
    };
    // (file before, options, bytes fio moves, the file's size after)
    for (before, opts, moved, after) in [
        (
            64 << 10,
            &["--rw=write", "--filesize=128k"][..],
            64 << 10,
            128 << 10,
        ),
        (64 << 10, &["--rw=read", "--filesize=96k-256k"][..], 0, 0),
        (
            0,
            &["--rw=write", "--filesize=128k"][..],
            128 << 10,
            128 << 10,
        ),
        (
            64 << 10,
            &["--rw=write", "--size=64k"][..],
            64 << 10,
            128 << 10,
        ),
    ] {
        let fio = run("fio", before, opts);
        let ours = run("ferrio", before, opts);
        if moved > 0 {
            assert_eq!((fio.0, fio.1), (Some(moved), after), "{opts:?}: fio");
            assert_eq!((ours.0, ours.1), (fio.0, fio.1), "{opts:?}: {}", ours.2);
        } else {
            // (a drawn size: fio's and ferrio's draws differ, the region's start not)
            let (f, o) = (fio.0.unwrap(), ours.0.unwrap());
            assert!(
                f > 0 && f % 4096 == 0 && f <= (256 << 10) - before,
                "{opts:?}: {f}"
            );
            assert!(
                o > 0 && o % 4096 == 0 && o <= (256 << 10) - before,
                "{opts:?}: {o}"
            );
        }
    }
    // Nothing to append: fio fails, ferrio refuses and leaves the file as it was.
    for (opts, says) in [
        (
            &["--rw=write", "--filesize=64k"][..],
            "within filesize=64KiB",
        ),
        (&["--rw=write", "--filesize=32k"][..], "past filesize=32KiB"),
        (&["--rw=write"][..], "size= and filesize= are not set"),
        (
            &["--rw=write", "--filesize=128k", "--numjobs=2"][..],
            "'f' is 128KiB long once the jobs before it are set up",
        ),
    ] {
        let fio = run("fio", 64 << 10, opts);
        assert_eq!(fio.0, None, "{opts:?}: fio fails");
        let ours = run("ferrio", 64 << 10, opts);
        assert_eq!(ours.0, None, "{opts:?}: ferrio refuses");
        assert!(ours.2.contains(says), "{opts:?}: {}", ours.2);
        assert_eq!(ours.1, 64 << 10, "{opts:?}: the file is left as it was");
    }
}

/// A file missing before the run that an earlier writer's setup only creates
/// (fallocate=none) is empty when a later job without size= is sized, as in fio,
/// which fails that job ("you need to specify size="); ferrio refuses the run. It
/// sized such a job at its start, from what the writer left, before 2026-11-25.
#[test]
fn a_job_sized_from_a_file_an_earlier_setup_leaves_empty_is_refused_like_fio() {
    let args = [
        "--name=j",
        "--filename=f",
        "--size=1M",
        "--rw=write",
        "--fallocate=none",
        "--name=k",
        "--stonewall",
        "--filename=f",
        "--rw=read",
    ];
    let d = scratch();
    let out = ferrio().current_dir(d.path()).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "job 'k': size= is not set and 'f' is empty once the jobs before it are set up"
        ),
        "{err}"
    );
    assert!(!d.path().join("f").exists(), "nothing is touched");
    if have_fio() {
        let out = tool_cmd("fio")
            .args(args)
            .arg("--output-format=json")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "fio fails the reader");
        assert_eq!(parse_json(&out.stdout)["jobs"][1]["error"], 22);
    }
}
