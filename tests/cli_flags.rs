//! Run-wide flags through the real binary: --help from the flag table, --debug
//! categories (fio's list; unknown ones refused), fio flags ferrio lacks.

mod common;
use common::ferrio;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = ferrio().args(args).output().expect("run ferrio");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const FIO_CATEGORIES: [&str; 19] = [
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
];

#[test]
fn an_unknown_debug_category_is_refused_with_the_allowed_list() {
    let (rc, out, err) = run(&[
        "--debug=io,bogus",
        "--name=t",
        "--ioengine=null",
        "--size=4k",
    ]);
    assert_eq!(rc, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("bad value 'bogus' for --debug"), "{err}");
    let allowed = err.split("allowed: ").nth(1).expect("an allowed list");
    for c in FIO_CATEGORIES.iter().chain(&["all", "help"]) {
        assert!(allowed.contains(c), "{c} missing from: {err}");
    }
}

#[test]
fn debug_help_lists_fios_categories_with_a_line_each_and_exits_0() {
    for arg in ["--debug=help", "--debug=?"] {
        let (rc, out, err) = run(&[arg]);
        assert_eq!(rc, 0, "{err}");
        for c in FIO_CATEGORIES.iter().chain(&["all"]) {
            let line = out
                .lines()
                .find(|l| l.split_whitespace().next() == Some(c))
                .unwrap_or_else(|| panic!("no line for {c}:\n{out}"));
            assert!(line.split_whitespace().count() > 1, "{line}");
        }
    }
}

#[test]
fn known_categories_run_and_time_reports_the_clock() {
    for arg in ["--debug=time", "--debug=all", "--debug=io,parse"] {
        let (rc, _, err) = run(&[
            arg,
            "--name=t",
            "--ioengine=null",
            "--size=64k",
            "--output-format=terse",
        ]);
        assert_eq!(rc, 0, "{arg}: {err}");
        assert_eq!(
            err.contains("ferrio: clocksource"),
            arg != "--debug=io,parse",
            "{arg}: {err}"
        );
    }
}

#[test]
fn help_lists_the_run_wide_flags_and_the_refused_ones() {
    let (rc, out, _) = run(&["--help"]);
    assert_eq!(rc, 0);
    for f in [
        "--output-format=FMT",
        "--debug=LIST",
        "--cmdhelp[=OPTION]",
        "--readonly",
    ] {
        assert!(out.contains(&format!("\n  {f}")), "{f}:\n{out}");
    }
    assert!(
        out.contains("fio flags ferrio refuses") && out.contains("--daemonize"),
        "{out}"
    );
    let (rc, _, err) = run(&["--daemonize=/tmp/pid"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("'--daemonize' is not supported") && err.contains("ferrio --server"),
        "{err}"
    );
}
