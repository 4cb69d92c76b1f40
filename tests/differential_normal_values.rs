//! The normal report's deterministic lines, character for character, against Debian's
//! fio 3.33 (/usr/bin/fio) on the same jobs: the job header ("d: (g=0): rw=..., bs=...,
//! ioengine=..., iodepth=..."), "Starting N process(es)", the layout line, the I/O
//! depth lines ("IO depths", "submit", "complete"), "issued rwts", the "latency"
//! target line, and the amount of I/O (`io=`) of each "Run status" line (also with
//! significant_figures and sync_file_range, which change them). Timing-
//! dependent numbers (bandwidth, latencies, CPU, dates, pids) are not compared here.

mod common;
use common::*;

/// The lines compared in full.
fn deterministic_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let keep = (line.contains(": (g=") && line.contains("rw="))
            || t.starts_with("Starting ")
            || t.contains("Laying out IO file")
            || t.starts_with("IO depths")
            || t.starts_with("submit    :")
            || t.starts_with("complete  :")
            || t.starts_with("issued rwts:")
            || t.starts_with("latency   :");
        if keep {
            out.push(line.to_string());
        }
        // Run status lines: the direction and its io= field.
        for dir in ["READ:", "WRITE:", "TRIM:"] {
            if t.starts_with(dir) {
                let io = t
                    .split(", ")
                    .find(|f| f.starts_with("io="))
                    .unwrap_or("no io=");
                out.push(format!("{dir} {io}"));
            }
        }
    }
    out
}

#[test]
fn deterministic_lines_equal_fios() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let jobs: &[&[&str]] = &[
        &["--rw=read", "--bs=4k", "--size=1M"],
        &["--rw=write", "--bs=4k", "--size=1M", "--fsync=8"],
        &["--rw=randwrite", "--bs=16k", "--size=2M", "--ioengine=sync"],
        &["--rw=randread", "--bs=4k", "--size=1M", "--numjobs=2"],
        &[
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            "--numjobs=2",
            "--group_reporting",
        ],
        &[
            "--rw=read",
            "--bsrange=4k-4k",
            "--size=1M",
            "--ioengine=pvsync",
        ],
        &["--rw=read", "--bs=4k,8k", "--size=1M"],
        // a bsrange part that is not a range is skipped, its directions keep bs
        &["--rw=read", "--bsrange=4k-8k,8k", "--size=1M"],
        &["--rw=write", "--bsrange=8k,4k-16k", "--size=1M"],
        &[
            "--rw=write",
            "--bs=4k",
            "--size=1M",
            "--ioengine=libaio",
            "--iodepth=8",
            "--iodepth_batch=8",
            "--iodepth_batch_complete_min=8",
        ],
        &["--rw=read", "--bs=64k", "--size=1M", "--loops=2"],
        // sync_file_range: fio 3.33 counts each call in the write "short" column
        &[
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--sync_file_range=wait_before,write,wait_after:4",
        ],
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--sync_file_range=write",
        ],
        // significant_figures: block sizes and amounts of I/O with 1, 3 and 10 figures
        &[
            "--rw=read",
            "--bs=3k",
            "--size=1234k",
            "--significant_figures=1",
        ],
        &[
            "--rw=write",
            "--bs=3k",
            "--size=1234k",
            "--significant_figures=3",
        ],
        &[
            "--rw=read",
            "--bs=3k",
            "--size=1234k",
            "--significant_figures=10",
        ],
        // each header its job's value, the group's line its last job's (6, not 2)
        &[
            "--rw=read",
            "--bs=3k",
            "--size=1234k",
            "--significant_figures=2",
            "--name=e",
            "--rw=read",
            "--bs=5k",
            "--size=777k",
            "--significant_figures=6",
        ],
    ];
    for (i, job) in jobs.iter().enumerate() {
        let run = |who: &str| {
            let dir = d.path().join(format!("{who}{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            // directory is global, so a second job (--name=e) writes there too
            let mut a = vec![
                format!("--directory={}", path_str(&dir)),
                "--name=d".to_string(),
            ];
            a.extend(job.iter().map(|s| s.to_string()));
            let out = if who == "fio" {
                std::process::Command::new("fio").args(&a).output().unwrap()
            } else {
                run_ok(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>())
            };
            assert!(out.status.success(), "{who} {job:?}");
            String::from_utf8_lossy(&out.stdout).to_string()
        };
        let (t, o) = (run("fio"), run("ferrio"));
        assert_eq!(
            deterministic_lines(&o),
            deterministic_lines(&t),
            "{job:?}\n--- ferrio:\n{o}\n--- fio 3.33:\n{t}"
        );
        assert!(deterministic_lines(&t).len() >= 8, "{job:?}: {t}");
    }
}
