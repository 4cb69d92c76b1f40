//! fio options of issue 14's last list, run by ferrio and, where fio 3.33 is
//! installed, checked against fio: compressed logs (log_compression,
//! log_store_compressed, --inflate-log both ways between the tools), the mmap
//! engine's thp, gtod_cpu and the exa size unit; and the deprecated options fio
//! still accepts (verifysort, verifysort_nr); per-direction numbers split at ':'
//! and '-' as fio's parser splits them (bs=4k-16k).

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn inflate(tool: &str, file: &Path) -> String {
    let out = if tool == "fio" {
        Command::new("fio")
            .arg(format!("--inflate-log={}", path_str(file)))
            .output()
    } else {
        ferrio()
            .arg(format!("--inflate-log={}", path_str(file)))
            .output()
    }
    .expect("run --inflate-log");
    assert!(
        out.status.success(),
        "{tool} --inflate-log: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A per-I/O latency log with offsets over 64 random reads (null engine), stored
/// compressed in 1 KiB chunks (several zlib streams).
fn compressed_job(dir: &Path, prefix: &str) -> Vec<String> {
    [
        "--name=z",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=256k",
        "--randseed=7",
        "--log_offset=1",
        "--log_compression=1k",
        "--log_store_compressed=1",
        "--output=/dev/null",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--write_lat_log={}", file_in(dir, prefix))])
    .collect()
}

fn run_tool(tool: &str, args: &[String]) -> Output {
    let out = if tool == "fio" {
        Command::new("fio").args(args).output()
    } else {
        ferrio().args(args).output()
    }
    .expect("run");
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}",
        text(&out.stderr)
    );
    out
}

#[test]
fn compressed_logs_hold_every_io_and_inflate_to_fios_text() {
    let d = scratch();
    run_tool("ferrio", &compressed_job(d.path(), "fe"));
    let fz = d.path().join("fe_clat.1.log.fz");
    assert!(fz.exists(), "no .log.fz file");
    assert!(!d.path().join("fe_clat.1.log").exists());
    let lines = inflate("ferrio", &fz);
    let rows: Vec<Vec<u64>> = lines
        .lines()
        .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 64, "{lines}");
    let mut offsets: Vec<u64> = rows.iter().map(|r| r[4]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    // randread over 64 blocks with a random map: every block once.
    assert_eq!(offsets, (0..64).map(|i| i * 4096).collect::<Vec<_>>());
    assert!(rows
        .iter()
        .all(|r| r.len() == 6 && r[2] == 0 && r[3] == 4096 && r[5] == 0));
    // log_compression alone keeps the text log (fio compresses it in memory only).
    let mut plain = compressed_job(d.path(), "pl");
    plain.retain(|a| a != "--log_store_compressed=1");
    run_tool("ferrio", &plain);
    let t = std::fs::read_to_string(d.path().join("pl_clat.1.log")).unwrap();
    assert_eq!(t.lines().count(), 64);
    if !have_fio() {
        return;
    }
    // fio's --inflate-log reads ferrio's file, and ferrio's reads fio's.
    assert_eq!(inflate("fio", &fz), lines);
    run_tool("fio", &compressed_job(d.path(), "fi"));
    let fio_fz = d.path().join("fi_clat.1.log.fz");
    let by_fio = inflate("fio", &fio_fz);
    assert_eq!(inflate("ferrio", &fio_fz), by_fio);
    assert_eq!(by_fio.lines().count(), 64);
}

#[test]
fn inflate_log_refuses_what_is_not_a_compressed_log() {
    let d = scratch();
    let f = d.path().join("plain.log");
    std::fs::write(&f, "0, 1, 0, 4096, 0\n").unwrap();
    let out = ferrio()
        .arg(format!("--inflate-log={}", path_str(&f)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not a compressed fio log"),
        "{}",
        text(&out.stderr)
    );
    let out = ferrio()
        .arg("--inflate-log=/nonexistent/x.fz")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read"));
}

#[test]
fn thp_maps_privately_so_writes_do_not_reach_the_file_as_in_fio() {
    let d = scratch();
    let tools: &[&str] = if have_fio() {
        &["ferrio", "fio"]
    } else {
        &["ferrio"]
    };
    for tool in tools {
        for thp in ["0", "1"] {
            let file = d.path().join(format!("{tool}{thp}.dat"));
            let before: Vec<u8> = (0..256 * 1024).map(|i| (i % 251) as u8).collect();
            std::fs::write(&file, &before).unwrap();
            let args: Vec<String> = [
                "--name=m",
                "--ioengine=mmap",
                "--rw=write",
                "--bs=64k",
                "--size=256k",
                "--zero_buffers=1",
                "--output=/dev/null",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([
                format!("--thp={thp}"),
                format!("--filename={}", path_str(&file)),
            ])
            .collect();
            run_tool(tool, &args);
            let after = std::fs::read(&file).unwrap();
            assert_eq!(after == before, thp == "1", "{tool} thp={thp}");
        }
    }
}

#[test]
fn gtod_cpu_is_kept_out_of_the_jobs_cpus() {
    let ncpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = ferrio()
        .args([
            "--name=g",
            "--ioengine=null",
            "--size=64k",
            "--cpus_allowed=0",
            "--gtod_cpu=0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("gtod_cpu=0"),
        "{}",
        text(&out.stderr)
    );
    if ncpus < 2 {
        return;
    }
    // CPU 1 leaves cpus_allowed=0-1 (the unit test checks the set); the job runs.
    let v = run_json(&[
        "--name=g",
        "--ioengine=null",
        "--size=64k",
        "--cpus_allowed=0-1",
        "--gtod_cpu=1",
    ]);
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 65536);
}

#[test]
fn exa_sizes_parse_where_they_fit() {
    let ok = ferrio()
        .args([
            "--name=e",
            "--ioengine=null",
            "--size=4k",
            "--offset_increment=1e",
            "--parse-only",
        ])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let bad = ferrio()
        .args(["--name=e", "--ioengine=null", "--size=16e", "--parse-only"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("too large"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn lockfile_jobs_sharing_a_file_all_finish_their_io_as_in_fio() {
    let d = scratch();
    let f = format!("--filename={}", file_in(d.path(), "shared.dat"));
    for mode in ["exclusive", "readwrite"] {
        let args: Vec<String> = [
            "--name=l",
            "--rw=randrw",
            "--bs=4k",
            "--size=256k",
            "--numjobs=3",
            "--group_reporting",
            "--randseed=5",
            "--output-format=json",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([f.clone(), format!("--lockfile={mode}")])
        .collect();
        let mine = parse_json(&run_tool("ferrio", &args).stdout);
        let (r, w) = (dir_counts(&mine, "read").0, dir_counts(&mine, "write").0);
        assert_eq!(r + w, 3 * 256 * 1024, "{mode}");
        if have_fio() {
            let fio = parse_json(&run_tool("fio", &args).stdout);
            assert_eq!(
                dir_counts(&fio, "read"),
                dir_counts(&mine, "read"),
                "{mode}"
            );
            assert_eq!(
                dir_counts(&fio, "write"),
                dir_counts(&mine, "write"),
                "{mode}"
            );
        }
    }
}

#[test]
fn block_error_percentiles_count_each_blocks_trims_from_the_iolog() {
    let d = scratch();
    let log = d.path().join("trims.iolog");
    let v = run_json(&[
        "--name=b",
        &format!("--filename={}", file_in(d.path(), "t.dat")),
        "--rw=randtrim",
        "--bs=4k",
        "--size=256k",
        "--norandommap=1",
        "--randseed=3",
        "--block_error_percentiles=1",
        &format!("--write_iolog={}", path_str(&log)),
    ]);
    let mut trims = std::collections::BTreeMap::<u64, u32>::new();
    for l in std::fs::read_to_string(&log).unwrap().lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        // fio's iolog v3: time file action [offset len]
        if let Some(at) = f.iter().position(|w| *w == "trim") {
            *trims
                .entry(f[at + 1].parse::<u64>().unwrap() / 4096)
                .or_default() += 1;
        }
    }
    assert_eq!(trims.values().sum::<u32>(), 64);
    let b = &v["jobs"][0]["block"];
    let states = &b["states"];
    assert_eq!(states["trimmed"], trims.len() as u64, "{b}");
    assert_eq!(states["unwritten"], 64 - trims.len() as u64, "{b}");
    assert_eq!(states["trim failure"], 0);
    let p = &b["percentiles"];
    assert_eq!(p["99.990000"], *trims.values().max().unwrap() as u64, "{b}");
    assert_eq!(p["1.000000"], *trims.values().min().unwrap() as u64, "{b}");
    // The normal output has fio's section.
    let out = run_ok(&[
        "--name=b",
        "--ioengine=null",
        "--rw=trim",
        "--bs=4k",
        "--size=64k",
        "--block_error_percentiles=1",
    ]);
    let t = text(&out.stdout);
    assert!(
        t.contains("  block lifetime percentiles :\n   | 1.00th=1, 5.00th=1,"),
        "{t}"
    );
    assert!(t.contains("        states               : unwritten=0, trimmed=16, written=0, trim failure=0, write failure=0\n"), "{t}");
}

/// The messages of `--debug=random` lines (without the category and thread id),
/// less the seed list fio 3.35 and later print at setup (ferrio too; 3.33 does not).
fn random_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("random "))
        .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
        .filter(|m| !m.starts_with("FIO_RAND_NR_OFFS=") && !m.starts_with("rand_seeds["))
        .collect()
}

#[test]
fn debug_random_prints_fios_draws_and_busy_offsets() {
    // With a random map (busy offsets) and without one (ferrio's fast path for
    // plain random jobs, which --debug=random turns off to print each draw).
    for map in ["--norandommap=0", "--norandommap=1"] {
        let args = [
            "--name=r",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=32k",
            "--debug=random",
            "--randrepeat=0",
            "--randseed=1234",
            map,
        ];
        let out = run_ok(&args);
        // Both tools write the debug lines into their output (stdout), none on stderr.
        let mine = random_lines(&text(&out.stdout));
        assert!(random_lines(&text(&out.stderr)).is_empty());
        assert!(
            mine.iter().filter(|l| l.starts_with("off rand ")).count() >= 8,
            "{map} {mine:?}"
        );
        assert_eq!(
            mine.iter().any(|l| l.ends_with(" busy")),
            map.ends_with('0'),
            "{map} {mine:?}"
        );
        if !have_fio() {
            continue;
        }
        let fio = Command::new("fio").args(args).output().unwrap();
        assert!(fio.status.success());
        // fio writes them into its output (stdout).
        assert_eq!(random_lines(&text(&fio.stdout)), mine, "{map}");
    }
}

#[test]
fn deprecated_verify_sorting_is_accepted_and_ignored_as_in_fio() {
    // fio 3.33 warns that verifysort and verifysort_nr are deprecated and runs the
    // job as without them; so does ferrio (they used to be refused as unknown).
    let d = scratch();
    let args: Vec<String> = [
        "--name=v",
        "--rw=randwrite",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--verify_state_save=0", // (else both leave local-v-0-verify.state in the cwd)
        "--verifysort=1",
        "--verifysort_nr=64",
        "--output-format=json",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--filename={}", path_str(&d.path().join("f")))])
    .collect();
    let tools: &[&str] = if have_fio() {
        &["fio", "ferrio"]
    } else {
        &["ferrio"]
    };
    for tool in tools {
        let out = run_tool(tool, &args);
        assert!(out.status.success(), "{tool}: {}", text(&out.stderr));
        // fio says so on stdout, before its JSON; ferrio on stderr (stdout stays
        // the report alone).
        let (said, report) = match tool {
            &"fio" => {
                let out = text(&out.stdout);
                let at = out.find('{').expect("fio's JSON");
                (out[..at].to_lowercase(), out[at..].to_string())
            }
            _ => (text(&out.stderr).to_lowercase(), text(&out.stdout)),
        };
        for name in ["verifysort", "verifysort_nr"] {
            assert!(
                said.contains(&format!("option {name} is deprecated")),
                "{tool}: {said}"
            );
        }
        let v: serde_json::Value = serde_json::from_str(&report).unwrap();
        let job = &v["jobs"][0];
        // Every block written is read back and checked.
        assert_eq!(job["write"]["total_ios"].as_u64(), Some(64), "{tool}");
        assert_eq!(job["read"]["total_ios"].as_u64(), Some(64), "{tool}");
        assert_eq!(job["error"].as_i64(), Some(0), "{tool}");
    }
}

#[test]
fn per_direction_numbers_split_at_colons_and_dashes_as_in_fio() {
    // fio's option parser cuts every numeric value at ',', else ':', else '-':
    // bs=4k-16k is bs=4k,16k (reads 4k, writes and trims 16k), not a range.
    let d = scratch();
    for (bs, write_bs) in [("4k-16k", 16384), ("4k:16k", 16384), ("1k-4k,8k-32k", 8192)] {
        let args = |format: &str| -> Vec<String> {
            vec![
                "--name=j".into(),
                "--rw=randrw".into(),
                "--size=256k".into(),
                "--norandommap".into(),
                format!("--output-format={format}"),
                format!("--bs={bs}"),
                format!("--filename={}", file_in(d.path(), "b.dat")),
            ]
        };
        let v = parse_json(&run_tool("ferrio", &args("json")).stdout);
        let w = &v["jobs"][0]["write"];
        let (bytes, ios) = (
            w["io_bytes"].as_u64().unwrap(),
            w["total_ios"].as_u64().unwrap(),
        );
        assert!(ios > 0, "bs={bs}: {w}");
        assert_eq!(
            bytes,
            ios * write_bs,
            "bs={bs}: every write {write_bs} bytes"
        );
        if have_fio() {
            let line = |tool: &str| {
                let o = run_tool(tool, &args("normal"));
                text(&o.stdout).lines().next().unwrap_or("").to_string()
            };
            assert_eq!(line("ferrio"), line("fio"), "bs={bs}: the job line");
        }
    }
}
