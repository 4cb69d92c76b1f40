//! read_iolog_chunked=1 (docs/random.md): a long log replayed while it is read in
//! chunks issues the same I/Os as the same log read whole (recorded with
//! write_iolog and compared line for line), gzip'd or not, over loops, with the
//! replay options and the log's timing; fio 3.33 replays it to the same counts.

mod common;
use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A version 2 log of `n` I/Os over two files: reads and writes of four sizes at
/// scattered offsets, with file actions and syncs among them.
fn long_log(dir: &Path, n: usize, gzip: bool) -> PathBuf {
    let (a, b) = (file_in(dir, "a.dat"), file_in(dir, "b.dat"));
    let mut s = format!("fio version 2 iolog\n{a} add\n{b} add\n{a} open\n{b} open\n");
    for i in 0..n {
        let f = if i % 3 == 1 { &b } else { &a };
        let op = if (i / 2) % 3 == 0 { "write" } else { "read" };
        let len = 512u64 << (i % 4);
        let off = (i as u64 * 7919 % 4096) * 4096;
        s += &format!("{f} {op} {off} {len}\n");
        if i % 1000 == 999 {
            s += &format!("{f} sync 0 0\n");
        }
    }
    s += &format!("{a} close\n{b} close\n");
    let p = dir.join(if gzip { "long.iolog.gz" } else { "long.iolog" });
    let mut out = std::fs::File::create(&p).unwrap();
    if gzip {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(s.as_bytes()).unwrap();
        out.write_all(&z.finish().unwrap()).unwrap();
    } else {
        out.write_all(s.as_bytes()).unwrap();
    }
    p
}

/// Replay `log` on the null engine, recording what was issued; the JSON result and
/// the recorded I/O lines without their timestamps.
fn replay(dir: &Path, log: &Path, tag: &str, extra: &[&str]) -> (serde_json::Value, Vec<String>) {
    let rec = dir.join(format!("{tag}.rec"));
    let mut a = vec![
        "--name=r".to_string(),
        "--ioengine=null".to_string(),
        format!("--read_iolog={}", log.display()),
        format!("--write_iolog={}", rec.display()),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let v = run_json(&a);
    let text = std::fs::read_to_string(&rec).unwrap();
    let lines = text
        .lines()
        .skip(1)
        .map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest).to_string())
        .collect();
    (v, lines)
}

fn counts(v: &serde_json::Value) -> [(u64, u64); 2] {
    [dir_counts(v, "read"), dir_counts(v, "write")]
}

/// Entries a chunked replay reads at a time (src/runner/replay/stream.rs CHUNK).
const CHUNK: usize = 4096;

#[test]
fn a_chunked_replay_of_a_long_log_issues_the_whole_logs_ios() {
    // Five chunks and a part of one: every pass crosses four chunk boundaries and
    // ends inside a chunk.
    const N: usize = 5 * CHUNK + 123;
    let d = scratch();
    let (plain, gz) = (long_log(d.path(), N, false), long_log(d.path(), N, true));
    let redirect = format!("--replay_redirect={}", file_in(d.path(), "redirected"));
    let cases = [
        (&gz, &["--replay_no_stall=1"][..]),
        (
            &plain,
            &["--loops=2", "--replay_scale=2", "--replay_align=4096"],
        ),
        (&plain, &["--replay_skip=write", redirect.as_str()]),
    ];
    for (log, extra) in cases {
        let gzip = log == &gz;
        let whole = replay(d.path(), log, "whole", extra);
        let mut chunked_args = extra.to_vec();
        chunked_args.push("--read_iolog_chunked=1");
        let chunked = replay(d.path(), log, "chunked", &chunked_args);
        let what = format!("gzip {gzip} {extra:?}");
        assert_eq!(counts(&chunked.0), counts(&whole.0), "{what}");
        let ios: u64 = counts(&whole.0).iter().map(|c| c.1).sum();
        let loops = if extra.contains(&"--loops=2") { 2 } else { 1 };
        let skipped = extra.contains(&"--replay_skip=write");
        let expect = if skipped {
            (0..N).filter(|i| (i / 2) % 3 != 0).count()
        } else {
            N
        };
        assert_eq!(ios, (expect * loops) as u64, "{what}");
        assert_eq!(chunked.1.len(), whole.1.len(), "{what}");
        // The same I/Os in the same order (and the same file actions).
        if let Some(i) = (0..whole.1.len()).find(|&i| chunked.1[i] != whole.1[i]) {
            panic!(
                "{what}: line {i} differs: chunked '{}', whole '{}'",
                chunked.1[i], whole.1[i]
            );
        }
    }
}

/// The log's timing is replayed the same chunked or whole: on the simulated device
/// in virtual time the due-time lateness and completion latencies are identical.
#[test]
fn a_chunked_timed_replay_keeps_the_logs_timing() {
    let d = scratch();
    let mut s = String::from("fio version 3 iolog\n0 f add\n0 f open\n");
    let mut t = 100u64;
    for i in 0..3000u64 {
        t += [10, 250, 40, 1000][(i % 4) as usize];
        s += &format!("{t} f read {} 4096\n", (i % 64) * 4096);
    }
    s += &format!("{} f close\n", t + 5);
    let log = d.path().join("timed.iolog");
    std::fs::write(&log, s).unwrap();
    let run = |extra: &[&str]| {
        let log = format!("--read_iolog={}", log.display());
        let mut a = vec![
            "--name=r",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--sim_lat=fixed:100us",
            "--sim_bw=0",
            "--sim_channels=1",
            "--iodepth=1",
            "--due_lat=1",
            "--replay_time_scale=200",
            log.as_str(),
        ];
        a.extend_from_slice(extra);
        run_json(&a)
    };
    let (whole, chunked) = (run(&[]), run(&["--read_iolog_chunked=1"]));
    let r = |v: &serde_json::Value| v["jobs"][0]["read"].clone();
    assert_eq!(r(&whole)["total_ios"].as_u64(), Some(3000));
    for key in ["total_ios", "io_bytes", "due_lat_ns", "clat_ns", "lat_ns"] {
        assert_eq!(r(&chunked)[key], r(&whole)[key], "{key}");
    }
    assert_eq!(
        chunked["jobs"][0]["job_runtime"],
        whole["jobs"][0]["job_runtime"]
    );
}

/// fio 3.33 replays the long log, read in chunks, to the same counts as ferrio.
#[test]
fn fio_replays_the_long_log_chunked_to_the_same_counts() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for name in ["a.dat", "b.dat"] {
        let f = std::fs::File::create(d.path().join(name)).unwrap();
        f.set_len(16 << 20).unwrap();
    }
    const N: usize = 5 * CHUNK + 123;
    let log = long_log(d.path(), N, false);
    let read_iolog = format!("--read_iolog={}", log.display());
    let a = [
        "--name=r",
        "--ioengine=psync",
        read_iolog.as_str(),
        "--read_iolog_chunked=1",
        "--replay_no_stall=1",
    ];
    let (ours, fio) = (run_json(&a), fio_json(&a));
    assert_eq!(counts(&ours), counts(&fio));
    assert_eq!(counts(&ours)[0].1 + counts(&ours)[1].1, N as u64);
}

/// The point of reading in chunks: a log ten times longer replays in about the same
/// memory (peak RSS, from /usr/bin/time), while read whole it takes tens of MB more
/// (the control that shows the measurement sees a log held in memory).
#[test]
fn a_chunked_replay_of_a_ten_times_longer_log_needs_no_more_memory() {
    let Some(time) = skip::tool_or_skip("time") else {
        return;
    };
    let d = scratch();
    let write = |name: &str, n: usize| {
        let p = d.path().join(name);
        let mut s = String::from("fio version 2 iolog\na add\na open\n");
        for i in 0..n {
            let op = if i % 3 == 0 { "write" } else { "read" };
            s += &format!("a {op} {} 4096\n", (i as u64 * 7919 % 4096) * 4096);
        }
        std::fs::write(&p, s).unwrap();
        p
    };
    let (small, big) = (write("small.iolog", 80_000), write("big.iolog", 800_000));
    // Peak RSS in KiB of a replay of `log`.
    let peak_kib = |log: &Path, chunked: bool| -> u64 {
        let out = d.path().join("rss");
        let st = std::process::Command::new(&time)
            .arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&out)
            .arg(env!("CARGO_BIN_EXE_ferrio"))
            .args(["--name=r", "--ioengine=null", "--replay_no_stall=1"])
            .arg(format!("--read_iolog={}", log.display()))
            .arg(format!("--read_iolog_chunked={}", u8::from(chunked)))
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "ferrio replaying {}", log.display());
        let text = std::fs::read_to_string(&out).unwrap();
        text.trim().lines().last().unwrap().trim().parse().unwrap()
    };
    let small_chunked = peak_kib(&small, true);
    let big_chunked = peak_kib(&big, true);
    let big_whole = peak_kib(&big, false);
    // Held whole, 720k more entries take ~40 MB and their text ~16 MB while parsed.
    assert!(
        big_whole > big_chunked + 25 * 1024,
        "whole {big_whole} KiB, chunked {big_chunked} KiB"
    );
    assert!(
        big_chunked < small_chunked + 16 * 1024,
        "800k entries chunked {big_chunked} KiB, 80k {small_chunked} KiB"
    );
}
