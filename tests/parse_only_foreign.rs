//! `--parse-only` accepts what fio accepts (issue 14): job files for fio's engines
//! that ferrio cannot run (tests/jobs_foreign, one per engine family) parse with their
//! engines' own options checked, and a run refuses them with the engine's reason
//! before it creates any file; target files that do not exist are not sized at
//! --parse-only; NUMA nodes are checked by a run; GPU buffers and data placement
//! parse and are refused by a run.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

fn foreign_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/jobs_foreign")
}

fn foreign_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(foreign_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".fio"))
        .collect();
    names.sort();
    names
}

/// ferrio with `args` in the scratch directory `dir`.
fn ferrio_in(dir: &Path, args: &[&str]) -> Output {
    ferrio().args(args).current_dir(dir).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn left_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

#[test]
fn every_foreign_job_parses_and_a_run_refuses_it_touching_nothing() {
    let names = foreign_files();
    assert!(names.len() >= 15, "{names:?}");
    for name in names {
        let job = foreign_dir().join(&name);
        let job = job.to_str().unwrap();
        let d = scratch();
        let o = ferrio_in(d.path(), &["--parse-only", job]);
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
        assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{name}");
        let o = ferrio_in(d.path(), &[job]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("is not supported by ferrio") && err.contains(".fio:"),
            "{name}: {err}"
        );
        assert!(o.stdout.is_empty(), "{name}: no report for a refused run");
        assert!(
            left_in(d.path()).is_empty(),
            "{name}: files created: {:?}",
            left_in(d.path())
        );
    }
}

#[test]
fn fio_33_accepts_the_foreign_jobs_of_engines_it_has() {
    // Debian's fio 3.33 has these engines (and, at --parse-only, does not load the
    // engines of other.fio, which set no options); the other files need engines or
    // options newer than 3.33.
    if !have_fio() {
        return;
    }
    for name in [
        "ceph.fio",
        "gfapi.fio",
        "mtd.fio",
        "other.fio",
        "rdma.fio",
        "sg.fio",
    ] {
        let d = scratch();
        let o = std::process::Command::new("fio")
            .arg("--parse-only")
            .arg(foreign_dir().join(name))
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "fio {name}: {}", text(&o.stderr));
    }
}

#[test]
fn a_bad_value_of_a_foreign_option_is_refused_naming_it() {
    let d = scratch();
    for (args, want) in [
        (
            &["--ioengine=http", "--http_mode=ftp"][..],
            "bad value 'ftp' for option 'http_mode'",
        ),
        (
            &["--ioengine=io_uring_cmd", "--write_mode=write/70:zeroes/40"][..],
            "for option 'write_mode'",
        ),
        (
            &["--ioengine=rdma", "--verb=jump"][..],
            "allowed: write, read, send, recv",
        ),
        (
            &["--ioengine=libaio", "--sg_write_mode=write_same"][..],
            "option 'sg_write_mode' (at command line) is an option of the sg engine",
        ),
    ] {
        let o = ferrio_in(
            d.path(),
            &[&["--parse-only", "--name=j", "--size=1m"][..], args].concat(),
        );
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn external_engines_parse_when_their_file_exists_and_a_run_refuses_them() {
    let d = scratch();
    let so = d.path().join("engine.so");
    std::fs::write(&so, b"not really an engine").unwrap();
    // fio loads `external:PATH`, and any engine given as a path (ioengine=/usr/lib/
    // spdk_nvme, as SPDK's fio plugin is named), as a shared object.
    for engine in [
        format!("--ioengine=external:{}", so.display()),
        format!("--ioengine={}", so.display()),
    ] {
        let args = ["--name=j", "--size=1m", "--filename=target", &engine];
        let o = ferrio_in(d.path(), &[&["--parse-only"][..], &args].concat());
        assert!(o.status.success(), "{engine}: {}", text(&o.stderr));
        let o = ferrio_in(d.path(), &args);
        let err = text(&o.stderr);
        assert!(
            o.status.code() == Some(1) && err.contains("fio's own internals"),
            "{engine}: {err}"
        );
        assert!(!d.path().join("target").exists());
    }
    // As in fio, a file that is not there is refused at once.
    for missing in ["external:missing.so", "./missing.so"] {
        let o = ferrio_in(
            d.path(),
            &["--parse-only", "--name=j", &format!("--ioengine={missing}")],
        );
        let err = text(&o.stderr);
        assert!(
            o.status.code() == Some(1)
                && err.contains("for option 'ioengine'")
                && err.contains("missing.so")
                && err.contains("not a regular file"),
            "{err}"
        );
    }
}

#[test]
fn gpu_buffers_and_data_placement_parse_with_any_engine_and_a_run_refuses_them() {
    let d = scratch();
    for (opt, why) in [
        (
            "--mem=cudamalloc",
            "mem=cudamalloc is not supported by ferrio",
        ),
        ("--fdp=1", "NVMe data placement"),
        ("--dataplacement=streams", "NVMe data placement"),
    ] {
        let args = [
            "--name=j",
            "--ioengine=psync",
            "--size=64k",
            "--filename=target",
            opt,
        ];
        let o = ferrio_in(d.path(), &[&["--parse-only"][..], &args].concat());
        assert!(o.status.success(), "{opt}: {}", text(&o.stderr));
        let o = ferrio_in(d.path(), &args);
        let err = text(&o.stderr);
        assert!(
            o.status.code() == Some(1) && err.contains(why),
            "{opt}: {err}"
        );
        assert!(left_in(d.path()).is_empty(), "{opt}: a file was created");
    }
}

#[test]
fn parse_only_does_not_size_target_files_that_do_not_exist() {
    // fio's examples name /dev/sdX without size=; fio's --parse-only never looks at
    // the targets. A run still refuses, naming the file, and creates nothing.
    let d = scratch();
    let job = d.path().join("disk.fio");
    std::fs::write(
        &job,
        "[disk]\nfilename=ferrio-no-such-disk\nrw=randread\nbs=4k\n\n[zoned]\nfilename=ferrio-no-such-zbd\nzonemode=zbd\nrw=randwrite\nbs=4k\n",
    )
    .unwrap();
    let job = job.to_str().unwrap();
    let o = ferrio_in(d.path(), &["--parse-only", job]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = ferrio_in(d.path(), &[job]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("size= is not set and 'ferrio-no-such-disk' does not exist"),
        "{err}"
    );
    assert_eq!(left_in(d.path()), [d.path().join("disk.fio")]);
}
