//! ACT's report (fio's `profiles/act.c`; docs/dropin.md, "Profiles"): a job with
//! `profile=act` (every job, with `--profile=act`) counts its I/Os' total latency
//! over 1, 8 and 64 ms per hour, and the run prints fio's table and verdict after
//! the normal output. The shares are checked exactly on the simulated device in
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
    out.find("        trans ").map(|i| &out[i..])
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
        // After the normal output.
        assert!(out.find("Run status group").unwrap() < out.find("        trans ").unwrap());
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
    // 20 ms reads of the other job end within the first hour.
    let out = run_jobs(
        "profile=act time_based",
        &[
            "sim_lat=fixed:1s runtime=5400",
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
fn the_act_profile_prints_its_table() {
    let Some(d) = skip::direct_scratch() else {
        return;
    };
    let f = d.path().join("dev");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let names = format!("--device-names={}", path_str(&f));
    let o = run_ok(&["--profile=act", &names, "--test-duration=1"]);
    let out = String::from_utf8(o.stdout).unwrap();
    let t = table(&out).unwrap_or_else(|| panic!("no table:\n{out}"));
    assert!(t.starts_with(HEAD), "{t}");
    let rows: Vec<&str> = t.lines().skip(4).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 1, "{t}");
    assert!(rows[0].starts_with("    1\t"), "{t}");
    assert_eq!(rows[0].split('\t').count(), 7, "{t}");
    let verdict = t.lines().last().unwrap();
    assert!(
        [
            "act: test complete, device(s): PASSED",
            "act: test complete, device(s): FAILED"
        ]
        .contains(&verdict),
        "{t}"
    );
    // Both jobs ran, as ACT's.
    assert!(
        out.contains("act-read-") && out.contains("act-write-"),
        "{out}"
    );
}
