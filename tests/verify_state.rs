//! verify_state_save / verify_state_load: a verifying write job leaves fio's state
//! file (`local-<job>-<index>-verify.state`, fio 3.33's layout) in the working
//! directory, and a later verify_only pass that loads it checks only the blocks
//! written before the job ended. A job stopped early by number_ios stands in for an
//! interrupted one (the same state, without a timing). Checked both ways with fio:
//! each tool's state file drives the other's verify pass, and the two tools' files
//! are the same bytes (fio's random state aside, which neither reads back).

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

const STATE: &str = "local-w-0-verify.state";

fn args(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["--name=w", "--filename=d.dat", "--size=1m", "--bs=4k"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a.push("--output-format=json".into());
    a
}

fn ferrio_in(dir: &Path, extra: &[&str]) -> Output {
    ferrio()
        .args(args(extra))
        .current_dir(dir)
        .output()
        .unwrap()
}

fn fio_in(dir: &Path, extra: &[&str]) -> Output {
    Command::new("fio")
        .args(args(extra))
        .current_dir(dir)
        .output()
        .unwrap()
}

/// (error, read bytes) of a run that printed its JSON.
fn verdict(o: &Output) -> (i64, u64) {
    let v = parse_json(&o.stdout);
    let j = &v["jobs"][0];
    (
        j["error"].as_i64().unwrap(),
        j["read"]["io_bytes"].as_u64().unwrap(),
    )
}

fn ok(o: &Output) -> &Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn a_stopped_write_job_is_verified_up_to_where_it_stopped() {
    let d = scratch();
    let w = ["--rw=write", "--verify=crc32c", "--number_ios=100"];
    ok(&ferrio_in(d.path(), &w));
    let state = std::fs::read(d.path().join(STATE)).expect("the state file is left");
    assert_eq!(
        state.len(),
        24 + 152 + 16,
        "one file, iodepth 1: one completion"
    );
    let only = ["--rw=write", "--verify=crc32c", "--verify_only=1"];
    // Without the state every block of the workload is checked: the unwritten fail.
    let o = ferrio_in(d.path(), &only);
    assert!(!o.status.success(), "unwritten blocks must fail");
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad magic header"));
    // That run (a write job) saved its own state, the whole workload: as fio.
    std::fs::write(d.path().join(STATE), &state).unwrap();
    let load = [&only[..], &["--verify_state_load=1"]].concat();
    let o = ferrio_in(d.path(), &load);
    assert_eq!(
        verdict(ok(&o)),
        (0, 100 * 4096),
        "exactly the 100 blocks written"
    );
}

#[test]
fn a_missing_or_damaged_state_file_stops_the_job_before_any_io() {
    let d = scratch();
    let load = [
        "--rw=write",
        "--verify=crc32c",
        "--verify_only=1",
        "--verify_state_load=1",
    ];
    let o = ferrio_in(d.path(), &load);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!o.status.success());
    assert!(
        format!("{err}{out}").contains(&format!("state file {STATE}")),
        "{err}{out}"
    );
    assert!(!d.path().join(STATE).exists(), "no state is made up");
    let j = parse_json(&o.stdout);
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], 0);
    // A flipped byte: the checksum says so.
    ok(&ferrio_in(
        d.path(),
        &["--rw=write", "--verify=md5", "--number_ios=10"],
    ));
    let mut s = std::fs::read(d.path().join(STATE)).unwrap();
    s[24 + 16] ^= 1;
    std::fs::write(d.path().join(STATE), &s).unwrap();
    let o = ferrio_in(d.path(), &load);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("corrupt")
            || String::from_utf8_lossy(&o.stderr).contains("corrupt")
    );
    // verify_state_save=0: no file.
    let e = scratch();
    ok(&ferrio_in(
        e.path(),
        &["--rw=write", "--verify=md5", "--verify_state_save=0"],
    ));
    assert!(!e.path().join(STATE).exists());
}

/// fio's random state (bytes 56..112 of the file) aside.
fn without_rand(b: &[u8]) -> Vec<u8> {
    let mut b = b.to_vec();
    b[16..24].fill(0); // the crc covers it
    b[24 + 32..24 + 88].fill(0);
    b
}

#[test]
fn state_files_interoperate_with_fio() {
    if !have_fio() {
        return;
    }
    for job in [
        &["--rw=write"][..],
        &["--rw=write", "--ioengine=libaio", "--iodepth=4"],
        // The random sequence as fio 3.33 draws it: each tool walks the other's.
        &["--rw=randwrite", "--fio_seeds=3.33"],
        &[
            "--rw=randwrite",
            "--fio_seeds=3.33",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
    ] {
        let fio_job: Vec<&str> = job
            .iter()
            .copied()
            .filter(|a| !a.starts_with("--fio_seeds"))
            .collect();
        let w = [&["--verify=crc32c", "--number_ios=100"][..]].concat();
        let v = [
            "--verify=crc32c",
            "--verify_only=1",
            "--verify_state_load=1",
        ];
        // fio writes and saves; ferrio loads and verifies what fio would.
        let d = scratch();
        ok(&fio_in(d.path(), &[&fio_job[..], &w].concat()));
        let fio_state = std::fs::read(d.path().join(STATE)).unwrap();
        let got = verdict(ok(&ferrio_in(d.path(), &[job, &v[..]].concat())));
        assert_eq!(got, (0, 100 * 4096), "{job:?}: ferrio on fio's state");
        // ferrio writes and saves the same state; fio loads it and verifies.
        let e = scratch();
        ok(&ferrio_in(e.path(), &[job, &w].concat()));
        let ours = std::fs::read(e.path().join(STATE)).unwrap();
        assert_eq!(
            without_rand(&ours),
            without_rand(&fio_state),
            "{job:?}: the same state"
        );
        let got = verdict(ok(&fio_in(e.path(), &[&fio_job[..], &v[..]].concat())));
        assert_eq!(got, (0, 100 * 4096), "{job:?}: fio on ferrio's state");
    }
}
