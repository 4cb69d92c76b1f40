//! The same I/O sequence as fio: ferrio's and fio 3.33's `write_iolog` for the same
//! random jobs and seed are identical line for line (file, direction, offset, length;
//! the first column, a timestamp, is left out). Covers the generators, the random map,
//! norandommap, rwmix, bsrange/bssplit, percentage_random, rw=randX:N, zoned
//! distributions, several files, loops and numjobs clones.
//!
//! Skipped (with a message) when fio is absent, unless FERRIO_REQUIRE_FIO or CI is set.
//!
//! The jobs give randseed with randrepeat=0: there fio 3.33 and the latest fio (which
//! ferrio follows) seed identically; with the default randrepeat=1, fio 3.33 seeded
//! offsets from a constant instead of randseed (docs/random.md).

mod common;
use common::iologs::*;
use common::*;
use std::process::Command;

const JOBS: &[&[&str]] = &[
    &["--rw=randread", "--bs=4k"],
    &["--rw=randwrite", "--bs=4k", "--randseed=99"],
    &[
        "--rw=randread",
        "--bs=4k",
        "--random_generator=tausworthe64",
    ],
    &["--rw=randread", "--bs=4k", "--random_generator=lfsr"],
    &["--rw=randread", "--bs=4k", "--norandommap"],
    &["--rw=randread", "--bs=3k"],
    &["--rw=randread", "--bs=4k", "--offset=256k"],
    &["--rw=randrw", "--bs=4k"],
    &["--rw=randrw", "--bs=4k", "--rwmixread=70"],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--rwmixwrite=80",
        "--random_generator=tausworthe64",
    ],
    &["--rw=randread", "--bssplit=4k/50:16k/30:64k/20"],
    &[
        "--rw=randread",
        "--bssplit=4k/50:16k/30:64k/20",
        "--norandommap",
    ],
    &[
        "--rw=randrw",
        "--bssplit=4k/20:8k/80,16k/100",
        "--norandommap",
    ],
    // Blank shares by fio's integer division (33/33/33: a draw past 99 falls to the
    // last entry walked) and fractional percentages cut as fio's atoi reads them.
    &["--rw=randread", "--bssplit=1k/:2k/:4k/"],
    &["--rw=randrw", "--bssplit=1k/20:4k/:8k/:16k/"],
    &["--rw=randrw", "--bssplit=4k/10.5:8k/89.5"],
    &["--rw=randread", "--bssplit=4k/33.3:8k/33.3:16k/33.4"],
    &["--rw=randrw", "--bsrange=4k-32k"],
    &[
        "--rw=randwrite",
        "--bsrange=1k-16k",
        "--random_generator=tausworthe64",
    ],
    &["--rw=randread", "--bs=4k", "--percentage_random=50"],
    &["--rw=randrw", "--bs=4k", "--percentage_random=30,70"],
    &["--rw=randread:4", "--bs=4k"],
    &["--rw=randrw:3", "--bs=4k", "--rwmixread=60"],
    &["--rw=randread:4", "--bs=4k", "--rw_sequencer=identical"],
    &[
        "--rw=randread",
        "--bs=4k",
        "--random_distribution=zoned:60/10:30/20:10/70",
    ],
    &[
        "--rw=randread",
        "--bs=4k",
        "--random_distribution=zoned_abs:60/128k:40/896k",
    ],
    &["--rw=randread", "--bs=4k", "--nrfiles=2", "--filesize=512k"],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=random",
    ],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=random:3",
    ],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=roundrobin:4",
    ],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=sequential",
    ],
    &[
        "--rw=write",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=sequential",
    ],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=zipf",
    ],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=pareto:0.3",
    ],
    &[
        "--rw=randrw",
        "--bs=4k",
        "--nrfiles=3",
        "--size=768k",
        "--file_service_type=normal:20",
    ],
    &["--rw=randread", "--bs=4k", "--loops=2"],
    &["--rw=randread", "--bs=4k", "--loops=2", "--norandommap"],
    &[
        "--rw=randread",
        "--bs=4k",
        "--loops=2",
        "--random_generator=lfsr",
    ],
    &["--rw=randrw", "--bs=4k", "--loops=2", "--rwmixread=30"],
    &[
        "--rw=randread",
        "--bs=4k",
        "--loops=2",
        "--percentage_random=60",
    ],
    &[
        "--rw=randread",
        "--bs=4k",
        "--loops=3",
        "--size=512k",
        "--io_size=256k",
    ],
    &[
        "--rw=read",
        "--bs=64k",
        "--loops=2",
        "--size=512k",
        "--io_size=256k",
    ],
    &["--rw=write", "--bs=8k", "--loops=3", "--nrfiles=3"],
    &["--rw=rw", "--bs=4k", "--loops=2"],
    &["--rw=rw", "--bs=4k", "--rwmixread=70", "--nrfiles=2"],
    &["--rw=read", "--bs=4k", "--io_size=2M"],
    &["--rw=write", "--bsrange=4k-16k"],
    &["--rw=read", "--bsrange=4k-16k", "--io_size=512k"],
    // A hole that steps past the region's end of a region that starts past byte 0
    // ends the pass (fio wraps only past the file's size counted from byte 0).
    &[
        "--rw=write:16k",
        "--bsrange=1k-8k",
        "--io_limit=1M",
        "--offset=64k",
        "--verify=crc32c",
    ],
    &[
        "--rw=read:16k",
        "--bsrange=1k-8k",
        "--io_limit=3M",
        "--offset=64k",
    ],
    &[
        "--rw=randread",
        "--bsrange=4k-16k",
        "--percentage_random=50",
    ],
];

#[test]
fn iologs_match_fio_line_for_line() {
    if !fio_available() {
        return;
    }
    common::cases::each_case(JOBS, |job| assert_same(job));
}

/// Each thread's seeds depend on its number (jobs and clones in order): the second
/// job of a run issues what fio's second job issues. (Clones of one job are the same
/// threads, but fio's clones share one log written in 8 KiB pieces that may cut lines.)
#[test]
fn second_job_seeds_like_fios_second_thread() {
    if !fio_available() {
        return;
    }
    let d = scratch();
    let mut logs = Vec::new();
    for (tool, sub) in [("fio", "f"), ("ferrio", "r")] {
        let dir = d.path().join(sub);
        std::fs::create_dir_all(&dir).unwrap();
        let mut args: Vec<String> = [
            "--ioengine=psync",
            "--size=512k",
            "--bs=4k",
            "--rw=randrw",
            "--randrepeat=0",
            "--randseed=77",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("--directory={}", dir.display()));
        for job in ["a", "b"] {
            args.push(format!("--name={job}"));
            args.push(format!("--write_iolog={}/{job}.iolog", d.path().display()));
        }
        args.push("--numjobs=2".into());
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            ferrio()
        };
        let o = cmd.args(&args).output().expect("run");
        assert!(
            o.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let a = normalized(&d.path().join("a.iolog"), &dir);
        let b = normalized(&d.path().join("b.iolog"), &dir);
        std::fs::remove_file(d.path().join("a.iolog")).unwrap();
        std::fs::remove_file(d.path().join("b.iolog")).unwrap();
        logs.push((a, b));
    }
    // Job b's two clones are threads 3 and 4; their lines may interleave, so compare
    // per file; job a is compared whole the same way.
    assert_eq!(
        per_file(&logs[0].0).get("a.0.0"),
        per_file(&logs[1].0).get("a.0.0")
    );
    for f in ["b.0.0", "b.1.0"] {
        let (x, y) = (per_file(&logs[0].1), per_file(&logs[1].1));
        assert!(
            x.get(f).is_some_and(|v| v.len() > 100),
            "{f}: {:?}",
            x.keys()
        );
        assert_eq!(x.get(f), y.get(f), "{f}");
    }
}

#[test]
fn time_based_wraps_like_fio() {
    if !fio_available() {
        return;
    }
    // A 16-block file for a second: both wrap the random map (or LFSR) many times;
    // the runs end at different points, so the common prefix is compared.
    for gen in ["tausworthe", "lfsr", "tausworthe64"] {
        let g = format!("--random_generator={gen}");
        let (f, r) = both(&[
            "--rw=randrw",
            "--bs=4k",
            "--size=64k",
            "--time_based",
            "--runtime=1",
            &g,
        ]);
        let n = f.len().min(r.len()) - 1;
        assert!(n > 100, "only {n} lines in common");
        if let Some(i) = (0..n).find(|&i| f[i] != r[i]) {
            panic!("{gen}: line {}: fio {:?}, ferrio {:?}", i + 1, f[i], r[i]);
        }
    }
}

/// `fio_seeds=3.33` with fio's default seeding (randrepeat=1, no randseed): fio 3.33
/// seeded offsets from a constant and zipf/pareto/normal from the file name.
#[test]
fn fio_seeds_333_matches_fio_333_default_seeding() {
    if !fio_available() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=randread", "--bs=4k"],
        &["--rw=randread", "--bs=4k", "--randseed=42"],
        // fio 3.33's allrandrepeat seeds every stream from a constant (here the
        // block sizes and the mix), whatever randseed says.
        &["--rw=randrw", "--bssplit=512/10:4k/90", "--allrandrepeat=1"],
        &[
            "--rw=randrw",
            "--bsrange=1k-64k",
            "--allrandrepeat=1",
            "--randseed=99",
        ],
        // A given randseed turns randrepeat off in fio: loops do not repeat.
        &["--rw=randread", "--bs=4k", "--randseed=42", "--loops=2"],
        &["--rw=randrw", "--bs=4k", "--randseed=42", "--loops=2"],
        &["--rw=randrw", "--bs=4k", "--rwmixread=70", "--loops=2"],
        &["--rw=randrw", "--bs=4k", "--norandommap", "--loops=2"],
        &[
            "--rw=randread",
            "--bs=4k",
            "--random_generator=lfsr",
            "--loops=2",
        ],
        &["--rw=randread", "--bs=4k", "--random_distribution=zipf:1.1"],
        &[
            "--rw=randrw",
            "--bs=4k",
            "--random_distribution=zipf:0.9",
            "--loops=2",
        ],
        &[
            "--rw=randrw",
            "--bs=4k",
            "--random_distribution=pareto:0.4",
            "--nrfiles=2",
        ],
        &[
            "--rw=randread",
            "--bs=4k",
            "--random_distribution=normal:15",
        ],
        &[
            "--rw=randread",
            "--bs=4k",
            "--random_distribution=normal:10:0.7",
        ],
    ];
    common::cases::each_case(jobs, |job| {
        assert_pair(job, both_with(&[], job, &["--fio_seeds=3.33"]))
    });
}

/// zipf, pareto and normal (with and without a centre) with randrepeat=0 and a
/// randseed: fio 3.33 seeds each
/// file's generator from the offset seed there; ferrio (following fio ≥ 3.35) from
/// the file name too, so only the 3.33 mode can be compared.
#[test]
fn distributions_match_fio_333() {
    if !fio_available() {
        return;
    }
    // Centres (fio 3.33 takes one for each of the three) and bare names (fio's
    // default values) too.
    let dists = [
        "zipf:1.2",
        "pareto:0.3",
        "normal:20",
        "normal:0",
        "zipf:1.2:0.3",
        "pareto:0.3:0.8",
        "normal:20:0.25",
        "zipf",
        "pareto:0.5:0",
    ];
    common::cases::each_case(&dists, |d| {
        let dist = format!("--random_distribution={d}");
        let job: &[&str] = &["--rw=randrw", "--bs=4k", "--nrfiles=2", "--loops=2", &dist];
        assert_pair(
            job,
            both_with(
                &["--randrepeat=0", "--randseed=1234"],
                job,
                &["--fio_seeds=3.33"],
            ),
        );
    });
}

#[test]
fn randrw_split_counts_match_fio_and_clones_differ() {
    if !fio_available() {
        return;
    }
    let count = |lines: &[String], what: &str| lines.iter().filter(|l| l.contains(what)).count();
    let (f, r) = both(&["--rw=randrw", "--bs=4k", "--rwmixread=65", "--size=4M"]);
    assert_eq!(
        (count(&f, " read "), count(&f, " write ")),
        (count(&r, " read "), count(&r, " write "))
    );
    // numjobs clones draw from different seeds: their sequences differ.
    let (_, r) = both(&["--rw=randread", "--bs=4k", "--numjobs=2"]);
    let files = per_file(&r);
    let seqs: Vec<Vec<String>> = files
        .iter()
        .filter(|(k, _)| !k.is_empty())
        .map(|(_, v)| {
            v.iter()
                .map(|l| l.split_once(' ').unwrap().1.to_string())
                .collect()
        })
        .collect();
    assert_eq!(seqs.len(), 2, "{files:?}");
    assert_ne!(seqs[0], seqs[1]);
}

#[test]
fn iolog_format_is_fios_v3() {
    let d = scratch();
    let log = d.path().join("x.iolog");
    run_ok(&[
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--bs=4k",
        "--rw=randwrite",
        &format!("--write_iolog={}", log.display()),
    ]);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "fio version 3 iolog");
    // The null engine's file is named as fio names it ($jobname.$jobnum.$filenum).
    assert!(lines[1].ends_with(" j.0.0 add"), "{:?}", lines[1]);
    assert!(lines[2].ends_with(" j.0.0 open"), "{:?}", lines[2]);
    let ios: Vec<&str> = lines
        .iter()
        .filter(|l| l.contains(" write "))
        .copied()
        .collect();
    assert_eq!(ios.len(), 16);
    let mut offsets: Vec<u64> = ios
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 5, "{l}");
            assert_eq!(f[4], "4096");
            f[0].parse::<u64>().expect("a timestamp");
            f[3].parse().unwrap()
        })
        .collect();
    offsets.sort_unstable();
    assert_eq!(offsets, (0..16).map(|b| b * 4096).collect::<Vec<u64>>());
    assert!(lines.last().unwrap().ends_with(" j.0.0 close"));
}

/// A log written by fio replays in ferrio (read_iolog, replay_no_stall=1) as the same
/// I/Os: ferrio's own log of the replay equals fio's line for line.
#[test]
fn fio_log_replays_in_ferrio_with_the_same_ios() {
    if !fio_available() {
        return;
    }
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let (src, out) = (d.path().join("fio.iolog"), d.path().join("replay.iolog"));
    let o = Command::new("fio")
        .args([
            "--name=j",
            "--ioengine=psync",
            "--size=1M",
            "--bssplit=4k/60:16k/40",
            "--rw=randrw",
            "--randrepeat=0",
            "--randseed=5",
            &format!("--directory={}", dir.display()),
            &format!("--write_iolog={}", src.display()),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    run_ok(&[
        "--name=r",
        "--ioengine=psync",
        &format!("--read_iolog={}", src.display()),
        "--replay_no_stall=1",
        &format!("--write_iolog={}", out.display()),
    ]);
    let (a, b) = (normalized(&src, &dir), normalized(&out, &dir));
    assert!(a.len() > 50);
    assert_eq!(a, b);
}

/// A log written by ferrio replays in fio: fio's counts and bytes per direction are the
/// log's (fio does not write a log while it replays one).
#[test]
fn ferrio_log_replays_in_fio() {
    if !fio_available() {
        return;
    }
    let d = scratch();
    let dir = d.path().join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let log = d.path().join("ferrio.iolog");
    run_ok(&[
        "--name=j",
        "--ioengine=psync",
        "--size=1M",
        "--bsrange=4k-16k",
        "--rw=randrw",
        &format!("--directory={}", dir.display()),
        &format!("--write_iolog={}", log.display()),
    ]);
    let text = std::fs::read_to_string(&log).unwrap();
    let mut want = [(0u64, 0u64); 2];
    for l in text.lines() {
        let f: Vec<&str> = l.split(' ').collect();
        if let (5, Some(d)) = (f.len(), ["read", "write"].iter().position(|x| *x == f[2])) {
            want[d].0 += 1;
            want[d].1 += f[4].parse::<u64>().unwrap();
        }
    }
    assert!(want[0].0 > 10 && want[1].0 > 10, "{want:?}");
    let v = fio_json(&[
        "--name=x",
        "--ioengine=psync",
        &format!("--read_iolog={}", log.display()),
        "--replay_no_stall=1",
    ]);
    for (d, name) in ["read", "write"].iter().enumerate() {
        let j = &v["jobs"][0][name];
        assert_eq!(
            (
                j["total_ios"].as_u64().unwrap(),
                j["io_bytes"].as_u64().unwrap()
            ),
            want[d],
            "{name}"
        );
    }
}

#[test]
fn read_iolog_replays_timed_by_default_and_refuses_an_invalid_log() {
    let d = scratch();
    let log = d.path().join("x.iolog");
    std::fs::write(&log, "fio version 2 iolog\nf add\nf read 0 4096\n").unwrap();
    let v = run_json(&[
        "--name=r",
        "--ioengine=null",
        &format!("--read_iolog={}", log.display()),
    ]);
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(1));
    std::fs::write(&log, "not a log\n").unwrap();
    let o = ferrio()
        .args([
            "--name=r",
            "--ioengine=null",
            &format!("--read_iolog={}", log.display()),
            "--replay_no_stall=1",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not an fio iolog"));
}

/// Written bytes equal fio's: random buffer contents come from fio's buffer stream
/// (each buffer's first fill, and every refill with refill_buffers=1).
#[test]
fn written_data_matches_fio() {
    if !fio_available() {
        return;
    }
    let jobs: &[&[&str]] = &[
        &["--rw=write", "--bs=4k", "--refill_buffers=1"],
        &["--rw=write", "--bs=4k", "--scramble_buffers=0"],
        &["--rw=randwrite", "--bsrange=1k-16k", "--refill_buffers=1"],
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--refill_buffers=1",
            "--random_generator=tausworthe64",
        ],
        &[
            "--rw=write",
            "--bs=4k",
            "--refill_buffers=1",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
    ];
    for job in jobs {
        let d = scratch();
        let mut data = Vec::new();
        for tool in ["fio", "ferrio"] {
            let file = d.path().join(tool);
            let mut cmd = if tool == "fio" {
                Command::new("fio")
            } else {
                ferrio()
            };
            let o = cmd
                .args(["--name=j", "--size=64k", "--randrepeat=0", "--randseed=5"])
                .args(*job)
                .arg(format!("--filename={}", file.display()))
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{tool} {job:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            data.push(std::fs::read(&file).unwrap());
        }
        assert_eq!(data[0].len(), 64 << 10, "{job:?}");
        assert!(
            data[0] == data[1],
            "{job:?}: written bytes differ from fio's"
        );
    }
}

/// A holed sequential pass over a file longer than the job's region: fio wraps a
/// hole that steps past the end only past the file's end, so the pass ends at the
/// region's end and each pass is verified before the next (here 684 KiB written and
/// read, as fio; ferrio wrapped within the pass, wrote 1 MiB and read 473 KiB).
#[test]
fn holes_past_the_region_of_a_longer_file_end_the_pass_like_fio() {
    if !fio_available() {
        return;
    }
    let d = scratch();
    let mut logs = Vec::new();
    for tool in ["fio", "ferrio"] {
        let cwd = d.path().join(tool);
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::write(cwd.join("f"), vec![0u8; 2 << 20]).unwrap();
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            ferrio()
        };
        let o = cmd
            .current_dir(&cwd)
            .args(["--name=j", "--filename=f", "--size=1M", "--rw=write:16k"])
            .args(["--bsrange=1k-8k", "--io_limit=1M", "--verify=crc32c"])
            .args(["--randrepeat=0", "--randseed=1234", "--write_iolog=io.log"])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        logs.push(normalized(&cwd.join("io.log"), std::path::Path::new("")));
    }
    let reads = logs[0].iter().filter(|l| l.contains(" read ")).count();
    let writes = logs[0].iter().filter(|l| l.contains(" write ")).count();
    assert!(
        reads > 0 && reads == writes,
        "fio: {reads} reads, {writes} writes"
    );
    assert_same_lines(&["a 2 MiB file, size=1M, write:16k"], &logs[0], &logs[1]);
}
