//! read_iolog beyond replay_no_stall (docs/random.md): timed replay with
//! replay_time_scale, checked exactly on the simulated device in virtual time;
//! version 2 waits; replay_skip; gzip-compressed logs; and fio 3.33 replaying the
//! same timed log to the same I/O counts.

mod common;
use common::*;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Four 4 KiB reads logged at 1000, 2000, 5000 and 5050 µs (after an add and an
/// open at 0: fio gives the first line after a timestamp of 0 no gap), plus a
/// write at 5060 µs.
const LOG: &str = "fio version 3 iolog\n0 f add\n0 f open\n1000 f read 0 4096\n2000 f read 4096 4096\n5000 f read 8192 4096\n5050 f read 12288 4096\n5060 f write 0 4096\n5070 f close\n";

fn replay(log: &Path, extra: &[&str]) -> Value {
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
        log.as_str(),
    ];
    a.extend_from_slice(extra);
    run_json(&a)
}

fn due_max(v: &Value) -> u64 {
    v["jobs"][0]["read"]["due_lat_ns"]["max"].as_u64().unwrap()
}

fn write_log(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn timed_replay_keeps_the_logs_gaps_scaled_by_replay_time_scale() {
    let d = scratch();
    let log = write_log(d.path(), "t.iolog", LOG);
    // Gaps 0, 1000, 3000, 50 µs after each previous start; 100 µs service at depth
    // 1. The fourth read is due 50 µs after the third started but the third is
    // still in service: it starts when that completes, so it completes 150 µs
    // after its due time. Every other read: 100 µs.
    let v = replay(&log, &[]);
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["total_ios"].as_u64(), Some(4));
    assert_eq!(due_max(&v), 150_000);
    assert_eq!(r["clat_ns"]["max"].as_u64(), Some(100_000));
    // The write 10 µs after the fourth read started (at 4100): due 4110, it starts
    // at 4200 when that read completes.
    let w = &v["jobs"][0]["write"];
    assert_eq!(w["due_lat_ns"]["max"].as_u64(), Some(190_000));
    // Twice the rate: the gaps halve (25 µs for the fourth: 175 µs from its due time).
    assert_eq!(
        due_max(&replay(&log, &["--replay_time_scale=200"])),
        175_000
    );
    // Half the rate: the 50 µs gap becomes 100 µs, so nothing waits behind the third.
    assert_eq!(due_max(&replay(&log, &["--replay_time_scale=50"])), 100_000);
    // replay_no_stall: no due times at all.
    let v = replay(&log, &["--replay_no_stall=1"]);
    assert_eq!(due_max(&v), 100_000);
    // The job's span: 4.3 ms timed, 0.5 ms without the gaps.
    let span = |v: &Value| v["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert_eq!(span(&replay(&log, &[])), 4);
    assert_eq!(span(&v), 0);
}

#[test]
fn a_version_2_wait_holds_the_next_io_until_its_time() {
    let d = scratch();
    let log = write_log(
        d.path(),
        "w.iolog",
        "fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 7 0\nf read 4096 4096\nf close\n",
    );
    let v = replay(&log, &[]);
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(2));
    // The second read starts at 7 ms and ends at 7.1 ms.
    assert_eq!(v["jobs"][0]["job_runtime"].as_u64(), Some(7));
    let v = replay(&log, &["--replay_no_stall=1"]);
    assert_eq!(v["jobs"][0]["job_runtime"].as_u64(), Some(0));
}

#[test]
fn replay_skip_leaves_directions_out_and_gzip_logs_replay_the_same() {
    let d = scratch();
    let log = write_log(d.path(), "t.iolog", LOG);
    let counts = |v: &Value| dir_counts(v, "read").1 * 100 + dir_counts(v, "write").1;
    assert_eq!(counts(&replay(&log, &["--replay_no_stall=1"])), 401);
    assert_eq!(
        counts(&replay(
            &log,
            &["--replay_no_stall=1", "--replay_skip=write"]
        )),
        400
    );
    assert_eq!(
        counts(&replay(
            &log,
            &["--replay_no_stall=1", "--replay_skip=read"]
        )),
        1
    );
    // Gzip'd (two members, as appending to a .gz makes): the same log.
    let gz = d.path().join("t.iolog.gz");
    let mut bytes = Vec::new();
    let (head, tail) = LOG.split_at(LOG.find("5000").unwrap());
    for part in [head, tail] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(part.as_bytes()).unwrap();
        bytes.extend(e.finish().unwrap());
    }
    std::fs::write(&gz, bytes).unwrap();
    let v = replay(&gz, &[]);
    assert_eq!(counts(&v), 401);
    assert_eq!(due_max(&v), 150_000);
    // Skipping everything is an error naming the option.
    let o = ferrio()
        .args([
            "--name=r",
            "--ioengine=null",
            &format!("--read_iolog={}", log.display()),
            "--replay_skip=read,write",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("replay_skip leaves no I/O"));
    let o = ferrio()
        .args([
            "--name=r",
            "--ioengine=null",
            &format!("--read_iolog={}", log.display()),
            "--replay_skip=reads",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown skip type 'reads'"));
}

/// fio 3.33 replays the same timed log (at its timing, and scaled) to the same I/O
/// counts and bytes as ferrio; read_iolog_chunked changes nothing in either.
#[test]
fn fio_replays_the_timed_log_to_the_same_counts() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let data = d.path().join("data.bin");
    std::fs::write(&data, vec![0u8; 64 << 10]).unwrap();
    let text = LOG.replace(" f ", &format!(" {} ", data.display()));
    let log = write_log(d.path(), "t.iolog", &text);
    let read_iolog = format!("--read_iolog={}", log.display());
    for extra in [
        &[][..],
        &["--replay_time_scale=50"],
        &["--read_iolog_chunked=1"],
    ] {
        let mut a = vec!["--name=r", "--ioengine=psync", read_iolog.as_str()];
        a.extend_from_slice(extra);
        let (ours, fio) = (run_json(&a), fio_json(&a));
        for dir in ["read", "write"] {
            assert_eq!(
                dir_counts(&ours, dir),
                dir_counts(&fio, dir),
                "{dir} {extra:?}"
            );
        }
        assert_eq!(dir_counts(&ours, "read").1, 4);
    }
}

/// write_iolog to a name ending in .gz writes gzip data (a member per writer, so two
/// clones append two), which decompresses to the plain log and replays to the same
/// I/Os.
#[test]
fn write_iolog_to_a_gz_name_writes_gzip_that_replays() {
    use std::io::Read;
    let d = scratch();
    let gz = d.path().join("w.iolog.gz");
    let plain = d.path().join("w.iolog");
    for log in [&gz, &plain] {
        run_ok(&[
            "--name=w",
            "--ioengine=null",
            "--size=64k",
            "--bs=4k",
            "--rw=randwrite",
            "--randrepeat=0",
            "--randseed=99",
            &format!("--write_iolog={}", log.display()),
        ]);
    }
    let bytes = std::fs::read(&gz).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "not gzip data");
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .unwrap();
    let body = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split(' ').skip(1).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let plain_text = std::fs::read_to_string(&plain).unwrap();
    assert_eq!(body(&text), body(&plain_text));
    assert_eq!(
        body(&text).iter().filter(|l| l.contains(" write ")).count(),
        16
    );
    let v = run_json(&[
        "--name=r",
        "--ioengine=null",
        "--replay_no_stall=1",
        &format!("--read_iolog={}", gz.display()),
    ]);
    assert_eq!(dir_counts(&v, "write").1, 16);
    // Two clones append a member each: both logs are read back.
    let two = d.path().join("two.iolog.gz");
    run_ok(&[
        "--name=w",
        "--ioengine=null",
        "--size=64k",
        "--bs=4k",
        "--rw=randwrite",
        "--numjobs=2",
        &format!("--write_iolog={}", two.display()),
    ]);
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::read(&two).unwrap().as_slice())
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text.matches("fio version 3 iolog").count(), 2);
    assert_eq!(text.lines().filter(|l| l.contains(" write ")).count(), 32);
}

/// A log whose trims come with reads and writes replays on a file (trims punch holes:
/// the trimmed ranges read back as zeros, the rest keeps its bytes) and on the sim
/// engine, with the log's counts per direction.
#[test]
fn trims_mixed_with_reads_and_writes_replay() {
    let d = scratch();
    let data = d.path().join("dat");
    let f = data.display().to_string();
    let text = format!(
        "fio version 2 iolog\n{f} add\n{f} open\n{f} read 0 4096\n{f} trim 0 65536\n\
         {f} write 65536 4096\n{f} trim 131072 8192\n{f} read 139264 4096\n{f} close\n"
    );
    let log = write_log(d.path(), "t.log", &text);
    let arg = format!("--read_iolog={}", log.display());
    let counts = |v: &Value| -> Vec<(u64, u64)> {
        ["read", "write", "trim"]
            .iter()
            .map(|k| {
                let j = &v["jobs"][0][k];
                (
                    j["total_ios"].as_u64().unwrap(),
                    j["io_bytes"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let want = vec![(2, 8192), (1, 4096), (2, 73728)];
    for engine in ["psync", "sim"] {
        // Non-zero bytes everywhere, so a hole shows as zeros.
        let before: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8 | 1).collect();
        std::fs::write(&data, &before).unwrap();
        let e = format!("--ioengine={engine}");
        let v = run_json(&["--name=r", &e, &arg, "--replay_no_stall=1"]);
        assert_eq!(counts(&v), want, "{engine}");
        assert_eq!(v["jobs"][0]["error"].as_u64(), Some(0), "{engine}");
        let after = std::fs::read(&data).unwrap();
        let zeroed = |a: usize, b: usize| after[a..b].iter().all(|&x| x == 0);
        if engine == "psync" {
            assert!(zeroed(0, 65536) && zeroed(131072, 139264), "holes punched");
            assert_eq!(after[139264..], before[139264..]);
            assert_eq!(after[69632..131072], before[69632..131072]);
            assert!(!zeroed(65536, 69632), "the write after the trim");
        } else {
            assert_eq!(after, before, "the sim engine touches no file");
        }
    }
}

/// The counts per direction, fsyncs and every sync's latency samples of a run.
fn replay_counts(v: &Value) -> (Vec<u64>, u64, u64) {
    let j = &v["jobs"][0];
    let ios = ["read", "write", "trim"]
        .iter()
        .map(|k| j[k]["total_ios"].as_u64().unwrap())
        .collect();
    let sync = &j["sync"];
    (
        ios,
        sync["total_ios"].as_u64().unwrap(),
        sync["lat_ns"]["N"].as_u64().unwrap_or(0),
    )
}

/// A log's sync and datasync lines are issued (as fio issues them), a sync without
/// its offset and length is passed over (fio refuses the line), and a trim is
/// issued as fio after 3.33 issues it (3.33 drops it: "bad ddir: 2";
/// docs/dropin.md). fio 3.33 counts only the fsyncs in `sync.total_ios` (fio after
/// 3.33, and ferrio, count every sync there); its latency samples count all.
#[test]
fn a_logs_syncs_are_issued_as_fio_issues_them() {
    let d = scratch();
    let f = file_in(d.path(), "dat");
    std::fs::File::create(&f).unwrap().set_len(1 << 20).unwrap();
    let text = format!(
        "fio version 2 iolog\n{f} add\n{f} open\n{f} write 0 4096\n{f} sync 0 0\n\
         {f} read 4096 8192\n{f} datasync 0 0\n{f} sync\n{f} trim 8192 4096\n\
         {f} write 4096 4096\n{f} sync 4096 0\n{f} close\n"
    );
    let log = write_log(d.path(), "s.log", &text);
    let arg = format!("--read_iolog={}", log.display());
    for engine in ["psync", "null"] {
        let e = format!("--ioengine={engine}");
        let a = ["--name=r", e.as_str(), arg.as_str(), "--replay_no_stall=1"];
        let ours = replay_counts(&run_json(&a));
        // The sync at the log's end is issued too: a pass ends after it.
        assert_eq!(ours, (vec![1, 2, 1], 3, 3), "{engine}");
        if have_fio() {
            let (ios, fsyncs, all) = replay_counts(&fio_json(&a));
            assert_eq!((&ios[..2], all), (&ours.0[..2], ours.2), "{engine}");
            assert_eq!(fsyncs, 2, "{engine}: fio 3.33 counts the fsyncs only");
        }
    }
    // A rate paces the data, not the syncs (a sync has no direction to rate).
    let rated = run_json(&["--name=r", "--ioengine=null", &arg, "--rate=1m"]);
    assert_eq!(replay_counts(&rated), (vec![1, 2, 1], 3, 3));
    // Recorded again, the syncs are in the log, in place.
    let rec = d.path().join("rec.log");
    run_ok(&[
        "--name=r",
        "--ioengine=null",
        &arg,
        "--replay_no_stall=1",
        &format!("--write_iolog={}", rec.display()),
    ]);
    let acts: Vec<String> = std::fs::read_to_string(&rec)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        acts,
        [
            "add",
            "open",
            "write 0 4096",
            "sync 0 0",
            "read 4096 8192",
            "datasync 0 0",
            "trim 8192 4096",
            "write 4096 4096",
            "sync 4096 0",
            "close"
        ]
    );
}

/// The job header of a replay shows the job's own rw, block sizes and iodepth, not
/// the log's, as fio's does (it prints the header before it reads the log).
#[test]
fn a_replays_header_shows_the_jobs_options_as_fio() {
    let d = scratch();
    let f = file_in(d.path(), "dat");
    std::fs::File::create(&f).unwrap().set_len(1 << 20).unwrap();
    let text = format!(
        "fio version 2 iolog\n{f} add\n{f} open\n{f} write 0 8192\n{f} read 8192 16384\n{f} close\n"
    );
    let log = write_log(d.path(), "h.log", &text);
    let arg = format!("--read_iolog={}", log.display());
    for extra in [&[][..], &["--bs=64k", "--rw=randwrite", "--iodepth=4"]] {
        let mut a = vec!["--name=r", "--ioengine=null", arg.as_str()];
        a.extend_from_slice(extra);
        let head = |out: &[u8]| {
            String::from_utf8_lossy(out)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        };
        let ours = head(&run_ok(&a).stdout);
        let want = if extra.is_empty() {
            "r: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1"
        } else {
            "r: (g=0): rw=randwrite, bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB, ioengine=null, iodepth=4"
        };
        assert_eq!(ours, want);
        if have_fio() {
            let o = std::process::Command::new("fio").args(&a).output().unwrap();
            assert!(o.status.success());
            assert_eq!(head(&o.stdout), ours, "{extra:?}");
        }
    }
}

/// `read_iolog=A:B:C` gives the job's clones the logs in turn by fio's subjob
/// numbers (the job 0, its clones, as fio makes them, numjobs-1 down to 1), wrapping:
/// with numjobs=4 the jobs replay A, A, C, B; each clone takes its own log's
/// directions and sizes.
#[test]
fn a_list_of_logs_goes_to_the_clones_as_fio_gives_them() {
    let d = scratch();
    let f = file_in(d.path(), "dat");
    std::fs::File::create(&f).unwrap().set_len(1 << 20).unwrap();
    let log = |name: &str, body: &str| {
        let text = format!("fio version 2 iolog\n{f} add\n{f} open\n{body}{f} close\n");
        path_str(&write_log(d.path(), name, &text))
    };
    let a = log("a.log", &format!("{f} read 0 4096\n{f} read 4096 4096\n"));
    let b = log(
        "b.log",
        &format!("{f} write 0 8192\n{f} write 8192 8192\n{f} write 0 8192\n"),
    );
    let c = log("c.log", &format!("{f} write 0 512\n{f} read 0 512\n"));
    let arg = format!("--read_iolog={a}:{b}:{c}");
    let shape = |v: &Value| -> Vec<[(u64, u64); 2]> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let n = |k: &str| {
                    (
                        j[k]["total_ios"].as_u64().unwrap(),
                        j[k]["io_bytes"].as_u64().unwrap(),
                    )
                };
                [n("read"), n("write")]
            })
            .collect()
    };
    let args = ["--name=r", "--ioengine=null", arg.as_str(), "--numjobs=4"];
    let ours = shape(&run_json(&args));
    let (ra, rb, rc) = (
        [(2, 8192), (0, 0)],
        [(0, 0), (3, 24576)],
        [(1, 512), (1, 512)],
    );
    assert_eq!(ours, [ra, ra, rc, rb]);
    if have_fio() {
        assert_eq!(shape(&fio_json(&args)), ours);
    }
}

/// Record, then replay, in one job file: a job after a stonewall replays the log an
/// earlier job writes. fio reads a job's iolog when the job starts, so the log need
/// not exist before the run (fio's own t0031 and t0038 harness jobs are run so, their
/// log made by a job before them). ferrio read every log before the run and refused
/// the job file; now such a log is read at the replaying job's start, and the
/// replay's counts and file bytes are fio's. --parse-only leaves a missing log to the
/// run, as fio; a missing log no earlier job writes is still refused before the run.
#[test]
fn a_log_an_earlier_job_writes_is_replayed_by_a_later_one_like_fio() {
    let d = scratch();
    let job = |dir: &Path| {
        format!(
            "[w]\nfilename={0}/data\nsize=256k\nrw=randwrite\nbsrange=4k-16k\nrandseed=7\n\
             write_iolog={0}/rec.log\n\
             [r]\nstonewall\nfilename={0}/data\nsize=256k\nread_iolog={0}/rec.log\n",
            dir.display()
        )
    };
    let mut counts = Vec::new();
    let mut tools = vec!["ferrio"];
    if have_fio() {
        tools.push("fio");
    }
    for tool in &tools {
        let dir = d.path().join(tool);
        std::fs::create_dir(&dir).unwrap();
        let file = dir.join("j.fio");
        std::fs::write(&file, job(&dir)).unwrap();
        let mut cmd = match *tool {
            "fio" => std::process::Command::new("fio"),
            _ => ferrio(),
        };
        let out = cmd.arg("--output-format=json").arg(&file).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{tool}: {stderr}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let r = &v["jobs"][1];
        assert_eq!(r["jobname"], "r");
        assert_eq!(r["error"], 0, "{tool}: {r}");
        let w = &v["jobs"][0]["write"];
        // The replay issues the recorded writes: the same I/Os, the same bytes.
        assert_eq!(r["write"]["total_ios"], w["total_ios"], "{tool}: {v}");
        assert_eq!(r["write"]["io_bytes"], w["io_bytes"], "{tool}: {v}");
        counts.push((
            r["write"]["total_ios"].as_u64().unwrap(),
            r["read"]["total_ios"].as_u64().unwrap(),
        ));
        assert!(counts[0].0 > 0);
    }
    if counts.len() == 2 {
        assert_eq!(counts[0], counts[1], "ferrio, fio");
    }
    // --parse-only: the log is the run's to make.
    let dir = d.path().join("parse");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("j.fio");
    std::fs::write(&file, job(&dir)).unwrap();
    run_ok(&["--parse-only", file.to_str().unwrap()]);
    // No earlier job writes it: refused before anything is touched.
    let err = run_err(&[
        "--name=r",
        &format!("--filename={}/other", dir.display()),
        "--size=64k",
        &format!("--read_iolog={}/nobody.log", dir.display()),
    ]);
    assert!(
        err.contains("nobody.log") && err.contains("No such file"),
        "{err}"
    );
    assert!(!dir.join("other").exists());
}
