//! ACT's report (fio's `profiles/act.c`; docs/dropin.md, "Profiles"): a job with
//! `profile=act` (every job, with `--profile=act`) counts its I/Os' total latency
//! over 1, 8 and 64 ms per hour, and the run prints fio's table and verdict before
//! the normal output, as fio does. The shares are checked exactly on the simulated device in
//! virtual time, where each job's latency is its fixed service time (plus about
//! 1.3 µs of transfer). fio 3.33 crashes at `--profile=act` as soon as it has
//! parsed the first job, so there is no run of fio's to compare with.

mod common;
use common::*;

/// Run a job file of sim jobs (`[global]` lines first, then per job its options);
/// the normal output.
fn run_jobs(global: &str, jobs: &[&str]) -> String {
    let d = scratch();
    let mut text = format!(
        "[global]\nioengine=sim\nclocksource=virtual\nsize=1m\nbs=4k\nrw=randread\n{}\n",
        global.replace(' ', "\n")
    );
    for (i, j) in jobs.iter().enumerate() {
        text.push_str(&format!("[j{i}]\n{}\n", j.replace(' ', "\n")));
    }
    let f = d.path().join("act.fio");
    std::fs::write(&f, text).unwrap();
    let o = run_ok(&[&path_str(&f)]);
    String::from_utf8(o.stdout).unwrap()
}

/// The ACT table (from its first line to the verdict), or None.
fn table(out: &str) -> Option<&str> {
    let i = out.find("        trans ")?;
    let end = out[i..].find("device(s): ")?;
    let nl = out[i + end..].find('\n')?;
    Some(&out[i..i + end + nl + 1])
}

const HEAD: &str = "        trans                   device\n        %>(ms)                  %>(ms)\n slice\t  1\t  8\t 64\t  1\t  8\t 64\n -----  -----   -----  ------   -----   -----  ------\n";

fn want(rows: &[&str], verdict: &str) -> String {
    let mut s = HEAD.to_string();
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s + &format!("\nact: test complete, device(s): {verdict}\n")
}

#[test]
fn the_shares_over_1_8_and_64_ms_and_the_verdict_are_fios() {
    let cases: [(&[&str], &str, &str); 4] = [
        // 6 % in 1-8 ms, 3 % in 8-64 ms, 1 % over 64 ms: every limit broken.
        (
            &[
                "sim_lat=fixed:10us number_ios=90",
                "sim_lat=fixed:2ms number_ios=6",
                "sim_lat=fixed:9ms number_ios=3",
                "sim_lat=fixed:70ms number_ios=1",
            ],
            "    1\t6.00\t3.00\t1.00\t6.00\t3.00\t1.00",
            "FAILED",
        ),
        // Under 5 %, 1 % and 0.1 %.
        (
            &[
                "sim_lat=fixed:10us number_ios=200",
                "sim_lat=fixed:2ms number_ios=8",
                "sim_lat=fixed:9ms number_ios=2",
            ],
            "    1\t3.81\t0.95\t0.00\t3.81\t0.95\t0.00",
            "PASSED",
        ),
        // Exactly 5 % over 1 ms reaches ACT's limit (50 per mille).
        (
            &[
                "sim_lat=fixed:10us number_ios=95",
                "sim_lat=fixed:2ms number_ios=5",
            ],
            "    1\t5.00\t0.00\t0.00\t5.00\t0.00\t0.00",
            "FAILED",
        ),
        // 1 ms itself is not over 1 ms (whole microseconds, as fio): 999 us service
        // plus the transfer is 1000 us.
        (
            &["sim_lat=fixed:999us number_ios=10"],
            "    1\t0.00\t0.00\t0.00\t0.00\t0.00\t0.00",
            "PASSED",
        ),
    ];
    for (jobs, row, verdict) in cases {
        let out = run_jobs("profile=act", jobs);
        assert_eq!(
            table(&out),
            Some(want(&[row], verdict).as_str()),
            "{jobs:?}:\n{out}"
        );
        // Before the jobs' reports (fio prints it as the last job ends).
        assert!(out.find("        trans ").unwrap() < out.find("Run status group").unwrap());
    }
}

#[test]
fn only_jobs_with_profile_act_are_counted() {
    let out = run_jobs(
        "",
        &[
            "sim_lat=fixed:2ms number_ios=10 profile=act",
            "sim_lat=fixed:70ms number_ios=10",
        ],
    );
    let t = want(&["    1\t100.00\t0.00\t0.00\t100.00\t0.00\t0.00"], "FAILED");
    assert_eq!(table(&out), Some(t.as_str()), "{out}");
    for global in ["", "profile=tiobench"] {
        let out = run_jobs(global, &["sim_lat=fixed:70ms number_ios=10"]);
        assert!(table(&out).is_none() && !out.contains("act:"), "{out}");
    }
}

#[test]
fn a_slice_is_an_hour_of_the_jobs_time() {
    // 1.5 virtual hours of 1 s reads: two slices, the second all over 64 ms; the
    // 20 ms reads of the other job end within the first hour. (The read closing the
    // failed first slice fails with EPERM, as in fio: ignore_error lets the job go on.)
    let out = run_jobs(
        "profile=act time_based",
        &[
            "sim_lat=fixed:1s runtime=5400 continue_on_error=all ignore_error=EPERM",
            "sim_lat=fixed:20ms runtime=600",
        ],
    );
    let t = table(&out).unwrap_or_else(|| panic!("no table:\n{out}"));
    let rows: Vec<&str> = t.lines().skip(4).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 2, "{t}");
    assert_eq!(rows[1], "    2\t0.00\t0.00\t100.00\t0.00\t0.00\t100.00");
    let first: Vec<f64> = rows[0]
        .split('\t')
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        first[0] == 0.0 && first[1] > 80.0 && first[2] > 0.0 && first[2] < 20.0,
        "{t}"
    );
    assert!(t.ends_with("device(s): FAILED\n"));
}

#[test]
fn the_io_closing_a_failed_slice_stops_the_job() {
    // As fio's act profile: the read that closes a slice over the criteria fails
    // with EPERM, and the job stops there (an hour of 1 s reads, not the 1.5 asked).
    let d = scratch();
    let f = d.path().join("act.fio");
    let text = "[global]\nioengine=sim\nclocksource=virtual\nsize=1m\nbs=4k\nrw=randread\n\
                profile=act\ntime_based\n[slow]\nsim_lat=fixed:1s\nruntime=5400\n";
    std::fs::write(&f, text).unwrap();
    let out = ferrio()
        .arg(path_str(&f))
        .arg("--output-format=json")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("act: slice 1: 100.00% of I/Os over 64 ms exceeds the pass criterion of 0.1%"),
        "{err}"
    );
    let v = parse_json(&out.stdout);
    let j = &v["jobs"][0];
    assert_eq!(j["error"], libc_eperm(), "{j}");
    // 3600 reads of 1 s make the hour; the 3601st closes the slice and is the last.
    let ios = j["read"]["total_ios"].as_u64().unwrap();
    assert!((3600..=3602).contains(&ios), "{ios}");
}

/// EPERM, the error fio's act hook gives the I/O.
fn libc_eperm() -> u64 {
    1
}

/// The table with every percentage as `N` and the verdict as `V` (its layout).
fn shape(t: &str) -> String {
    let t = t.replace("PASSED", "V").replace("FAILED", "V");
    t.lines()
        .map(|l| match l.starts_with("   ") {
            true => {
                let mut c = l.split('\t');
                let first = c.next().unwrap_or("").to_string();
                std::iter::once(first)
                    .chain(c.map(|v| match v.parse::<f64>() {
                        Ok(_)
                            if v.contains('.') && v.split('.').nth(1).map(str::len) == Some(2) =>
                        {
                            "N".to_string()
                        }
                        _ => v.to_string(),
                    }))
                    .collect::<Vec<_>>()
                    .join("\t")
            }
            false => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--profile=act` on a 1 MiB file for a second: ACT's two jobs run and the table
/// is printed before their reports, with fio 3.33's layout (fio runs the same
/// profile on its own file at the same time; the percentages are the disk's).
#[test]
fn the_act_profile_prints_fios_table() {
    let Some(d) = skip::direct_scratch() else {
        return;
    };
    let file = |n: &str| {
        let f = d.path().join(n);
        std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
        format!("--device-names={}", path_str(&f))
    };
    let args = |names: &str| {
        [
            "--profile=act".to_string(),
            names.to_string(),
            "--test-duration=1".into(),
        ]
    };
    // fio 3.33 aborts ("buffer overflow detected") on a long device path: it is
    // given the file's name in the scratch directory.
    let fio = have_fio().then(|| {
        file("fio");
        std::process::Command::new("fio")
            .args(args("--device-names=fio"))
            .current_dir(d.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    });
    let names = file("dev");
    let a = args(&names);
    let o = run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let out = String::from_utf8(o.stdout).unwrap();
    let t = table(&out).unwrap_or_else(|| panic!("no table:\n{out}"));
    assert!(t.starts_with(HEAD), "{t}");
    let rows: Vec<&str> = t.lines().skip(4).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 1, "{t}");
    assert_eq!(
        shape(t),
        shape(&want(
            &["    1\t0.00\t0.00\t0.00\t0.00\t0.00\t0.00"],
            "PASSED"
        ))
        .trim_end()
    );
    // Both jobs ran, as ACT's, reported after the table.
    let at = out.find("act-read-").unwrap();
    assert!(out[at..].contains("act-write-"), "{out}");
    assert!(out.rfind("act-read-").unwrap() > out.find("        trans ").unwrap());
    if let Some(fio) = fio {
        let f = fio.wait_with_output().unwrap();
        let fout = String::from_utf8_lossy(&f.stdout).to_string();
        let ft = table(&fout).unwrap_or_else(|| panic!("fio printed no table:\n{fout}"));
        assert_eq!(shape(ft), shape(t), "fio:\n{ft}\nferrio:\n{t}");
        // fio prints it before the jobs' reports too.
        assert!(fout.rfind("act-read-").unwrap() > fout.find("        trans ").unwrap());
    }
}
