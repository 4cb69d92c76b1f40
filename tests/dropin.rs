//! Drop-in mode end to end: ferrio installed as `fio` (a symlink) reports fio's
//! version and runs the command lines of the tools that drive fio: bench-fio (PyPI
//! `fio-plot`), cdmpy (PyPI `cdmpy`, command `cdm`) and KDiskMark (its fio command
//! line, reproduced from its source). The Python harnesses are skipped, visibly, when
//! not installed, except in CI (`CI` or `FERRIO_REQUIRE_FIO=1` set), where .ci/run
//! installs them.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn version() -> String {
    format!("fio-3.33-ferrio-{}", env!("CARGO_PKG_VERSION"))
}

/// A directory holding a symlink named `fio` to the ferrio binary.
fn fio_link() -> (tempfile::TempDir, PathBuf) {
    let d = scratch();
    let link = d.path().join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ferrio"), &link).expect("symlink");
    (d, link)
}

/// PATH with `dir` first, so harnesses that run `fio` run ferrio.
fn path_with(dir: &Path) -> String {
    let old = std::env::var("PATH").unwrap_or_default();
    format!("{}:{old}", dir.display())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Whether `dir`'s file system takes O_DIRECT (a tmpfs does not): the harnesses ask
/// for direct I/O, which is then dropped for the test.
fn direct_ok(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let p = dir.join(".direct-probe");
    std::fs::write(&p, vec![0u8; 4096]).unwrap();
    let ok = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&p)
        .is_ok();
    let _ = std::fs::remove_file(&p);
    ok
}

fn must_run() -> bool {
    std::env::var_os("CI").is_some() || std::env::var("FERRIO_REQUIRE_FIO").as_deref() == Ok("1")
}

/// The harness command `name` on PATH; None (after a visible SKIP line) when absent
/// outside CI; a failure in CI.
fn harness(name: &str, package: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|c| c.is_file())
    });
    if found.is_none() {
        assert!(
            !must_run(),
            "`{name}` is required in CI: pip install {package} (see .ci/run)"
        );
        eprintln!("SKIP: `{name}` not installed (pip install {package})");
    }
    found
}

#[test]
fn named_fio_it_reports_fios_version_and_still_says_ferrio() {
    let (d, link) = fio_link();
    let out = Command::new(&link).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), format!("{}\n", version()));
    let out = Command::new(&link).arg("-v").output().unwrap();
    assert_eq!(text(&out.stdout), format!("{}\n", version()));
    let out = Command::new(&link)
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--output-format=json",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(parse_json(&out.stdout)["fio version"], version().as_str());
    // The normal output's version line too.
    let out = Command::new(&link)
        .args(["--name=t", "--ioengine=null", "--size=1m"])
        .output()
        .unwrap();
    assert!(
        text(&out.stdout).lines().any(|l| l == version()),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn the_environment_turns_drop_in_mode_on_and_off() {
    let out = ferrio()
        .arg("--version")
        .env("FERRIO_FIO_COMPAT", "1")
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), format!("{}\n", version()));
    let (_d, link) = fio_link();
    let out = Command::new(&link)
        .arg("--version")
        .env("FERRIO_FIO_COMPAT", "0")
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        format!("ferrio-{}\n", env!("CARGO_PKG_VERSION"))
    );
    let out = ferrio()
        .arg("--version")
        .env_remove("FERRIO_FIO_COMPAT")
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        format!("ferrio-{}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// KDiskMark (src/benchmark.cpp): `fio --version` must start with "fio-", then one
/// process per test with this command line; it reads jobs[].read/write.bw, .iops,
/// .lat_ns.mean and jobs[].error from the JSON on stdout.
#[test]
fn kdiskmark_command_line() {
    let (d, link) = fio_link();
    let out = Command::new(&link).arg("--version").output().unwrap();
    assert!(text(&out.stdout).trim().starts_with("fio-"));
    let file = file_in(d.path(), "kdiskmark.tmp");
    let direct = if direct_ok(d.path()) {
        "--direct=1"
    } else {
        eprintln!("NOTE: no O_DIRECT on the temporary file system: --direct=0");
        "--direct=0"
    };
    for (rw, bs, qd, threads) in [
        ("read", 1024, 8, 1),
        ("randwrite", 4, 32, 2),
        ("randrw", 4, 1, 1),
    ] {
        let out: Output = Command::new(&link)
            .args([
                "--output-format=json",
                "--ioengine=libaio",
                direct,
                "--randrepeat=0",
                "--refill_buffers",
                "--end_fsync=1",
                "--rwmixread=70",
                &format!("--filename={file}"),
                &format!("--name={rw}"),
                "--size=8m",
                &format!("--bs={bs}k"),
                &format!("--rw={rw}"),
                &format!("--iodepth={qd}"),
                &format!("--numjobs={threads}"),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{rw}: {}", text(&out.stderr));
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
        let jobs = v["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), threads, "{rw}");
        for j in jobs {
            assert_eq!(j["error"], 0);
            let dir = if rw.contains("write") {
                "write"
            } else {
                "read"
            };
            assert!(j[dir]["bw"].as_u64().unwrap() > 0, "{rw}");
            assert!(j[dir]["iops"].as_f64().unwrap() > 0.0);
            assert!(j[dir]["lat_ns"]["mean"].as_f64().unwrap() > 0.0);
        }
    }
}

/// bench-fio writes a job file and runs `fio --output-format=json --output=FILE JOB`;
/// any byte on fio's stderr counts as a failure.
#[test]
fn bench_fio_runs_against_ferrio_as_fio() {
    let Some(bench) = harness("bench-fio", "fio-plot") else {
        return;
    };
    let (d, _link) = fio_link();
    let target = d.path().join("target");
    let output = d.path().join("out");
    std::fs::create_dir(&target).unwrap();
    let out = Command::new(&bench)
        .args(["--target", &path_str(&target), "--type", "directory"])
        .args([
            "--mode",
            "randread",
            "randwrite",
            "--size",
            "4M",
            "--iodepth",
            "1",
            "4",
        ])
        .args([
            "--numjobs",
            "1",
            "--runtime",
            "1",
            "--quiet",
            "--destructive",
        ])
        .args(["--output", &path_str(&output)])
        .args(["--direct", if direct_ok(d.path()) { "1" } else { "0" }])
        .env("PATH", path_with(d.path()))
        .output()
        .unwrap();
    assert!(
        out.status.success() && !text(&out.stdout).contains("An error occurred"),
        "bench-fio failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let results = output.join("target").join("4k");
    for mode in ["randread", "randwrite"] {
        for qd in [1, 4] {
            let json = results.join(format!("{mode}-{qd}-1.json"));
            let v: serde_json::Value = serde_json::from_slice(
                &std::fs::read(&json).unwrap_or_else(|e| panic!("{}: {e}", json.display())),
            )
            .unwrap();
            assert_eq!(v["fio version"], version().as_str());
            let dir = &mode[4..];
            assert!(v["jobs"][0][dir]["iops"].as_f64().unwrap() > 0.0);
            let log = results.join(format!("{mode}-iodepth-{qd}-numjobs-1_bw.1.log"));
            assert!(log.exists(), "{}", log.display());
        }
    }
}

/// cdmpy writes a job file (size as a float, bare keys) and runs
/// `fio --ioengine posixaio --max-jobs=1 --output-format json JOB`, then prints a table.
#[test]
fn cdmpy_runs_against_ferrio_as_fio() {
    let Some(cdm) = harness("cdm", "cdmpy") else {
        return;
    };
    let (d, _link) = fio_link();
    // cdm always asks for direct=1: its target lives beside the build (not a tmpfs).
    let t = tempfile::Builder::new()
        .prefix("ferrio-cdm-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let target = t.path().join("target");
    std::fs::create_dir(&target).unwrap();
    if !direct_ok(&target) {
        common::skip::skip(&format!(
            "cdm needs O_DIRECT, which {} lacks",
            target.display()
        ));
        return;
    }
    let out = Command::new(&cdm)
        .args([
            "-s", "4m", "-n", "1", "-a", "seq,1,1", "-a", "rnd,4,2", "-x", "70",
        ])
        .arg(&target)
        .env("PATH", path_with(d.path()))
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let row = |name: &str| -> Vec<f64> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("|{name}")))
            .unwrap_or_else(|| panic!("no row {name}:\n{stdout}"));
        line.split('|')
            .skip(2)
            .filter(|c| !c.trim().is_empty())
            .map(|c| c.trim().parse().unwrap())
            .collect()
    };
    for name in ["SEQ1M Q1 T1", "RND4K Q4 T2"] {
        let cells = row(name);
        assert_eq!(cells.len(), 3, "{name}: {cells:?}");
        assert!(
            cells.iter().all(|&c| c > 0.0),
            "{name}: {cells:?}\n{stdout}"
        );
    }
    // It removes its test file; ferrio left nothing else behind.
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
}

/// A terse field's shape: percentile (`P%=V`), percentage, integer, decimal or text.
fn shape(field: &str) -> char {
    if field.contains("%=") {
        'P'
    } else if field.ends_with('%') {
        '%'
    } else if field.parse::<u64>().is_ok() {
        'i'
    } else if field.parse::<f64>().is_ok() {
        'f'
    } else {
        's'
    }
}

/// Differential: every terse version has fio 3.33's field count and, field by field,
/// the same shape, for the same job (null engine: no disk fields on either side).
#[test]
fn terse_versions_2_to_5_have_fios_layout() {
    if !have_fio() {
        return;
    }
    for ver in ["2", "3", "4", "5"] {
        let args = [
            "--name=t",
            "--ioengine=null",
            "--rw=randrw",
            "--size=4m",
            "--description=about it",
            "--minimal",
            &format!("--terse-version={ver}"),
        ];
        let fio = Command::new("fio").args(args).output().unwrap();
        assert!(fio.status.success(), "{}", text(&fio.stderr));
        let ours = run_ok(&args);
        let (f, o) = (text(&fio.stdout), text(&ours.stdout));
        // Version 2 puts the description on a line of its own.
        assert_eq!(f.lines().count(), o.lines().count(), "v{ver}:\n{f}\n{o}");
        let fields =
            |s: &str| -> Vec<String> { s.trim_end().split(';').map(str::to_string).collect() };
        let (ff, of) = (fields(&f), fields(&o));
        assert_eq!(
            ff.len(),
            of.len(),
            "v{ver} field count:\nfio:    {f}\nferrio: {o}"
        );
        for (i, (a, b)) in ff.iter().zip(&of).enumerate() {
            assert_eq!(
                shape(a),
                shape(b),
                "v{ver} field {i}: fio '{a}', ferrio '{b}'"
            );
        }
        assert_eq!(ff[0], of[0]);
        assert_eq!(ff.last(), of.last(), "the description ends the line");
    }
    // An unknown version is refused with the allowed ones, as a bad value.
    let out = ferrio()
        .args(["--terse-version=6", "--name=t"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("allowed: 2, 3, 4, 5"));
}

/// The direction labels of the normal output's job block and group block.
fn labels(normal: &str) -> Vec<String> {
    normal
        .lines()
        .filter(|l| l.contains(": IOPS=") || l.contains(": bw="))
        .map(|l| l.split(':').next().unwrap().trim().to_string())
        .collect()
}

/// Differential: unified_rw_reporting (none, mixed, both and 0, 1, 2) prints fio
/// 3.33's directions in the normal output, fio's keys in the JSON job object and fio's
/// terse layout; the mixed direction holds the sum of the others.
#[test]
fn unified_rw_reporting_has_fios_layout_in_every_format() {
    if !have_fio() {
        return;
    }
    // The null engine touches no file: the values run a few at a time.
    common::cases::each_case(&["none", "mixed", "both", "0", "1", "2"], |u| {
        let base = [
            "--name=t",
            "--ioengine=null",
            "--rw=randrw",
            "--size=4m",
            &format!("--unified_rw_reporting={u}"),
        ];
        let with = |extra: &str| {
            let mut a = base.to_vec();
            a.push(extra);
            let fio = Command::new("fio").args(&a).output().unwrap();
            assert!(fio.status.success(), "{}", text(&fio.stderr));
            (text(&fio.stdout), text(&run_ok(&a).stdout))
        };
        let (f, o) = with("--output-format=normal");
        assert_eq!(labels(&f), labels(&o), "{u}:\n{f}\n{o}");
        let (f, o) = with("--output-format=json");
        let keys = |s: &str| -> Vec<String> {
            let v = parse_json(s.as_bytes());
            v["jobs"][0].as_object().unwrap().keys().cloned().collect()
        };
        assert_eq!(keys(&f), keys(&o), "{u}");
        let v = parse_json(o.as_bytes());
        if let Some(m) = v["jobs"][0].get("mixed") {
            assert_eq!(m["io_bytes"], 4 << 20, "{u}");
            assert_eq!(m["total_ios"], 1024, "{u}");
        }
        let (f, o) = with("--minimal");
        let (ff, of): (Vec<&str>, Vec<&str>) =
            (f.trim().split(';').collect(), o.trim().split(';').collect());
        assert_eq!(ff.len(), of.len(), "{u} terse:\n{f}\n{o}");
        for (i, (a, b)) in ff.iter().zip(&of).enumerate() {
            assert_eq!(shape(a), shape(b), "{u} terse field {i}");
        }
    });
    let out = ferrio()
        .args(["--name=t", "--unified_rw_reporting=all"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("allowed: none, mixed, both, 0, 1, 2"),
        "{}",
        text(&out.stderr)
    );
}

/// tests/jobs_compat: our own job files with values and options fio 3.33 accepts.
fn compat_files() -> (PathBuf, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jobs_compat");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".fio"))
        .collect();
    names.sort();
    (dir, names)
}

/// Copies the collection into a scratch directory and runs `prog` there.
fn run_compat(prog: &Path, job: &str, extra: &[&str]) -> (tempfile::TempDir, Output) {
    let d = scratch();
    let (dir, _) = compat_files();
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), d.path().join(e.file_name())).unwrap();
    }
    let out = Command::new(prog)
        .arg(job)
        .args(extra)
        .env("COMPAT_DIR", d.path())
        .current_dir(d.path())
        .output()
        .unwrap();
    (d, out)
}

/// Every file fio 3.33 accepts, ferrio accepts; each one with jobs runs, creating the
/// same files fio creates (data files and logs), with the same bytes where the data
/// is a pattern.
#[test]
fn job_collection_parses_and_runs_like_fio() {
    let (_, names) = compat_files();
    assert!(names.len() >= 4, "{names:?}");
    let ferrio_bin = Path::new(env!("CARGO_BIN_EXE_ferrio"));
    let fio = have_fio().then(|| PathBuf::from("fio"));
    let listing = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    for name in &names {
        let (_d, out) = run_compat(ferrio_bin, name, &["--parse-only"]);
        assert!(
            out.status.success(),
            "ferrio refuses {name}: {}",
            text(&out.stderr)
        );
        if let Some(fio) = &fio {
            let (_d, out) = run_compat(fio, name, &["--parse-only"]);
            assert!(
                out.status.success(),
                "fio refuses {name}: {}",
                text(&out.stderr)
            );
        }
        if name == "global_only.fio" {
            continue;
        }
        let (ours, out) = run_compat(ferrio_bin, name, &["--output-format=json"]);
        assert!(
            out.status.success(),
            "ferrio fails {name}: {}",
            text(&out.stderr)
        );
        assert!(!parse_json(&out.stdout)["jobs"]
            .as_array()
            .unwrap()
            .is_empty());
        let Some(fio) = &fio else { continue };
        let (theirs, out) = run_compat(fio, name, &["--output-format=json"]);
        assert!(
            out.status.success(),
            "fio fails {name}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            listing(ours.path()),
            listing(theirs.path()),
            "{name}: files created"
        );
        for data in ["floats.0.0", "from-file.0.0"] {
            let (a, b) = (ours.path().join(data), theirs.path().join(data));
            if b.exists() {
                assert!(
                    std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                    "{name}: {data} differs from fio's"
                );
            }
        }
    }
}

/// Values fio would silently misread stay errors that say why, and touch no file.
#[test]
fn values_fio_misreads_are_refused_by_name() {
    let d = scratch();
    for (arg, why) in [
        ("--size=1.0m", "fractional"),
        (
            "--random_distribution=sequence",
            "allowed: random, zipf, pareto, normal, zoned, zoned_abs",
        ),
        ("--size=0%", "size=0% selects nothing"),
        ("--buffer_pattern=%o", "not supported by ferrio yet"),
    ] {
        let out = ferrio()
            .args([
                "--name=t",
                &format!("--filename={}", file_in(d.path(), "x")),
                arg,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{arg}");
        assert!(
            text(&out.stderr).contains(why),
            "{arg}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

/// Options that were accepted and did nothing now act, or are refused by name.
#[test]
fn accepted_options_act_or_are_refused() {
    let d = scratch();
    let f = file_in(d.path(), "x");
    // disk_util=0: no disk statistics (fio prints none either).
    let base = ["--name=t", "--size=256k", &format!("--filename={f}")];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        text(&run_ok(&a).stdout)
    };
    assert!(!with(&["--disk_util=0"]).contains("Disk stats"));
    let v = parse_json(with(&["--disk_util=0", "--output-format=json"]).as_bytes());
    assert!(v
        .get("disk_util")
        .is_none_or(|d| d.as_array().unwrap().is_empty()));
    // An engine's own option with another engine, as fio: refused, naming both.
    for (args, want) in [
        (
            vec!["--ioengine=psync", "--fixedbufs"],
            "option of the io_uring engine, but the job's ioengine is psync",
        ),
        (
            vec!["--ioengine=psync", "--hipri"],
            "needs ioengine=pvsync2 or io_uring",
        ),
        (
            vec!["--ioengine=sync", "--nowait=1"],
            "option of the pvsync2, libaio, io_uring engines",
        ),
        (
            vec!["--ioengine=null", "--sim_lat=10us"],
            "option of the sim engine",
        ),
    ] {
        let mut a: Vec<&str> = base.to_vec();
        a.extend(args.iter().copied());
        let out = ferrio().args(&a).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            text(&out.stderr).contains(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    run_ok(&[
        "--name=t",
        "--ioengine=pvsync2",
        "--hipri=0",
        "--size=256k",
        &format!("--filename={f}"),
    ]);
}

/// --idle-prof: fio's "CPU idleness" section in normal output and its JSON object
/// (same keys as fio's), --idle-prof=calibrate alone, and a bad value refused.
#[test]
fn idle_prof_reports_cpu_idleness_like_fio() {
    let job = [
        "--name=t",
        "--ioengine=null",
        "--size=4k",
        "--startdelay=300ms",
    ];
    let mut a = job.to_vec();
    a.push("--idle-prof=percpu");
    let out = text(&run_ok(&a).stdout);
    let block = out
        .split("\nCPU idleness:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    let lines: Vec<&str> = block.lines().collect();
    assert!(
        lines[0].starts_with("  system: ") && lines[0].ends_with('%'),
        "{block}"
    );
    let ncpu = std::thread::available_parallelism().unwrap().get();
    assert!(lines[1].starts_with("  percpu: "), "{block}");
    assert_eq!(lines[1].matches('%').count(), ncpu, "{block}");
    assert!(lines[2].starts_with("  unit work: mean=") && lines[2].contains("us, stddev="));
    a.push("--output-format=json");
    let v = parse_json(&run_ok(&a).stdout);
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v["cpu_idleness"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let ours = keys(&v);
    assert_eq!(ours.len(), ncpu + 3, "{ours:?}");
    let pct = v["cpu_idleness"]["system"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&pct));
    if have_fio() {
        let fio = Command::new("fio").args(&a).output().unwrap();
        assert_eq!(keys(&parse_json(&fio.stdout)), ours);
    }
    let cal = text(&run_ok(&["--idle-prof=calibrate"]).stdout);
    assert!(
        cal.starts_with("CPU idleness:\n  unit work: mean="),
        "{cal}"
    );
    let out = ferrio()
        .args(["--idle-prof=all", "--name=t"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("allowed: system, percpu, calibrate"));
}
