//! Values fio's own test harness (t/run-fio-tests.py and its scripts) relies on:
//! punctuation after a number (`--filesize=65536)`), a bsrange that fio splits at
//! its first colon, the steady-state lines of `--debug=parse`, and `'file'`
//! patterns. Our own small jobs, compared with fio 3.33 where the result is
//! deterministic. The harness itself fails a test on any stderr, so the accepted
//! forms must be silent.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

fn ferrio_in(dir: &Path, args: &[&str]) -> Output {
    ferrio()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ferrio")
}

fn fio_in(dir: &Path, args: &[&str]) -> Output {
    Command::new("fio")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run fio")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Exit 0 and nothing on stderr (what run-fio-tests.py's default check asks).
fn assert_clean(what: &str, out: &Output) {
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// The transfer lengths of an iolog's I/O lines (v2: `file action offset len`; v3,
/// fio master's and ferrio's default, has a timestamp first).
fn iolog_lengths(path: &Path) -> BTreeSet<u64> {
    let log = std::fs::read_to_string(path).expect("read iolog");
    log.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let a = f
                .iter()
                .position(|w| matches!(*w, "read" | "write" | "trim"))?;
            (f.len() == a + 3).then(|| f[a + 2].parse().expect("length"))
        })
        .collect()
}

#[test]
fn a_parenthesis_after_a_size_is_ignored_silently_as_fio_does() {
    let d = scratch();
    let args = [
        "--name=j",
        "--ioengine=null",
        "--rw=write",
        "--bs=4k",
        "--size=64k)",
        "--output-format=json",
    ];
    let out = ferrio_in(d.path(), &args);
    assert_clean("ferrio --size=64k)", &out);
    let ours = parse_json(&out.stdout);
    assert_eq!(dir_counts(&ours, "write"), (65536, 16));
    if have_fio() {
        let out = fio_in(d.path(), &args);
        assert!(out.status.success(), "fio: {}", text(&out.stderr));
        assert_eq!(dir_counts(&parse_json(&out.stdout), "write"), (65536, 16));
    }
}

#[test]
fn junk_that_fio_would_misread_is_still_refused_naming_the_option() {
    let d = scratch();
    for (opt, v) in [("size", "4q)"), ("size", "1.5m)"), ("bsrange", "1.5k-4k")] {
        let arg = format!("--{opt}={v}");
        let out = ferrio_in(d.path(), &["--name=j", "--ioengine=null", &arg]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{arg} accepted");
        assert!(err.contains(opt) && err.contains(v), "{arg}: {err}");
    }
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

#[test]
fn a_bsrange_with_bssplit_syntax_is_the_range_of_its_first_two_sizes() {
    // fio splits `512/25:1k:25:4k/25` at its first ':' and reads 512 and 1k.
    let d = scratch();
    std::fs::write(
        d.path().join("r.fio"),
        "[global]\nioengine=null\nsize=512k\nrw=randwrite\n\n\
         [r]\nbsrange=512/25:1k:25:4k/25\nwrite_iolog=r.log\n",
    )
    .unwrap();
    let out = ferrio_in(d.path(), &["--output-format=json", "r.fio"]);
    assert_clean("ferrio bsrange", &out);
    assert_eq!(iolog_lengths(&d.path().join("r.log")), [512, 1024].into());
    if have_fio() {
        std::fs::remove_file(d.path().join("r.log")).unwrap();
        let out = fio_in(d.path(), &["--output-format=json", "r.fio"]);
        assert!(out.status.success(), "fio: {}", text(&out.stderr));
        assert_eq!(iolog_lengths(&d.path().join("r.log")), [512, 1024].into());
    }
}

#[test]
fn debug_parse_prints_the_steady_state_thresholds() {
    let d = scratch();
    let cases = [
        ("iops:10", "set steady state IOPS threshold to 10.000000"),
        ("iops_slope:.5%", "set steady state threshold to 0.500000%"),
        ("bw:10%", "set steady state threshold to 10.000000%"),
        ("bw:2k", "set steady state BW threshold to 2048"),
    ];
    let fio = have_fio();
    for (ss, line) in cases {
        let arg = format!("--ss={ss}");
        let args = ["--parse-only", "--debug=parse", "--ss_dur=10s", &arg];
        let out = ferrio_in(d.path(), &args);
        assert_clean(&arg, &out);
        assert!(
            text(&out.stdout).contains(line),
            "{arg}: {}",
            text(&out.stdout)
        );
        if fio {
            let out = fio_in(d.path(), &args);
            assert!(text(&out.stdout).contains(line), "fio {arg}");
        }
    }
}

#[test]
fn a_quoted_pattern_is_a_file_for_buffer_and_verify_patterns() {
    let d = scratch();
    // 16 KiB: more than fio 3.33's 512-byte patterns, as fio master takes.
    let pattern: Vec<u8> = (0..16384u32).map(|i| (i * 31 + i / 256) as u8).collect();
    std::fs::write(d.path().join("p.bin"), &pattern).unwrap();
    std::fs::write(
        d.path().join("pat.fio"),
        "[global]\nfilename=data\nsize=32k\nbs=16k\n\n\
         [w]\nrw=write\nbuffer_pattern='p.bin'\n\n\
         [r]\nstonewall\nrw=read\nverify=pattern\nverify_pattern='p.bin'\n",
    )
    .unwrap();
    let out = ferrio_in(d.path(), &["--output-format=json", "pat.fio"]);
    assert_clean("ferrio pattern file", &out);
    let data = std::fs::read(d.path().join("data")).unwrap();
    assert_eq!(data.len(), 32768);
    assert!(data.chunks(16384).all(|c| c == pattern), "file != pattern");

    // The verify reads a different pattern: it must fail.
    std::fs::write(d.path().join("p.bin"), [7u8; 100]).unwrap();
    let out = ferrio_in(
        d.path(),
        &["--output-format=json", "--section=r", "pat.fio"],
    );
    assert!(!out.status.success(), "verify with another pattern passed");
}

#[test]
fn a_small_pattern_file_writes_the_same_bytes_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    std::fs::write(d.path().join("p.bin"), b"ferrio\x00\xffpattern-file").unwrap();
    let args = [
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=16k",
        "--buffer_pattern='p.bin'0x0a",
        "--output-format=json",
    ];
    let run = |fio: bool, name: &str| {
        let mut a = args.to_vec();
        let f = format!("--filename={name}");
        a.push(&f);
        let out = if fio {
            fio_in(d.path(), &a)
        } else {
            ferrio_in(d.path(), &a)
        };
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read(d.path().join(name)).unwrap()
    };
    assert_eq!(run(false, "ours"), run(true, "theirs"));
}

#[test]
fn a_missing_or_empty_pattern_file_is_refused_naming_it() {
    let d = scratch();
    std::fs::write(d.path().join("empty.bin"), b"").unwrap();
    for (opt, file, why) in [
        (
            "buffer_pattern",
            "none.bin",
            "cannot read pattern file 'none.bin'",
        ),
        (
            "verify_pattern",
            "none.bin",
            "cannot read pattern file 'none.bin'",
        ),
        (
            "buffer_pattern",
            "empty.bin",
            "pattern file 'empty.bin' is empty",
        ),
        (
            "verify_pattern",
            "empty.bin",
            "pattern file 'empty.bin' is empty",
        ),
    ] {
        let arg = format!("--{opt}='{file}'");
        let out = ferrio_in(
            d.path(),
            &[
                "--name=j",
                "--filename=data",
                "--size=4k",
                "--rw=write",
                &arg,
            ],
        );
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{arg} accepted");
        assert!(err.contains(opt) && err.contains(why), "{arg}: {err}");
    }
    // Nothing was laid out.
    assert!(!d.path().join("data").exists());
}

#[test]
fn filesize_is_the_files_size_and_an_offset_starts_inside_it() {
    // fio's t/strided.py: offset=32k, size=64k, filesize=64k is the region 32k..64k
    // (fio wraps there), not 32k..96k.
    let d = scratch();
    let args = [
        "--name=s",
        "--filename=f",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--filesize=64k)",
        "--offset=32k",
        "--output-format=json",
    ];
    let out = ferrio_in(d.path(), &args);
    assert_clean("ferrio filesize+offset", &out);
    assert_eq!(dir_counts(&parse_json(&out.stdout), "write"), (32768, 8));
    assert_eq!(std::fs::metadata(d.path().join("f")).unwrap().len(), 65536);
    if have_fio() {
        std::fs::remove_file(d.path().join("f")).unwrap();
        let out = fio_in(d.path(), &args);
        assert!(out.status.success(), "fio: {}", text(&out.stderr));
        assert_eq!(dir_counts(&parse_json(&out.stdout), "write"), (32768, 8));
        assert_eq!(std::fs::metadata(d.path().join("f")).unwrap().len(), 65536);
    }
    // An offset at the end of the file leaves nothing: refused naming both.
    let out = ferrio_in(
        d.path(),
        &["--name=s", "--filename=g", "--filesize=64k", "--offset=64k"],
    );
    let err = text(&out.stderr);
    assert!(!out.status.success(), "offset=filesize accepted");
    assert!(
        err.contains("offset=") && err.contains("filesize="),
        "{err}"
    );
    assert!(!d.path().join("g").exists());
}

#[test]
fn a_verify_pattern_with_a_decimal_before_0x_writes_fios_bytes() {
    // fio master's t/verify.py: `"abcd"-120xdeadface` is abcd, -12, 0xdeadface.
    let d = scratch();
    let args = [
        "--name=v",
        "--rw=write",
        "--bs=4k",
        "--size=16k",
        "--verify=pattern",
        "--verify_pattern=\"abcd\"-120xdeadface",
        "--output-format=json",
    ];
    let run = |fio: bool, name: &str| {
        let f = format!("--filename={name}");
        let mut a = args.to_vec();
        a.push(&f);
        let out = if fio {
            fio_in(d.path(), &a)
        } else {
            ferrio_in(d.path(), &a)
        };
        if !fio {
            assert_clean("ferrio verify_pattern", &out);
        }
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read(d.path().join(name)).unwrap()
    };
    let ours = run(false, "ours");
    let mut unit = b"abcd".to_vec();
    unit.extend((-12i32).to_le_bytes());
    unit.extend([0xde, 0xad, 0xfa, 0xce]);
    assert_eq!(ours[..unit.len()], unit[..]);
    if have_fio() {
        assert_eq!(ours, run(true, "theirs"));
    }
}
