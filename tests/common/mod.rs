//! Helpers shared by the integration tests: run the real binary, parse its JSON.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

pub mod cases;
pub mod iologs;
pub mod loopdev;
pub mod skip;

/// This build's ferrio, run in a fresh empty working directory ([`scratch_cwd`]); a
/// test that needs another one sets it with `current_dir`, which replaces this.
pub fn ferrio() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ferrio"));
    cmd.current_dir(scratch_cwd());
    cmd
}

/// A new, empty directory under cargo's target tmp dir for one run. Without it a run
/// inherits the package root as its working directory, and whatever a job writes
/// where it names no directory (its data files, a verify state file, a log) lands in
/// the source tree, where only .ci/run's clean-tree check finds it, after the whole
/// suite. Directories of test processes that have exited are removed on first use.
pub fn scratch_cwd() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static SWEEP: Once = Once::new();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ferrio-cwd");
    SWEEP.call_once(|| remove_dead_processes_dirs(&root));
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = root.join(format!("{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a scratch working directory");
    dir
}

fn remove_dead_processes_dirs(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let pid = name.split('-').next().unwrap_or("");
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The program to run for `tool`: this build's ferrio for "ferrio", else the name
/// itself (fio, found on PATH), for tests that run both on the same input.
pub fn tool_path(tool: &str) -> &str {
    if tool == "ferrio" {
        env!("CARGO_BIN_EXE_ferrio")
    } else {
        tool
    }
}

/// `tool` (ferrio or fio, see [`tool_path`]) as a command, run in a fresh scratch
/// working directory as [`ferrio`] is.
pub fn tool_cmd(tool: &str) -> Command {
    let mut cmd = Command::new(tool_path(tool));
    cmd.current_dir(scratch_cwd());
    cmd
}

/// Run ferrio with `args`; panic with its output unless it exits 0.
pub fn run_ok(args: &[&str]) -> Output {
    let out = ferrio().args(args).output().expect("run ferrio");
    assert!(
        out.status.success(),
        "ferrio {:?} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        args,
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run ferrio with bad input: it must exit 1 with nothing on stdout; its stderr.
pub fn run_err(args: &[&str]) -> String {
    let out = ferrio().args(args).output().expect("run ferrio");
    assert_eq!(out.status.code(), Some(1), "ferrio {args:?} should exit 1");
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout for bad input, got: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Run ferrio with `--output-format=json` appended and parse stdout.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let mut a: Vec<&str> = args.to_vec();
    a.push("--output-format=json");
    let out = run_ok(&a);
    parse_json(&out.stdout)
}

/// Like [`run_json`], with `dir` as the working directory (for job files that name
/// files relative to it, so nothing lands in the source tree).
pub fn run_json_in(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = ferrio()
        .args(args)
        .arg("--output-format=json")
        .current_dir(dir)
        .output()
        .expect("run ferrio");
    assert!(
        out.status.success(),
        "ferrio {args:?} failed in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_json(&out.stdout)
}

/// [`run_json_in`] for ferrio, or the same job under fio when `tool` is "fio".
pub fn tool_json_in(tool: &str, dir: &Path, args: &[&str]) -> serde_json::Value {
    if tool != "fio" {
        return run_json_in(dir, args);
    }
    fio_json_from(Command::new("fio").current_dir(dir), args)
}

pub fn parse_json(bytes: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(bytes);
    // fio may print non-JSON lines before the document (e.g. warnings): start at the first '{'.
    let start = text
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in output:\n{text}"));
    serde_json::from_str(&text[start..]).unwrap_or_else(|e| panic!("bad JSON ({e}):\n{text}"))
}

/// A scratch directory removed at the end of the test.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("ferrio-test-")
        .tempdir_in(std::env::temp_dir())
        .expect("temp dir")
}

pub fn path_str(p: &Path) -> String {
    p.to_str().expect("utf-8 path").to_string()
}

/// `dir/name` as a String.
pub fn file_in(dir: &Path, name: &str) -> String {
    path_str(&dir.join(name))
}

/// (io_bytes, total_ios) of one direction of the first job.
/// The job named `name` in a JSON report.
pub fn job_named<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job {name} in {v}"))
}

pub fn dir_counts(v: &serde_json::Value, dir: &str) -> (u64, u64) {
    let d = &v["jobs"][0][dir];
    (
        d["io_bytes"]
            .as_u64()
            .unwrap_or_else(|| panic!("no {dir}.io_bytes in {v}")),
        d["total_ios"]
            .as_u64()
            .unwrap_or_else(|| panic!("no {dir}.total_ios")),
    )
}

/// Whether Debian's fio is installed. With FERRIO_REQUIRE_FIO=1 or CI set, a missing fio
/// fails the test instead of skipping it.
pub fn have_fio() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok && std::env::var("FERRIO_REQUIRE_FIO").as_deref() == Ok("1") {
        panic!("fio is required (FERRIO_REQUIRE_FIO=1) but not installed");
    }
    if !ok {
        skip::skip("fio is not installed (apt-get install fio)");
    }
    ok
}

pub fn fio_json(args: &[&str]) -> serde_json::Value {
    fio_json_from(&mut Command::new("fio"), args)
}

fn fio_json_from(fio: &mut Command, args: &[&str]) -> serde_json::Value {
    let out = fio
        .args(args)
        .arg("--output-format=json")
        .output()
        .expect("run fio");
    assert!(
        out.status.success(),
        "fio {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_json(&out.stdout)
}

/// The job files the tests run (tests/jobs/, in the repository: a fresh clone has them).
pub fn jobs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/jobs")
}

/// A directory of fio's own sample jobs, named by FERRIO_FIO_EXAMPLES, for the tests that
/// can also run them; None (and those extra runs skipped) when unset.
pub fn fio_examples_dir() -> Option<PathBuf> {
    let d = PathBuf::from(std::env::var_os("FERRIO_FIO_EXAMPLES")?);
    assert!(
        d.is_dir(),
        "FERRIO_FIO_EXAMPLES={} is not a directory",
        d.display()
    );
    Some(d)
}

/// Rewrite a job file for a test: files in `dir`, small sizes and runtimes.
pub fn adapt_example(text: &str, dir: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let (body, comment) = match line.find([';', '#']) {
            Some(i) if !line.trim_start().starts_with(['#', ';']) => (&line[..i], &line[i..]),
            _ => (line, ""),
        };
        let t = body.trim();
        let key = t.split('=').next().unwrap_or("").trim();
        let replaced = match key {
            "filename" => {
                let name = t.split('=').nth(1).unwrap_or("f").trim();
                let base = name.rsplit('/').next().unwrap_or(name);
                format!("filename={dir}/{base}")
            }
            "directory" => format!("directory={dir}"),
            "size" => "size=4m".to_string(),
            "runtime" | "timeout" => "runtime=1".to_string(),
            _ => body.to_string(),
        };
        out.push_str(&replaced);
        if !comment.is_empty() && replaced == body {
            out.push_str(comment);
        }
        out.push('\n');
    }
    out
}

/// Wait for `child` and take its output, killing it and failing the test if it is
/// still running after `limit`: a guard for tests whose bug is a hang, not a timing.
pub fn wait_bounded(
    mut child: std::process::Child,
    limit: std::time::Duration,
    what: &str,
) -> Output {
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Start ferrio with `args`, send it `signal` (e.g. "-INT", "-USR1") `delay` after it
/// has installed its handler for that signal, and return its output once it exits.
pub fn run_signalled(args: &[&str], delay: std::time::Duration, signal: &str) -> Output {
    let child = ferrio()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start ferrio");
    // A fixed delay from the start is not enough on a loaded machine: a signal that
    // arrives before ferrio catches it kills the process (the default action).
    wait_until_caught(child.id(), signal);
    std::thread::sleep(delay);
    let ok = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(ok.success(), "kill {signal} failed");
    child.wait_with_output().expect("wait for ferrio")
}

/// Wait (up to a minute) until process `pid` catches `signal` ("-INT", "-TERM",
/// "-USR1", ...): its bit in the SigCgt mask of /proc/PID/status. Returns at once for
/// a signal this helper does not know, or when the process has exited.
fn wait_until_caught(pid: u32, signal: &str) {
    let number = match signal.trim_start_matches('-').trim_start_matches("SIG") {
        "HUP" => 1,
        "INT" => 2,
        "QUIT" => 3,
        "USR1" => 10,
        "USR2" => 12,
        "TERM" => 15,
        _ => return,
    };
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60) {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            return;
        };
        if status.contains("State:\tZ") {
            return;
        }
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok());
        match caught {
            Some(mask) if mask & (1 << (number - 1)) != 0 => return,
            _ => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    }
}
