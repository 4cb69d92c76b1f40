//! Steady-state detection with real engines: the seed's two job files and fio's
//! steadystate.fio example run (shortened) and print fio's `steadystate` line and
//! JSON object; option errors; the JSON lets the criterion be recomputed.

mod common;
use common::*;
use serde_json::Value;

/// The seed's first example (iops_mean, null engine), runtime shortened to 3 s.
const IOPS_MEAN: &str = "[iops_mean]
ioengine=null
size=1T
rw=randwrite
time_based=1
runtime=3
randrepeat=0
norandommap=1
steadystate=iops:2%
steadystate_duration=30s
steadystate_ramp_time=10s
";

/// The seed's second example (bw_slope, psync on a file), runtime shortened to 3 s
/// and size to 16 MiB.
fn bw_slope(dir: &str) -> String {
    format!(
        "[bw_slope]
direct=1
ioengine=psync
size=16m
rw=randread
time_based=1
runtime=3
randrepeat=0
norandommap=1
steadystate=bw_slope:4k
steadystate_duration=30s
steadystate_ramp_time=30s
directory={dir}
"
    )
}

fn write_job(d: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = d.path().join(name);
    std::fs::write(&p, text).unwrap();
    path_str(&p)
}

fn ss(v: &Value, job: usize) -> &Value {
    let s = &v["jobs"][job]["steadystate"];
    assert!(s.is_object(), "no steadystate object in job {job}: {v}");
    s
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// fio's keys in fio's order in the `nth` steadystate object of the raw JSON text.
fn check_key_order(text: &str, nth: usize) {
    let start = text
        .match_indices("\"steadystate\" : {")
        .nth(nth)
        .unwrap_or_else(|| panic!("no steadystate object {nth}:\n{text}"))
        .0;
    let body = &text[start..];
    let want = [
        "\n        \"ss\" : ",
        "\n        \"duration\" : ",
        "\n        \"attained\" : ",
        "\n        \"criterion\" : ",
        "\n        \"max_deviation\" : ",
        "\n        \"slope\" : ",
        "\n        \"data\" : {\n          \"bw_mean\" : ",
        "\n          \"iops_mean\" : ",
        "\n          \"iops\" : [",
        "\n          \"bw\" : [",
    ];
    let mut at = 0;
    for k in want {
        let i = body[at..].find(k).unwrap_or_else(|| {
            panic!(
                "{k:?} missing or out of order in {}",
                &body[..600.min(body.len())]
            )
        });
        at += i + k.len();
    }
}

/// The fio keys with fio's types and means.
fn check_fio_shape(s: &Value, ss_text: &str, duration: u64) {
    assert_eq!(s["ss"], ss_text);
    assert_eq!(s["duration"], duration);
    assert!(s["attained"] == 0 || s["attained"] == 1);
    assert!(s["criterion"].is_string());
    assert!(s["max_deviation"].is_f64() && s["slope"].is_f64());
    let d = &s["data"];
    let iops = u64s(&d["iops"]);
    let bw = u64s(&d["bw"]);
    assert_eq!(iops.len() as u64, duration);
    assert_eq!(bw.len() as u64, duration);
    // fio's means: integer, over the whole (zero-padded) window.
    assert_eq!(d["iops_mean"], iops.iter().sum::<u64>() / duration);
    assert_eq!(d["bw_mean"], bw.iter().sum::<u64>() / duration);
}

#[test]
fn seed_iops_mean_job_prints_fio_line_and_object() {
    let d = scratch();
    let job = write_job(&d, "iops_mean.fio", IOPS_MEAN);
    let out = run_ok(&[&job, "--output-format=normal,json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("  steadystate  : "))
        .unwrap_or_else(|| panic!("no steadystate line:\n{text}"));
    // 3 s of a 10 s ss_ramp: nothing measured, exactly what fio prints then.
    assert_eq!(
        line,
        "  steadystate  : attained=no, bw=0KiB/s (0kB/s), iops=0, iops mean dev=0.000%"
    );
    let v = parse_json(text.as_bytes());
    check_key_order(&text, 0);
    let s = ss(&v, 0);
    check_fio_shape(s, "iops:2.000000%", 30);
    assert_eq!(s["attained"], 0);
    assert_eq!(s["criterion"], "0.000000%");
    assert_eq!(s["measured"], 0);
}

#[test]
fn seed_bw_slope_job_prints_fio_line_and_object() {
    let d = scratch();
    let job = write_job(&d, "bw_slope.fio", &bw_slope(&path_str(d.path())));
    let out = run_ok(&[&job, "--output-format=normal,json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  steadystate  : attained=no, bw=0KiB/s (0kB/s), iops=0, bw slope=0.000\n"),
        "{text}"
    );
    let v = parse_json(text.as_bytes());
    check_key_order(&text, 0);
    check_fio_shape(ss(&v, 0), "bw_slope:4096.000000", 30);
}

#[test]
fn null_engine_attains_and_the_json_recomputes() {
    // A generous deviation limit over a 2-interval window: attained at the second
    // interval, so the job runs 2 s, not its 10 s runtime.
    let v = run_json(&[
        "--name=ss",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=10",
        "--ss=iops:100%",
        "--ss_dur=2",
    ]);
    let s = ss(&v, 0);
    assert_eq!(s["attained"], 1, "{s}");
    assert_eq!(s["measured"], 2);
    assert_eq!(s["first_interval"], 1);
    let iops = u64s(&s["data"]["iops"]);
    let mean = iops.iter().sum::<u64>() as f64 / 2.0;
    let dev = iops
        .iter()
        .map(|&y| (y as f64 - mean).abs())
        .fold(0.0, f64::max);
    let crit = 100.0 * dev / mean;
    let reported: f64 = s["criterion"]
        .as_str()
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(
        (reported - crit).abs() <= 1e-4 * crit.max(1.0),
        "{reported} vs {crit}"
    );
    assert!((s["max_deviation"].as_f64().unwrap() - dev).abs() < 1e-3);
    let runtime = v["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!((2000..4000).contains(&runtime), "runtime {runtime}");
    // The window's latency is reported separately.
    assert!(
        s["window_latency"]["read"]["clat_ns"]["N"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn fio_steadystate_example_runs() {
    // tests/jobs/steadystate.fio (modelled on fio's steadystate.fio), on /dev/null and
    // /dev/zero as written (character devices: never laid out), 5m runtimes cut to 2 s.
    let d = scratch();
    let src = std::fs::read_to_string(jobs_dir().join("steadystate.fio")).unwrap();
    assert!(src.contains("filename=/dev/null") && src.contains("filename=/dev/zero"));
    let mut text = String::new();
    for line in src.lines() {
        let l = match line.trim() {
            "runtime=5m" => "runtime=2".to_string(),
            "size=128m" => "size=4m".to_string(),
            _ => line.to_string(),
        };
        text.push_str(&l);
        text.push('\n');
    }
    let job = write_job(&d, "steadystate.fio", &text);
    let out = ferrio()
        .args([&job, "--output-format=normal,json"])
        .output()
        .unwrap();
    // fio's example says `threads=1`, which fio (and ferrio) accept for `thread`.
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("  steadystate  : "))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].ends_with("iops mean dev=0.000%"), "{}", lines[0]);
    assert!(lines[1].ends_with("bw slope=0.000%"), "{}", lines[1]);
    let v = parse_json(stdout.as_bytes());
    check_key_order(&stdout, 0);
    check_key_order(&stdout, 1);
    // group_reporting: one report (and one window) per group.
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    check_fio_shape(ss(&v, 0), "iops:10.000000%", 30);
    check_fio_shape(ss(&v, 1), "bw_slope:1.000000%", 10);
    assert_eq!(v["jobs"][0]["steadystate"]["attained"], 0);
}

#[test]
fn group_options_must_match() {
    let out = ferrio()
        .args([
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--ss=iops:5%",
            "--ss_dur=2",
            "--name=b",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("steadystate options must be consistent within reporting groups"),
        "{err}"
    );
    // Without steadystate_duration a job has no steady state, whatever its
    // steadystate= says, so it matches a job without one (fio copies the other
    // options only with a duration, and runs both).
    let args = [
        "--ioengine=null",
        "--size=1m",
        "--name=a",
        "--ss=bw_slope:0.1%",
        "--name=b",
    ];
    let out = ferrio().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if have_fio() {
        let fio = std::process::Command::new("fio")
            .args(args)
            .output()
            .unwrap();
        assert!(fio.status.success(), "fio refused it too");
    }
}

#[test]
fn bad_criteria_and_windows_are_rejected() {
    let cases: [&[&str]; 5] = [
        &["--ss=iops", "--ss_dur=2"],
        &["--ss=speed:5%", "--ss_dur=2"],
        &["--ss=iops_slope:1%", "--ss_dur=1"],
        &["--ss_interval=2", "--ss_dur=3"],
        &["--ss=clat_p99:5%", "--ss_dur=2", "--disable_clat=1"],
    ];
    for args in cases {
        let out = ferrio()
            .args(["--name=x", "--ioengine=null", "--size=1m"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} accepted");
    }
}

#[test]
fn cmdhelp_documents_the_new_criteria() {
    let out = run_ok(&["--cmdhelp=ss"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for w in [
        "iops_slope",
        "clat_p99",
        "write_iops_slope",
        "iops_snia",
        "lat_slope",
    ] {
        assert!(text.contains(w), "--cmdhelp=ss lacks {w}:\n{text}");
    }
    let out = run_ok(&["--cmdhelp=ss_interval"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("steadystate_check_interval"));
}

#[test]
fn sigusr1_report_shows_the_current_criterion() {
    // A criterion that never holds; a signal mid-run prints the report so far,
    // steady-state window and criterion value included, and the job goes on.
    let out = run_signalled(
        &[
            "--name=t",
            "--ioengine=null",
            "--size=1G",
            "--time_based",
            "--runtime=6s",
            "--ss=iops_slope:0%",
            "--ss_dur=2",
            "--output-format=json",
        ],
        std::time::Duration::from_millis(3500),
        "-USR1",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // As fio: the whole document at the signal, then the final one.
    let docs: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .map(|d| d.expect("a JSON document"))
        .collect();
    assert_eq!(docs.len(), 2);
    let s = &docs[0]["jobs"][0]["steadystate"];
    assert_eq!(s["attained"], 0, "{s}");
    assert!(s["measured"].as_u64().unwrap() >= 2, "{s}");
    // The criterion so far is the slope of the window it shows.
    let w = u64s(&s["criteria"][0]["values"]);
    let int_mean = (w[0] + w[1]) / 2;
    let want = 100.0 * (w[1] as f64 - w[0] as f64) / int_mean as f64;
    let got = s["criteria"][0]["value"].as_f64().unwrap();
    assert!((got - want).abs() <= 1e-5, "{got} vs {want}");
    let fin = &docs[1];
    assert_eq!(fin["jobs"][0]["steadystate"]["attained"], 0);
    assert!(
        fin["jobs"][0]["steadystate"]["measured"].as_u64().unwrap()
            > s["measured"].as_u64().unwrap()
    );
}

/// The shape of a JSON value: its type, and for objects the shapes of its members.
fn shape(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let inner: Vec<String> = m.iter().map(|(k, v)| format!("{k}:{}", shape(v))).collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(a) => format!("[{}]", a.first().map(shape).unwrap_or_default()),
        Value::String(_) => "str".into(),
        Value::Number(n) if n.is_f64() => "float".into(),
        Value::Number(_) => "int".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}

/// The normal line with its numbers, signs and unit prefixes blanked.
fn line_shape(l: &str) -> String {
    let mut s = blank_numbers(l).replace("=-#", "=#");
    for (from, to) in [
        ("#KiB", "#XiB"),
        ("#MiB", "#XiB"),
        ("#GiB", "#XiB"),
        ("#TiB", "#XiB"),
        ("#kB", "#XB"),
        ("#MB", "#XB"),
        ("#GB", "#XB"),
        ("#TB", "#XB"),
        ("#k,", "#,"),
        ("#M,", "#,"),
    ] {
        s = s.replace(from, to);
    }
    s
}

fn blank_numbers(l: &str) -> String {
    let mut out = String::new();
    let mut prev_digit = false;
    for c in l.chars() {
        let d = c.is_ascii_digit() || (prev_digit && c == '.');
        if d && !prev_digit {
            out.push('#');
        } else if !d {
            out.push(c);
        }
        prev_digit = d;
    }
    out
}

#[test]
fn same_object_and_line_as_fio() {
    if !have_fio() {
        return;
    }
    for crit in ["iops:50%", "bw_slope:1g"] {
        let args = [
            "--name=ss",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            "--runtime=4",
            &format!("--ss={crit}"),
            "--ss_dur=2",
        ];
        let both = |out: std::process::Output| {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let start = text.find('{').unwrap();
            let v: Value = serde_json::Deserializer::from_str(&text[start..])
                .into_iter()
                .next()
                .unwrap()
                .unwrap();
            let line = text
                .lines()
                .find(|l| l.starts_with("  steadystate  : "))
                .map(line_shape)
                .unwrap_or_default();
            (v, line)
        };
        let (fio, fio_line) = both(
            std::process::Command::new("fio")
                .args(args)
                .arg("--output-format=normal,json")
                .output()
                .unwrap(),
        );
        let (ours, our_line) = both(
            ferrio()
                .args(args)
                .arg("--output-format=normal,json")
                .output()
                .unwrap(),
        );
        let f = &fio["jobs"][0]["steadystate"];
        let o = &ours["jobs"][0]["steadystate"];
        // fio's keys, with fio's types; ferrio's additions come after them.
        let fio_keys: Vec<(&String, &Value)> = f.as_object().unwrap().iter().collect();
        for (k, v) in fio_keys {
            assert_eq!(shape(v), shape(&o[k.as_str()]), "{crit}: key {k}");
        }
        assert_eq!(f["ss"], o["ss"], "{crit}");
        assert_eq!(f["duration"], o["duration"]);
        for (k, v) in f["data"].as_object().unwrap() {
            assert_eq!(shape(v), shape(&o["data"][k.as_str()]), "{crit}: data.{k}");
        }
        // The normal line differs only in its numbers.
        assert!(!fio_line.is_empty());
        assert_eq!(
            our_line.replace("attained=no", "attained=yes"),
            fio_line.replace("attained=no", "attained=yes"),
            "{crit}"
        );
    }
}
