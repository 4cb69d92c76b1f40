//! `cgroup`, `cgroup_weight`, `cgroup_nodelete` on this machine's cgroup v1 blkio
//! controller (docs/dropin.md, "Control groups"): each job's thread is in its own
//! cgroup (a program the exec engine starts from it inherits it and shows it), the
//! cgroups made are removed after the run, also after SIGINT and errors, unless
//! cgroup_nodelete=1. Needs root and a v1 blkio mount (CI has both).

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const BLKIO: &str = "/sys/fs/cgroup/blkio";

/// The v1 blkio mount fio and ferrio use, if it is there (else a skip).
fn blkio() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let first = mounts.lines().find(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 3
            && (f[2] == "cgroup2" || (f[2] == "cgroup" && f[3].split(',').any(|o| o == "blkio")))
    });
    match first {
        Some(l) if l.split_whitespace().nth(1) == Some(BLKIO) && l.contains(" cgroup ") => {
            Some(PathBuf::from(BLKIO))
        }
        _ => {
            skip::skip("no cgroup v1 blkio mount at /sys/fs/cgroup/blkio (first in /proc/mounts)");
            None
        }
    }
}

/// A cgroup name no other test or run uses.
fn unique(tag: &str) -> String {
    format!("ferrio-test-{}-{tag}", std::process::id())
}

/// A script that writes the blkio cgroup it runs in to `NAME.cg` and exits.
fn reporter(dir: &Path) -> String {
    let script = dir.join("cg.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ngrep blkio /proc/self/cgroup > \"$1.cg\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    format!("--program={}", path_str(&script))
}

fn exec_job<'a>(name: &'a str, program: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        name,
        "--ioengine=exec",
        program,
        "--arguments=%n",
        "--runtime=1",
        "--grace_time=0",
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn each_job_thread_runs_in_its_own_cgroup_which_is_removed_after() {
    let Some(mount) = blkio() else {
        return;
    };
    let d = scratch();
    let prog = reporter(d.path());
    let (a, b) = (unique("a"), unique("b"));
    let (ca, cb) = (format!("--cgroup={a}"), format!("--cgroup={b}"));
    let mut args = exec_job("--name=ja", &prog, &[&ca]);
    args.extend(exec_job("--name=jb", &prog, &[&cb, "--cgroup_nodelete=1"]));
    let v = run_json_in(d.path(), &args);
    for j in 0..2 {
        assert_eq!(v["jobs"][j]["error"].as_u64(), Some(0), "{v}");
    }
    // Two jobs of one process, each in its own blkio cgroup (v1 places threads).
    let seen = |job: &str| std::fs::read_to_string(d.path().join(format!("{job}.cg"))).unwrap();
    assert!(
        seen("ja").trim().ends_with(&format!("blkio:/{a}")),
        "{}",
        seen("ja")
    );
    assert!(
        seen("jb").trim().ends_with(&format!("blkio:/{b}")),
        "{}",
        seen("jb")
    );
    // ja's cgroup was made by the run and removed; jb's is kept (cgroup_nodelete).
    assert!(!mount.join(&a).exists());
    assert!(mount.join(&b).is_dir());
    std::fs::remove_dir(mount.join(&b)).unwrap();
}

#[test]
fn a_cgroup_that_existed_stays_and_weights_go_to_the_blkio_weight_file() {
    let Some(mount) = blkio() else {
        return;
    };
    let d = scratch();
    let prog = reporter(d.path());
    let name = unique("w");
    let dir = mount.join(&name);
    std::fs::create_dir(&dir).unwrap();
    let c = format!("--cgroup={name}");
    let o = ferrio()
        .current_dir(d.path())
        .args(exec_job("--name=jw", &prog, &[&c, "--cgroup_weight=300"]))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let weight = ["blkio.weight", "blkio.bfq.weight"]
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.exists());
    match &weight {
        // The kernel gives this cgroup a weight file: the job ran in it with the weight.
        Some(f) => {
            assert!(o.status.success(), "{err}");
            assert!(std::fs::read_to_string(f).unwrap().contains("300"));
        }
        // This VM's kernel (no BFQ weights on v1): refused by name, nothing ran.
        None => {
            assert!(!o.status.success());
            assert!(
                err.contains("neither blkio.weight nor blkio.bfq.weight"),
                "{err}"
            );
            assert!(!d.path().join("jw.cg").exists(), "the job did not run");
        }
    }
    // It existed before the run: still there either way.
    assert!(dir.is_dir());
    std::fs::remove_dir(&dir).unwrap();
    // A weight alone puts the job in a cgroup named after it, made and removed.
    let o = ferrio()
        .current_dir(d.path())
        .args(exec_job(
            &format!("--name={}", unique("byname")),
            &prog,
            &["--cgroup_weight=100"],
        ))
        .output()
        .unwrap();
    assert_eq!(
        o.status.success(),
        weight.is_some(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!mount.join(unique("byname")).exists());
}

#[test]
fn sigint_and_errors_leave_no_cgroup_behind() {
    let Some(mount) = blkio() else {
        return;
    };
    let name = unique("int");
    let dir = mount.join(&name);
    let c = format!("--cgroup={name}");
    let child = ferrio()
        .args([
            "--name=long",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=120",
            &c,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the job's thread is in its cgroup (bounded), then interrupt.
    let start = std::time::Instant::now();
    while std::fs::read_to_string(dir.join("tasks"))
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        assert!(
            start.elapsed().as_secs() < 60,
            "the job never entered {}",
            dir.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(128),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!dir.exists(), "left behind after SIGINT");
    // A nested cgroup whose parent is missing: the job fails, nothing is made.
    let nested = format!("--cgroup={}/child", unique("missing"));
    let o = ferrio()
        .args(["--name=n", "--ioengine=null", "--size=4k", &nested])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("cgroup: cannot make"),
        "{err}"
    );
    assert!(!mount.join(unique("missing")).exists());
}
