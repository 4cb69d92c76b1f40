//! fio's built-in profiles (`--profile=tiobench`, `--profile=act`;
//! docs/dropin.md, "Profiles"): the options ferrio's expansion gives its jobs
//! (`--showcmd`) are the ones fio 3.33 parses for the same profile, in the same
//! order (fio's `--debug=parse`), and a tiny tiobench run reports fio's four jobs.

mod common;
use common::*;
use std::process::Command;

/// The options fio parses, in order, from `--debug=parse`'s `handle_option=K,
/// ptr=V` lines (a bare option's V is `(null)`).
fn fio_parsed(args: &[&str], dir: &std::path::Path) -> Vec<(String, Option<String>)> {
    // fio 3.33 crashes after parsing act's first job at --parse-only; what it
    // parsed by then is printed (and compared) all the same.
    let o = Command::new("fio")
        .args(args)
        .args(["--parse-only", "--debug=parse"])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    text.lines()
        .filter_map(|l| l.split_once(" handle_option=").map(|x| x.1))
        .map(|kv| {
            let (k, v) = kv.split_once(", ptr=").unwrap();
            let v = (v != "(null)").then(|| v.to_string());
            (k.to_string(), v)
        })
        .collect()
}

/// The options of ferrio's expansion, from `--showcmd` (`--name=X` is the option
/// `name=X`; the global section's own `--name=global` is left out).
fn ferrio_showcmd(args: &[&str]) -> Vec<(String, Option<String>)> {
    let o = run_ok(&[args, &["--showcmd"]].concat());
    let line = String::from_utf8(o.stdout).unwrap();
    line.split_whitespace()
        .skip(1)
        .filter(|t| *t != "--name=global")
        .map(|t| {
            let t = t.trim_start_matches("--");
            match t.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (t.to_string(), None),
            }
        })
        .collect()
}

#[test]
fn tiobench_parses_to_fios_options() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let ours = ferrio_showcmd(&["--profile=tiobench"]);
    let fio = fio_parsed(&["--profile=tiobench"], d.path());
    assert_eq!(ours.len(), 25);
    // The size is 4 KiB per MiB of memory in both (the same machine's $mb_memory).
    assert_eq!(ours, fio);
}

#[test]
fn act_parses_to_fios_options() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let dev = file_in(d.path(), "dev");
    std::fs::File::create(&dev)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let names = format!("--device-names={dev}");
    let args = [
        "--profile=act",
        names.as_str(),
        "--load=3",
        "--threads-per-queue=4",
    ];
    let ours = ferrio_showcmd(&args);
    let mut fio = fio_parsed(&args, d.path());
    // fio reads test-duration in µs and writes it as seconds (24h: 86400000000s);
    // ferrio's runtime is the test's duration.
    let at = fio.iter().position(|o| o.0 == "runtime").unwrap();
    assert_eq!(fio[at].1.as_deref(), Some("86400000000s"));
    fio[at].1 = Some("86400s".into());
    // All fio printed before it stopped (at least the global options).
    assert!(fio.len() >= 7, "{fio:?}");
    assert_eq!(ours[..fio.len()], fio[..]);
    let read: Vec<String> = ours[6..13]
        .iter()
        .map(|o| format!("{}={}", o.0, o.1.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        read,
        [
            "time_based=1",
            &format!("name=act-read-{dev}"),
            &format!("filename={dev}"),
            "rw=randread",
            "numjobs=4",
            "rate_iops=1500",
            "bs=1536"
        ]
    );
}

/// A tiny tiobench run (1 MiB, in its own directory): fio's four jobs one after
/// the other, each with its direction, block size and bytes.
#[test]
fn a_tiny_tiobench_run_reports_fios_four_jobs() {
    let Some(d) = skip::direct_scratch() else {
        return;
    };
    let dir = format!("--dir={}", d.path().display());
    let v = run_json(&["--profile=tiobench", "--size=1", "--block=65536", &dir]);
    let jobs = v["jobs"].as_array().unwrap();
    let got: Vec<(String, u64, u64)> = jobs
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["read"]["io_bytes"].as_u64().unwrap(),
                j["write"]["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let mib = 1 << 20;
    assert_eq!(
        got,
        [
            ("seqwrite".to_string(), 0, mib),
            ("randwrite".to_string(), 0, mib),
            ("seqread".to_string(), mib, 0),
            ("randread".to_string(), mib, 0)
        ]
    );
    // The profile's global options are the run's global options, as in fio.
    assert_eq!(v["global options"]["bs"], "65536");
    assert_eq!(v["global options"]["buffered"], "0");
    // A job's own options as fio 3.33 lists them (its bare stonewall not among them).
    assert_eq!(
        jobs[1]["job options"],
        serde_json::json!({"name": "randwrite", "rw": "randwrite", "end_fsync": "1"})
    );
    for n in 1..=4 {
        assert!(d.path().join(format!(".fio.tio.{n}")).exists());
    }
}
