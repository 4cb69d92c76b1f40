//! Bad input: one clear line on stderr naming the problem, exit code 1, no file touched.

mod common;
use common::*;

fn fails(args: &[&str]) -> String {
    let out = ferrio().args(args).output().expect("run ferrio");
    assert_eq!(out.status.code(), Some(1), "ferrio {args:?} should exit 1");
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout for bad input, got: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.starts_with("ferrio: "), "stderr: {err}");
    err
}

#[test]
fn unknown_option_is_named_and_nothing_is_created() {
    let d = scratch();
    let f = file_in(d.path(), "never");
    let err = fails(&[
        "--name=t",
        "--rw=read",
        "--size=1M",
        "--blocksizee=4k",
        &format!("--filename={f}"),
    ]);
    assert!(err.contains("blocksizee"), "{err}");
    assert!(
        !std::path::Path::new(&f).exists(),
        "a file was created for bad input"
    );
}

#[test]
fn bad_value_names_option_and_allowed_values() {
    let d = scratch();
    let f = file_in(d.path(), "never");
    let err = fails(&[
        "--name=t",
        "--rw=rando",
        "--size=1M",
        &format!("--filename={f}"),
    ]);
    assert!(
        err.contains("rw") && err.contains("rando") && err.contains("randread"),
        "{err}"
    );
    assert!(!std::path::Path::new(&f).exists());
}

#[test]
fn malformed_size_is_rejected() {
    let err = fails(&["--name=t", "--ioengine=null", "--size=12q"]);
    assert!(err.contains("size") && err.contains("12q"), "{err}");
}

#[test]
fn job_file_errors_name_file_and_line() {
    let d = scratch();
    let job = d.path().join("bad.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\n\n[t]\nsize=1M\nrw=sideways\n",
    )
    .unwrap();
    let err = fails(&[job.to_str().unwrap()]);
    assert!(err.contains("bad.fio:6"), "{err}");
    assert!(err.contains("sideways"), "{err}");
}

#[test]
fn missing_job_file_and_missing_include() {
    let d = scratch();
    let err = fails(&[&file_in(d.path(), "nope.fio")]);
    assert!(err.contains("nope.fio"), "{err}");
    let job = d.path().join("inc.fio");
    std::fs::write(
        &job,
        "[global]\ninclude missing.fio\n[t]\nioengine=null\nsize=1M\n",
    )
    .unwrap();
    let err = fails(&[job.to_str().unwrap()]);
    assert!(err.contains("missing.fio"), "{err}");
}

#[test]
fn missing_size_for_a_new_file() {
    let d = scratch();
    let f = file_in(d.path(), "new");
    let err = fails(&["--name=t", "--rw=read", &format!("--filename={f}")]);
    assert!(err.contains("size"), "{err}");
    assert!(!std::path::Path::new(&f).exists());
}

#[test]
fn unknown_engine_lists_available_ones() {
    let err = fails(&["--name=t", "--ioengine=warpdrive", "--size=1M"]);
    assert!(err.contains("warpdrive") && err.contains("psync"), "{err}");
}
