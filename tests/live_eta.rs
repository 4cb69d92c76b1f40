//! The status line: in fio's format on a terminal (run under `script` for a pty),
//! absent when stdout is not a terminal, and ended cleanly before the report.

mod common;
use common::*;

fn have_script() -> bool {
    std::process::Command::new("script")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Status lines in `text`: the pieces between carriage returns / newlines that start with "Jobs:".
fn status_lines(text: &str) -> Vec<&str> {
    text.split(['\r', '\n'])
        .map(str::trim_end)
        .filter(|l| l.starts_with("Jobs: "))
        .collect()
}

fn check_line(l: &str) {
    // Jobs: 1 (f=1): [r(1)][15.5%][r=12.6GiB/s][r=3292k IOPS][eta 00m:01s]
    assert!(l.contains(" (f="), "{l}");
    assert!(l.contains("): ["), "{l}");
    assert!(l.contains("%]["), "{l}");
    assert!(l.ends_with("s]"), "{l}");
    assert!(l.contains("[eta "), "{l}");
}

#[test]
fn status_line_on_a_terminal_updates_and_ends_cleanly() {
    if !have_script() {
        common::skip::skip("no script(1) (util-linux)");
        return;
    }
    let cmd = format!(
        "{} --name=t --ioengine=null --rw=randread --size=1G --time_based --runtime=2500ms --eta-interval=250ms",
        env!("CARGO_BIN_EXE_ferrio")
    );
    let out = std::process::Command::new("script")
        .args(["-qfc", &cmd, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines = status_lines(&text);
    assert!(lines.len() >= 4, "{text}");
    for l in &lines {
        check_line(l);
        assert!(l.contains("IOPS]"), "{l}");
    }
    assert!(lines.iter().any(|l| l.contains("[r(1)]")), "{text}");
    let last = lines.last().unwrap();
    assert!(last.contains("[_(1)][100.0%]"), "{last}");
    assert!(last.ends_with("[eta 00m:00s]"), "{last}");
    // In place: carriage returns between updates; the last update ends its line,
    // and the report starts on a fresh line.
    assert!(text.matches('\r').count() >= lines.len());
    let end = text.rfind("[eta 00m:00s]").unwrap();
    let after = &text[end + "[eta 00m:00s]".len()..];
    assert!(
        after.starts_with("\r\n") || after.starts_with('\n'),
        "{after:?}"
    );
    assert!(after.contains("t: (groupid=0"), "{after}");
}

#[test]
fn no_status_line_when_stdout_is_not_a_terminal() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=null",
        "--size=1G",
        "--time_based",
        "--runtime=1200ms",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Jobs:"), "{text}");
    assert!(!text.contains('\r'));
}

#[test]
fn eta_always_with_newlines() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=null",
        "--rw=write",
        "--size=1G",
        "--time_based",
        "--runtime=1500ms",
        "--eta=always",
        "--eta-interval=250ms",
        "--eta-newline=250ms",
        "--output-format=terse",
    ]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("Jobs: ")).collect();
    assert!(lines.len() >= 3, "{text}");
    for l in &lines {
        check_line(l);
        assert!(l.contains("[w="), "{l}");
    }
    // The terse report still follows, on its own line.
    assert!(text.lines().any(|l| l.starts_with("3;ferrio-")), "{text}");
}

#[test]
fn eta_never_and_bad_flags() {
    let out = run_ok(&[
        "--name=t",
        "--ioengine=null",
        "--size=64M",
        "--eta=never",
        "--eta-newline=1",
    ]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Jobs:"));
    for bad in [
        "--eta-interval=100ms",
        "--status-interval=0",
        "--status-interval=abc",
        "--interval-percentiles=101",
    ] {
        let out = ferrio()
            .args(["--name=t", "--ioengine=null", "--size=1M", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(bad.split('=').next().unwrap()), "{bad}: {err}");
    }
}
