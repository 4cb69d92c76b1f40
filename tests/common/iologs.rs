//! Comparing write_iologs of fio and ferrio (tests/differential_sequence.rs,
//! tests/differential_generator_reach.rs): run a job under both, normalize the logs
//! (timestamps and directories taken off), and report the first line that differs.

use super::{ferrio, scratch};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

pub fn fio_available() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    let required =
        std::env::var_os("FERRIO_REQUIRE_FIO").is_some() || std::env::var_os("CI").is_some();
    if !ok && required {
        panic!("fio is required (FERRIO_REQUIRE_FIO or CI is set) but not installed");
    }
    if !ok {
        eprintln!("SKIP: fio not installed (apt-get install fio): I/O sequences not compared");
    }
    ok
}

/// A log's lines without their timestamps, the directory prefix taken off file names.
pub fn normalized(log: &Path, dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let prefix = format!("{}/", dir.display());
    text.lines()
        .map(|l| {
            let rest = l.split_once(' ').map(|(_, r)| r).unwrap_or(l);
            if dir.as_os_str().is_empty() {
                rest.to_string()
            } else {
                rest.replace(&prefix, "")
            }
        })
        .collect()
}

/// Lines per file, each in its order (clones write one log concurrently, so only
/// each file's own order is defined); the version lines are counted under "".
pub fn per_file(lines: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in lines {
        let key = if l.starts_with("version ") {
            String::new()
        } else {
            l.split(' ').next().unwrap_or("").to_string()
        };
        m.entry(key).or_default().push(l.clone());
    }
    m
}

/// Run a job under both with write_iolog; return (fio's lines, ferrio's lines). Each
/// runs in its own directory with the same relative file names (fio seeds zipf,
/// pareto and normal from the file name).
pub fn both(opts: &[&str]) -> (Vec<String>, Vec<String>) {
    both_with(&["--randrepeat=0", "--randseed=1234"], opts, &[])
}

pub fn both_with(base: &[&str], opts: &[&str], ferrio_only: &[&str]) -> (Vec<String>, Vec<String>) {
    let d = scratch();
    let mut out = Vec::new();
    for (tool, sub) in [("fio", "f"), ("ferrio", "r")] {
        let cwd = d.path().join(sub);
        std::fs::create_dir_all(cwd.join("data")).unwrap();
        let log = cwd.join("io.log");
        let mut args: Vec<String> = vec![
            "--name=j".into(),
            "--ioengine=psync".into(),
            "--size=1M".into(),
            "--directory=data".into(),
            format!("--write_iolog={}", log.display()),
        ];
        args.extend(base.iter().map(|s| s.to_string()));
        args.extend(opts.iter().map(|s| s.to_string()));
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            let mut c = ferrio();
            c.args(ferrio_only);
            c
        };
        let o = cmd.current_dir(&cwd).args(&args).output().expect("run");
        assert!(
            o.status.success(),
            "{tool} {args:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.push(normalized(&log, Path::new("")));
    }
    let r = out.pop().unwrap();
    (out.pop().unwrap(), r)
}

pub fn assert_same(opts: &[&str]) {
    assert_pair(opts, both(opts));
}

pub fn assert_pair(opts: &[&str], (f, r): (Vec<String>, Vec<String>)) {
    assert!(f.len() > 4, "{opts:?}: fio logged only {f:?}");
    if opts.iter().any(|o| o.starts_with("--numjobs")) {
        assert_eq!(
            per_file(&f),
            per_file(&r),
            "{opts:?}: per-file sequences differ"
        );
        return;
    }
    assert_same_lines(opts, &f, &r);
}

/// Panic at the first line where fio's log `f` and ferrio's `r` differ.
pub fn assert_same_lines(opts: &[&str], f: &[String], r: &[String]) {
    if let Some(i) = (0..f.len().max(r.len())).find(|&i| f.get(i) != r.get(i)) {
        panic!(
            "{opts:?}: first difference at line {}: fio {:?}, ferrio {:?} ({} vs {} lines)",
            i + 1,
            f.get(i),
            r.get(i),
            f.len(),
            r.len()
        );
    }
}
