//! What fio's verify test scripts lean on: getopt's command-line splitting, the
//! pattern syntax, verify=pattern_hdr, verify_pattern_interval, verify_policy,
//! --aux-path for the state files, and verify with openfiles below nrfiles. Small
//! jobs of ferrio's own; fio 3.33 is the reference where it has the feature.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// ferrio `args` with `dir` as the working directory (state files land there).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    ferrio()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ferrio")
}

fn json_in(dir: &Path, args: &[&str]) -> serde_json::Value {
    run_json_in(dir, args)
}

fn ios(v: &serde_json::Value, dir: &str) -> u64 {
    v["jobs"][0][dir]["total_ios"].as_u64().expect("total_ios")
}

#[test]
fn set_options_take_no_next_argument_others_do_as_fios_getopt() {
    let d = scratch();
    let file = format!("--filename={}", file_in(d.path(), "x.dat"));
    // (arguments, accepted?) — fio 3.33 gives the same answers.
    let cases: &[(&[&str], bool)] = &[
        (&["--verify_only", "--rw=write"], true),
        (&["--time_based", "--runtime=1"], true),
        (&["--direct", "--rw=write"], false), // direct=--rw=write
        (&["--bs", "2k"], true),
        (&["--description="], false),
        (&["--verify_only=1", "--rw=write"], true),
    ];
    let fio = have_fio();
    for (extra, ok) in cases {
        let mut args = vec!["--parse-only", "--name=x", "--size=4k", file.as_str()];
        args.extend_from_slice(extra);
        let out = run_in(d.path(), &args);
        assert_eq!(
            out.status.success(),
            *ok,
            "ferrio {extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if fio {
            let f = Command::new("fio")
                .args(&args)
                .current_dir(d.path())
                .output()
                .expect("run fio");
            assert_eq!(f.status.success(), *ok, "fio {extra:?}");
        }
    }
    let out = run_in(d.path(), &["--name=x", "--size=4k", &file, "--bs="]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'--bs' requires an argument"), "{err}");
    // Nothing was run, so nothing was made.
    assert!(!d.path().join("x.dat").exists());
}

/// The pattern's bytes, as written by verify=pattern (no header) into a 4k file.
fn pattern_bytes(bin: &str, pattern: &str) -> Vec<u8> {
    let d = scratch();
    let out = Command::new(bin)
        .args([
            "--name=p",
            "--filename=p.dat",
            "--size=4k",
            "--bs=4k",
            "--rw=write",
            "--verify=pattern",
            "--do_verify=0",
            "--verify_state_save=0",
        ])
        .arg(format!("--verify_pattern={pattern}"))
        .current_dir(d.path())
        .output()
        .expect("run");
    assert!(out.status.success(), "{bin} {pattern}: {out:?}");
    std::fs::read(d.path().join("p.dat")).unwrap()
}

#[test]
fn pattern_tokens_make_the_bytes_fio_writes() {
    let ours = env!("CARGO_BIN_EXE_ferrio");
    let want: &[(&str, &[u8])] = &[
        (
            "\"abcd\"-120xdeadface",
            b"abcd\xf4\xff\xff\xff\xde\xad\xfa\xce",
        ),
        ("100x01", &[10, 1]),
        ("-1024\"z\"", &[0x00, 0xfc, 0xff, 0xff, b'z']),
        ("0xff0x1", &[0xff, 0x01]),
    ];
    let fio = have_fio();
    for (p, bytes) in want {
        let got = pattern_bytes(ours, p);
        assert_eq!(got.len(), 4096);
        for (i, b) in got.iter().enumerate() {
            assert_eq!(*b, bytes[i % bytes.len()], "{p} at {i}");
        }
        if fio {
            assert_eq!(pattern_bytes("fio", p), got, "{p}: fio's bytes differ");
        }
    }
}

#[test]
fn pattern_interval_pastes_each_pieces_offset_and_verifies() {
    let d = scratch();
    let base = [
        "--name=v",
        "--filename=v.dat",
        "--size=64k",
        "--bs=8k",
        "--rw=write",
        "--verify_pattern=%o",
        "--verify_pattern_interval=512",
    ];
    for kind in ["--verify=pattern", "--verify=pattern_hdr"] {
        let mut args = base.to_vec();
        args.push(kind);
        let v = json_in(d.path(), &args);
        assert_eq!((ios(&v, "write"), ios(&v, "read")), (8, 8), "{kind}");
        assert_eq!(v["jobs"][0]["error"], 0, "{kind}");
    }
    // verify=pattern (no header): each 512-byte piece starts with its own offset.
    let mut args = base.to_vec();
    args.extend(["--verify=pattern", "--do_verify=0"]);
    json_in(d.path(), &args);
    let data = std::fs::read(d.path().join("v.dat")).unwrap();
    for at in (0..data.len()).step_by(512) {
        assert_eq!(data[at..at + 8], (at as u64).to_le_bytes(), "piece at {at}");
    }
    // A changed byte in a piece is found by a verify_only pass.
    let mut bad = data.clone();
    bad[3 * 512 + 100] ^= 0xff;
    std::fs::write(d.path().join("v.dat"), &bad).unwrap();
    let mut args = base.to_vec();
    args.extend(["--verify=pattern", "--verify_only"]);
    let out = run_in(d.path(), &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("pattern: verify failed"), "{err}");
}

#[test]
fn pattern_hdr_needs_a_pattern() {
    let d = scratch();
    let out = run_in(
        d.path(),
        &[
            "--name=v",
            "--filename=v.dat",
            "--size=8k",
            "--verify=pattern_hdr",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("verify=pattern_hdr needs verify_pattern="),
        "{err}"
    );
    assert!(!d.path().join("v.dat").exists());
}

#[test]
fn aux_path_holds_the_state_files_and_verify_policy_fsynced_limits_them() {
    let d = scratch();
    let aux = d.path().join("aux");
    std::fs::create_dir(&aux).unwrap();
    let aux_flag = format!("--aux-path={}", path_str(&aux));
    let job = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "--name=s",
            "--filename=s.dat",
            "--size=1M",
            "--bs=4k",
            "--rw=write",
            "--verify=crc32c",
            "--number_ios=40",
            "--fsync=16",
            aux_flag.as_str(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let load = job(&["--verify_only", "--verify_state_load=1"]);
    let load: Vec<&str> = load.iter().map(String::as_str).collect();
    for (policy, verified) in [("completed", 40), ("fsynced", 32)] {
        let p = format!("--verify_policy={policy}");
        let w = job(&["--do_verify=0", &p]);
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        assert_eq!(ios(&json_in(d.path(), &w), "write"), 40);
        assert!(aux.join("local-s-0-verify.state").exists());
        assert!(!d.path().join("local-s-0-verify.state").exists());
        // fsync=16: the last fsync that completed came after 32 writes.
        let v = json_in(d.path(), &load);
        assert_eq!(ios(&v, "read"), verified, "{policy}");
        assert_eq!(v["jobs"][0]["error"], 0);
    }
    // No state file under --aux-path: the error names the path looked at.
    std::fs::remove_file(aux.join("local-s-0-verify.state")).unwrap();
    let out = run_in(d.path(), &load);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&file_in(&aux, "local-s-0-verify.state")),
        "{err}"
    );
}

#[test]
fn verify_with_fewer_open_files_than_files() {
    let d = scratch();
    for rw in ["--rw=write", "--rw=randwrite"] {
        for backlog in ["--verify_backlog=0", "--verify_backlog=8"] {
            let v = json_in(
                d.path(),
                &[
                    "--name=o",
                    "--directory=.",
                    "--nrfiles=3",
                    "--openfiles=2",
                    "--size=192k",
                    "--bs=4k",
                    "--verify=md5",
                    rw,
                    backlog,
                ],
            );
            assert_eq!(ios(&v, "write"), 48, "{rw} {backlog}");
            assert_eq!(ios(&v, "read"), 48, "{rw} {backlog}");
            assert_eq!(v["jobs"][0]["error"], 0, "{rw} {backlog}");
        }
    }
}
