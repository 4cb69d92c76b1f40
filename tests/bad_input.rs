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

/// A job on a file in a scratch directory that must be refused before any I/O, by a
/// real run and by --parse-only alike: exit 1, stderr naming every word in `names`, and
/// no file created. Returns the message.
fn refused_before_io(job: &[&str], names: &[&str]) -> String {
    let d = scratch();
    let f = file_in(d.path(), "never");
    let mut args: Vec<String> = job.iter().map(|s| s.to_string()).collect();
    args.push(format!("--filename={f}"));
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let err = fails(&a);
    for n in names {
        assert!(err.contains(n), "message should name '{n}': {err}");
    }
    let mut p = a.clone();
    p.push("--parse-only");
    let perr = fails(&p);
    assert_eq!(perr, err, "--parse-only must refuse it the same way");
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert!(left.is_empty(), "files were created: {left:?}");
    err
}

#[test]
fn libaio_depth_beyond_aio_max_nr_is_refused_up_front() {
    let max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let depth = format!("--iodepth={}", max + 1);
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1m",
            "--ioengine=libaio",
            &depth,
        ],
        &["job 't'", &depth[2..], "aio-max-nr"],
    );
}

#[test]
fn io_uring_depth_beyond_the_ring_limit_is_refused() {
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1m",
            "--ioengine=io_uring",
            "--iodepth=65536",
        ],
        &["job 't'", "iodepth=65536", "32768"],
    );
}

#[test]
fn buffer_memory_beyond_what_the_machine_has_is_refused() {
    // 4M units × 1 MiB × 4 jobs = 16 TiB of buffers: more than any test machine has.
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1g",
            "--bs=1m",
            "--ioengine=posixaio",
            "--iodepth=4096k",
            "--numjobs=4",
        ],
        &[
            "job 't'",
            "iodepth=4194304",
            "bs=1MiB",
            "numjobs=4",
            "16TiB",
            "memory available",
        ],
    );
}
