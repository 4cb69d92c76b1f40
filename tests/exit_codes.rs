//! The exit status after a run, as fio's: the number of threads that failed (each
//! clone of `numjobs` counts, reported or not), 0 when none did; ferrio stops at 127
//! where fio's wraps modulo 256.

mod common;

use common::{ferrio, have_fio, scratch};
use std::process::Command;

/// `numjobs` clones of a job whose file sits under a regular file (ENOTDIR for each:
/// a job error, as in fio), beside a job that runs.
fn args(dir: &std::path::Path, numjobs: u32, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "--output-format=terse".to_string(),
        "--name=bad".into(),
        format!("--filename={}", dir.join("notadir/f").display()),
        "--size=64k".into(),
        format!("--numjobs={numjobs}"),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend([
        "--name=ok".into(),
        "--ioengine=null".into(),
        "--size=1m".into(),
    ]);
    a
}

fn code(mut c: Command, args: &[String]) -> Option<i32> {
    let out = c.args(args).output().unwrap();
    out.status.code()
}

#[test]
fn the_exit_code_counts_the_failed_threads_like_fio() {
    let d = scratch();
    std::fs::write(d.path().join("notadir"), "a file").unwrap();
    for (numjobs, extra, want) in [
        (1, &[][..], 1),
        (3, &[][..], 3),
        (3, &["--group_reporting"][..], 3),
        // stats=0: not reported, still counted.
        (2, &["--stats=0"][..], 2),
    ] {
        let a = args(d.path(), numjobs, extra);
        assert_eq!(code(ferrio(), &a), Some(want), "ferrio {a:?}");
        if have_fio() {
            assert_eq!(code(Command::new("fio"), &a), Some(want), "fio {a:?}");
        }
    }
    // No failure: 0.
    let ok = ["--name=ok", "--ioengine=null", "--size=1m", "--numjobs=2"];
    assert_eq!(ferrio().args(ok).output().unwrap().status.code(), Some(0));
}

#[test]
fn many_failed_threads_never_read_as_success_or_a_signal() {
    // fio 3.33 exits 300 % 256 = 44 here (and 0 for 256 threads); ferrio stops at 127.
    let d = scratch();
    std::fs::write(d.path().join("notadir"), "a file").unwrap();
    let a = args(d.path(), 300, &["--group_reporting"]);
    assert_eq!(code(ferrio(), &a), Some(127));
}
