//! directory=a:b: the clones of a job (numjobs) put their generated file names in the
//! listed directories round robin, an explicit filename= goes in the first, and
//! separate jobs each start from the first — the files ferrio creates are the ones
//! fio 3.33 creates for the same command line; the missing directories of a file name
//! are made as fio makes them.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// The files below `root`, relative to it, sorted.
fn files_below(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["a", "b", "c"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            for e in entries {
                out.push(format!(
                    "{dir}/{}",
                    e.unwrap().file_name().to_string_lossy()
                ));
            }
        }
    }
    out.sort();
    out
}

/// Run `args` with `tool` in a fresh directory holding a/, b/ and c/; the files made.
fn made_by(tool: &str, args: &[&str]) -> Vec<String> {
    let d = scratch();
    for dir in ["a", "b", "c"] {
        std::fs::create_dir(d.path().join(dir)).unwrap();
    }
    let out = Command::new(tool_path(tool))
        .current_dir(d.path())
        .args([
            "--rw=write",
            "--bs=4k",
            "--size=16k",
            "--output-format=terse",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{tool} {args:?}: {out:?}");
    files_below(d.path())
}

#[test]
fn clones_spread_over_the_directories_as_fio() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--name=x", "--directory=a:b", "--nrfiles=2", "--numjobs=3"],
            &[
                "a/x.0.0", "a/x.0.1", "a/x.2.0", "a/x.2.1", "b/x.1.0", "b/x.1.1",
            ],
        ),
        (
            &["--name=x", "--directory=a:b:c", "--numjobs=4"],
            &["a/x.0.0", "a/x.3.0", "b/x.1.0", "c/x.2.0"],
        ),
        (
            &["--name=x", "--directory=a:b", "--filename=f", "--numjobs=3"],
            &["a/f"],
        ),
        (
            &["--directory=a:b", "--name=x", "--name=y"],
            &["a/x.0.0", "a/y.0.0"],
        ),
    ];
    let fio = have_fio();
    for (args, want) in cases {
        let ours = made_by("ferrio", args);
        assert_eq!(ours, *want, "ferrio {args:?}");
        if fio {
            assert_eq!(made_by("fio", args), ours, "fio 3.33 {args:?}");
        }
    }
}

/// Every path below `root`, relative to it, sorted (directories with a '/' after).
fn tree(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            if p.is_dir() {
                out.push(format!("{rel}/"));
                todo.push(p);
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// fio makes the missing directories of a job's first file name with a '/' (mode
/// 0700; create_work_dirs), not those of later names, and refuses a directory= that
/// does not exist. ferrio failed the layout of any file in a missing directory.
#[test]
fn missing_directories_of_a_file_name_are_made_as_fio() {
    use std::os::unix::fs::PermissionsExt;
    let cases: &[(&[&str], bool, &[&str])] = &[
        (
            &["--filename=new/sub/f", "--rw=write"],
            true,
            &["new/", "new/sub/", "new/sub/f"],
        ),
        (&["--filename=new/f", "--rw=read"], true, &["new/", "new/f"]),
        (&["--filename=p/f:q/g", "--rw=write"], false, &["p/", "p/f"]),
        (&["--directory=missing"], false, &[]),
    ];
    let tools: &[&str] = if have_fio() {
        &["ferrio", "fio"]
    } else {
        &["ferrio"]
    };
    for (args, ok, want) in cases {
        for tool in tools {
            let d = scratch();
            let out = Command::new(tool_path(tool))
                .current_dir(d.path())
                .args(["--name=x", "--bs=4k", "--size=16k"])
                .args(*args)
                .output()
                .unwrap();
            assert_eq!(out.status.success(), *ok, "{tool} {args:?}: {out:?}");
            assert_eq!(tree(d.path()), *want, "{tool} {args:?}");
            if let Some(dir) = want.first() {
                let mode = std::fs::metadata(d.path().join(dir))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o777, 0o700, "{tool} {args:?}");
            }
        }
    }
}
