//! The metadata engines (filecreate, filestat, filedelete, dircreate, dirstat,
//! dirdelete): one timed file operation per file and pass, counted as fio counts it.
//! The file engines are compared with fio 3.33 run for run (operation counts, I/O
//! counts and bytes, which latencies are recorded, the files left behind); fio 3.33
//! has no directory engines (fio 3.37 added them), so those are checked against the
//! counts the job implies and the directories left behind.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// What a run must match: per job and direction, (total_ios, io_bytes, clat N, lat N,
/// slat N), plus the job's error.
fn shape(v: &Value) -> Vec<(String, Vec<[u64; 5]>, u64)> {
    v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let dirs = ["read", "write", "trim"]
                .iter()
                .map(|d| {
                    let x = &j[*d];
                    [
                        x["total_ios"].as_u64().unwrap(),
                        x["io_bytes"].as_u64().unwrap(),
                        x["clat_ns"]["N"].as_u64().unwrap(),
                        x["lat_ns"]["N"].as_u64().unwrap(),
                        x["slat_ns"]["N"].as_u64().unwrap(),
                    ]
                })
                .collect();
            (
                j["jobname"].as_str().unwrap().to_string(),
                dirs,
                j["error"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The names in `dir`, each with its kind and size ("d" for directories).
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let kind = if m.is_dir() {
                "d".to_string()
            } else if m.file_type().is_symlink() {
                "l".to_string()
            } else {
                format!("f{}", m.len())
            };
            format!("{}:{kind}", e.file_name().to_string_lossy())
        })
        .collect();
    v.sort();
    v
}

/// Run `program` with `args` in a fresh directory prepared by `prep`; (exit code,
/// JSON, listing afterwards).
fn run_in(program: &str, args: &[&str], prep: &dyn Fn(&Path)) -> (i32, Value, Vec<String>) {
    let d = scratch();
    prep(d.path());
    let dir = format!("--directory={}", path_str(d.path()));
    let out = Command::new(program)
        .args(args)
        .arg(&dir)
        .arg("--output-format=json")
        .current_dir(d.path())
        .output()
        .expect("run");
    let v = parse_json(&out.stdout);
    (out.status.code().unwrap_or(-1), v, listing(d.path()))
}

fn ferrio_bin() -> String {
    env!("CARGO_BIN_EXE_ferrio").to_string()
}

/// ferrio and fio give the same counts, errors and files for `args`.
fn same_as_fio(args: &[&str], prep: &dyn Fn(&Path)) -> (Value, Vec<String>) {
    let (fc, fv, fl) = run_in(&ferrio_bin(), args, prep);
    if !have_fio() {
        return (fv, fl);
    }
    let (gc, gv, gl) = run_in("fio", args, prep);
    assert_eq!(fc, gc, "exit code for {args:?}");
    assert_eq!(shape(&fv), shape(&gv), "counts for {args:?}");
    assert_eq!(fl, gl, "files left by {args:?}");
    (fv, fl)
}

fn nothing(_: &Path) {}

#[test]
fn filecreate_times_one_create_per_file_and_pass_like_fio() {
    let cases: &[&[&str]] = &[
        // fio's example: create_on_open, openfiles=1, one block per file.
        &[
            "--name=t0",
            "--ioengine=filecreate",
            "--nrfiles=5",
            "--filesize=4k",
            "--create_on_open=1",
            "--openfiles=1",
            "--fallocate=none",
        ],
        // Two blocks a file, writes: 2 I/Os per file, one timed create.
        &[
            "--name=w",
            "--ioengine=filecreate",
            "--nrfiles=4",
            "--filesize=8k",
            "--bs=4k",
            "--rw=write",
        ],
        // Three passes: three creates per file (fio reopens files every pass).
        &[
            "--name=l",
            "--ioengine=filecreate",
            "--nrfiles=3",
            "--filesize=8k",
            "--bs=4k",
            "--loops=3",
        ],
        // Which latency options stop the samples: disable_lat and gtod_reduce do,
        // disable_clat does not (fio's engine checks disable_lat only).
        &[
            "--name=a",
            "--ioengine=filecreate",
            "--nrfiles=2",
            "--filesize=4k",
            "--disable_lat=1",
        ],
        &[
            "--name=b",
            "--ioengine=filecreate",
            "--nrfiles=2",
            "--filesize=4k",
            "--disable_clat=1",
        ],
        &[
            "--name=c",
            "--ioengine=filecreate",
            "--nrfiles=2",
            "--filesize=4k",
            "--gtod_reduce=1",
        ],
        // size= split over the files; two clones, each with its own names.
        &[
            "--name=s",
            "--ioengine=filecreate",
            "--nrfiles=4",
            "--size=64k",
            "--bs=4k",
            "--numjobs=2",
        ],
    ];
    for args in cases {
        let (v, files) = same_as_fio(args, &nothing);
        let j = &v["jobs"][0];
        let d = if args.contains(&"--rw=write") {
            "write"
        } else {
            "read"
        };
        let untimed = args.contains(&"--disable_lat=1") || args.contains(&"--gtod_reduce=1");
        assert_eq!(
            j[d]["clat_ns"]["N"].as_u64().unwrap() == 0,
            untimed,
            "{args:?}"
        );
        assert_eq!(j[d]["lat_ns"]["N"].as_u64(), Some(0), "{args:?}: only clat");
        // Created empty (filecreate writes nothing).
        assert!(files.iter().all(|f| f.ends_with(":f0")), "{files:?}");
    }
    assert_eq!(cases[2][0], "--name=l");
    let (v, files) = same_as_fio(cases[2], &nothing);
    assert_eq!(v["jobs"][0]["read"]["clat_ns"]["N"].as_u64(), Some(9));
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(6 * 3));
    assert_eq!(files, ["l.0.0:f0", "l.0.1:f0", "l.0.2:f0"]);
}

#[test]
fn filecreate_makes_files_with_mode_0600_and_unlink_removes_them() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    run_json(&[
        "--name=m",
        "--ioengine=filecreate",
        "--nrfiles=2",
        "--filesize=4k",
        &dir,
    ]);
    let mode = std::fs::metadata(d.path().join("m.0.1"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600 & !umask());
    let e = scratch();
    let dir = format!("--directory={}", path_str(e.path()));
    let v = run_json(&[
        "--name=u",
        "--ioengine=filecreate",
        "--nrfiles=3",
        "--filesize=4k",
        "--unlink=1",
        &dir,
    ]);
    assert_eq!(v["jobs"][0]["read"]["clat_ns"]["N"].as_u64(), Some(3));
    assert!(
        listing(e.path()).is_empty(),
        "unlink=1 removes what was created"
    );
}

fn umask() -> u32 {
    // SAFETY (test): umask is read and restored at once.
    let m = unsafe { libc::umask(0) };
    unsafe { libc::umask(m) };
    m as u32
}

#[test]
fn filestat_stats_each_laid_out_file_with_each_stat_type_like_fio() {
    for st in ["stat", "lstat", "statx"] {
        let t = format!("--stat_type={st}");
        let (v, files) = same_as_fio(
            &[
                "--name=s",
                "--ioengine=filestat",
                "--nrfiles=4",
                "--filesize=8k",
                "--bs=4k",
                "--loops=2",
                &t,
            ],
            &nothing,
        );
        let r = &v["jobs"][0]["read"];
        assert_eq!(
            r["clat_ns"]["N"].as_u64(),
            Some(8),
            "{st}: 4 files x 2 passes"
        );
        assert_eq!(r["total_ios"].as_u64(), Some(16), "{st}");
        assert_eq!(r["io_bytes"].as_u64(), Some(65536), "{st}");
        assert_eq!(files.len(), 4, "{st}: laid out, kept");
    }
}

#[test]
fn filedelete_unlinks_each_file_once_and_a_second_pass_fails_like_fio() {
    let (v, files) = same_as_fio(
        &[
            "--name=d",
            "--ioengine=filedelete",
            "--nrfiles=4",
            "--filesize=8k",
            "--bs=4k",
            "--unlink=0",
        ],
        &nothing,
    );
    assert!(files.is_empty(), "{files:?}");
    assert_eq!(v["jobs"][0]["read"]["clat_ns"]["N"].as_u64(), Some(4));
    // The second pass finds nothing to delete: ENOENT, and the failed operation is no I/O.
    let (v, _) = same_as_fio(
        &[
            "--name=d",
            "--ioengine=filedelete",
            "--nrfiles=4",
            "--filesize=8k",
            "--bs=4k",
            "--loops=2",
        ],
        &nothing,
    );
    assert_eq!(v["jobs"][0]["error"].as_u64(), Some(libc::ENOENT as u64));
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(8));
}

#[test]
fn directory_engines_make_stat_and_remove_directories() {
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    let v = run_json(&[
        "--name=c",
        "--ioengine=dircreate",
        "--nrfiles=3",
        "--filesize=4k",
        "--numjobs=2",
        &dir,
    ]);
    for j in v["jobs"].as_array().unwrap() {
        assert_eq!(j["read"]["clat_ns"]["N"].as_u64(), Some(3), "{j}");
        assert_eq!(j["read"]["lat_ns"]["N"].as_u64(), Some(0));
    }
    assert_eq!(
        listing(d.path()),
        ["c.0.0:d", "c.0.1:d", "c.0.2:d", "c.1.0:d", "c.1.1:d", "c.1.2:d"]
    );
    // A second dircreate over the same names fails with EEXIST (mkdir).
    let out = ferrio()
        .args([
            "--name=c",
            "--ioengine=dircreate",
            "--nrfiles=3",
            "--filesize=4k",
            &dir,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("File exists"));

    // dirstat makes its directories before the run, then stats them each pass.
    let e = scratch();
    let dir = format!("--directory={}", path_str(e.path()));
    let v = run_json(&[
        "--name=s",
        "--ioengine=dirstat",
        "--nrfiles=5",
        "--filesize=4k",
        "--loops=2",
        "--stat_type=statx",
        &dir,
    ]);
    assert_eq!(v["jobs"][0]["read"]["clat_ns"]["N"].as_u64(), Some(10));
    assert_eq!(listing(e.path()).len(), 5);
    // unlink=1 removes them at the end.
    run_json(&[
        "--name=s",
        "--ioengine=dirstat",
        "--nrfiles=5",
        "--filesize=4k",
        "--unlink=1",
        &dir,
    ]);
    assert!(listing(e.path()).is_empty());

    // dirdelete: made at setup, each removed by one timed rmdir.
    let v = run_json(&[
        "--name=x",
        "--ioengine=dirdelete",
        "--nrfiles=4",
        "--filesize=8k",
        "--bs=4k",
        &dir,
    ]);
    let r = &v["jobs"][0]["read"];
    assert_eq!(
        (r["total_ios"].as_u64(), r["clat_ns"]["N"].as_u64()),
        (Some(8), Some(4))
    );
    assert!(listing(e.path()).is_empty());
}

#[test]
fn openfiles_below_nrfiles_is_refused_for_engines_that_do_not_open_files_during_the_run() {
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    let out = ferrio()
        .args([
            "--name=o",
            "--ioengine=cpuio",
            "--nrfiles=4",
            "--openfiles=1",
            "--size=64k",
            &dir,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("openfiles=1")
            && err.contains("ioengine=cpuio")
            && err.contains("psync")
            && err.contains("falloc"),
        "{err}"
    );
    assert!(listing(d.path()).is_empty(), "nothing touched");
}

#[test]
fn normal_output_ends_with_an_mdtest_style_rate_table() {
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    let out = run_ok(&[
        &dir,
        "--name=c",
        "--ioengine=dircreate",
        "--nrfiles=6",
        "--filesize=4k",
        "--numjobs=2",
        "--name=s",
        "--stonewall",
        "--ioengine=filestat",
        "--nrfiles=5",
        "--filesize=4k",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let table = &text[text.find("SUMMARY rate").expect("the table")..];
    let row = |op: &str| -> Vec<String> {
        let line = table
            .lines()
            .find(|l| l.trim_start().starts_with(op))
            .unwrap_or_else(|| panic!("{op}: {table}"));
        line.split(':')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("Directory creation")[5], "12", "two threads x 6 mkdirs");
    assert_eq!(row("File stat")[5], "5");
    let rates: Vec<f64> = row("Directory creation")[..5]
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(
        rates[0] >= rates[2] && rates[2] >= rates[1] && rates[1] > 0.0,
        "max >= mean >= min: {rates:?}"
    );
    assert!(
        !table.contains("File creation"),
        "kinds nobody did are left out"
    );
    // Other engines print no table; JSON stays fio's.
    let out = run_ok(&["--name=n", "--ioengine=null", "--size=1m"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("SUMMARY rate"));
    let out = run_ok(&[
        &dir,
        "--name=c2",
        "--ioengine=dircreate",
        "--nrfiles=2",
        "--output-format=json",
    ]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("SUMMARY"));
}

#[test]
fn filestat_and_filedelete_open_no_files_so_nrfiles_may_exceed_the_descriptor_limit() {
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    for engine in ["filestat", "filedelete"] {
        let cmd = format!(
            "ulimit -n 64 && exec {} {dir} --name=s --ioengine={engine} --nrfiles=300 --filesize=4k --output-format=json",
            ferrio_bin()
        );
        let out = Command::new("sh").args(["-c", &cmd]).output().unwrap();
        assert!(
            out.status.success(),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = parse_json(&out.stdout);
        assert_eq!(
            v["jobs"][0]["read"]["clat_ns"]["N"].as_u64(),
            Some(300),
            "{engine}"
        );
    }
    assert!(listing(d.path()).is_empty(), "filedelete removed all 300");
}
