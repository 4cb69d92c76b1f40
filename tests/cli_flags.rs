//! Run-wide flags through the real binary: --help from the flag table, --debug
//! categories (fio's list; unknown ones refused), fio flags ferrio lacks.

mod common;
use common::{ferrio, file_in, scratch};

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
        let (rc, out, err) = run(&[
            arg,
            "--name=t",
            "--ioengine=null",
            "--size=64k",
            "--output-format=terse",
        ]);
        assert_eq!(rc, 0, "{arg}: {err}");
        // Debug output goes where fio's does: stdout, none on stderr.
        assert_eq!(
            out.contains("ferrio: clocksource"),
            arg != "--debug=io,parse",
            "{arg}: {out}"
        );
        assert!(!err.contains("clocksource"), "{arg}: {err}");
    }
}

/// `--debug=io,process,file,mem` writes fio-shaped lines (category in 8 columns, the
/// thread's id, the message): the cache drop and one io line per I/O with its
/// offset and length, a
/// start and an exit line per thread, the file and its region, the buffer size.
#[test]
fn io_process_file_and_mem_categories_write_fio_shaped_lines() {
    let d = scratch();
    let file = file_in(d.path(), "f");
    // The lines are on stdout, as fio's.
    let (rc, text, _) = run(&[
        "--debug=io,process,file,mem",
        "--name=t",
        &format!("--filename={file}"),
        "--rw=write",
        "--bs=4k",
        "--size=16k",
        "--output-format=terse",
    ]);
    assert_eq!(rc, 0, "{text}");
    let with = |cat: &str| -> Vec<&str> {
        text.lines()
            .filter(|l| l.starts_with(&format!("{cat:<8} ")))
            .collect()
    };
    let io = with("io");
    // First invalidate=1's drop of the job's region (fio's line), then the I/Os.
    assert_eq!(io.len(), 5, "{text}");
    assert!(
        io[0].ends_with(&format!("declare unneeded cache {file}: 0/16384")),
        "{text}"
    );
    for (i, l) in io[1..].iter().enumerate() {
        let want = format!(
            "complete: off=0x{:x},len=0x1000,ddir=1,file={file},",
            i * 4096
        );
        assert!(l.contains(&want), "{l}: wants {want}");
    }
    let process = with("process");
    assert_eq!(process.len(), 2, "{text}");
    assert!(
        process[0].contains("thread started: job 't', clone 0"),
        "{text}"
    );
    assert!(process[1].contains("thread exited: 4 I/Os"), "{text}");
    let files = with("file");
    // The layout (on a thread of its own), then the job's setup.
    assert_eq!(files.len(), 2, "{text}");
    assert!(
        files[0].contains(&format!("extend file {file}, size=16384")),
        "{text}"
    );
    assert!(
        files[1].contains(&format!("setup file {file}: offset=0x0, size=0x4000")),
        "{text}"
    );
    assert_eq!(with("mem").len(), 1, "{text}");
    // The thread id column is a number, the same on every line of the thread.
    let tid = |l: &str| l[9..].split_whitespace().next().unwrap().to_string();
    assert!(tid(io[0]).parse::<u32>().is_ok(), "{}", io[0]);
    assert!(
        io.iter().chain(&process).all(|l| tid(l) == tid(io[0])),
        "{text}"
    );
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
        out.contains("fio flags ferrio refuses") && out.contains("\n  --daemonize=PIDFILE"),
        "{out}"
    );
    // fio's --daemonize backgrounds a server (tests/multihost.rs); alone it is an error.
    let (rc, _, err) = run(&["--daemonize=/tmp/pid"]);
    assert_eq!(rc, 1);
    assert!(err.contains("--daemonize applies to --server"), "{err}");
}
