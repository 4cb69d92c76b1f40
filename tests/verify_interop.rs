//! Data written with verify headers by fio 3.33 verifies with ferrio
//! (verify_only=1), and data written by ferrio verifies with fio — for every
//! checksum fio 3.33 has, with headers every verify_interval and swapped to
//! verify_offset, and with patterns. A one-byte corruption makes each tool fail
//! the other's data, so a verify that checked nothing would fail here.

mod common;
use common::*;
use std::process::{Command, Output};

const KINDS: [&str; 16] = [
    "md5",
    "crc64",
    "crc32",
    "crc32c",
    "crc32c-intel",
    "crc16",
    "crc7",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "xxhash",
    "meta",
];

fn job(file: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=v",
        "--rw=randwrite",
        "--bs=4k",
        "--size=128k",
        "--randrepeat=1",
        // No state file in the working directory (the repository) from either tool.
        "--verify_state_save=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--filename={file}"));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// One tool's run of a job.
type Tool = fn(&[String]) -> Output;

fn fio(args: &[String]) -> Output {
    // No verify state file (fio writes one into the working directory when a
    // verify fails).
    Command::new("fio")
        .args(args)
        .arg("--verify_state_save=0")
        .output()
        .expect("run fio")
}

fn ferrio_out(args: &[String]) -> Output {
    ferrio().args(args).output().expect("run ferrio")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Flip one byte in the middle of block 5's data (past any header).
fn corrupt(file: &str) {
    let mut b = std::fs::read(file).unwrap();
    b[5 * 4096 + 4000] ^= 0x5a;
    std::fs::write(file, b).unwrap();
}

/// Write with `writer`, verify with `checker` (verify_only=1): clean passes with
/// every byte read back; a corrupted byte fails. Each call has a directory of its
/// own, so the tests run their cases a few at a time (`common::cases::each_case`).
fn cross(kind_opts: &[&str], fio_writes: bool) {
    let dir = scratch();
    let file = file_in(dir.path(), "v.dat");
    let mut w = kind_opts.to_vec();
    w.push("--do_verify=0");
    let write = job(&file, &w);
    let mut c = kind_opts.to_vec();
    c.push("--verify_only=1");
    let check = job(&file, &c);
    let (wr, ck): (Tool, Tool) = if fio_writes {
        (fio, ferrio_out)
    } else {
        (ferrio_out, fio)
    };
    let o = wr(&write);
    assert!(o.status.success(), "{kind_opts:?} write: {}", text(&o));
    let o = ck(&check);
    let t = text(&o);
    assert!(
        o.status.success(),
        "{kind_opts:?} (fio wrote: {fio_writes}) clean verify failed:\n{t}"
    );
    assert!(
        !t.contains("verify failed") && !t.contains("bad "),
        "{kind_opts:?}: {t}"
    );
    assert!(
        t.contains("read: IOPS="),
        "{kind_opts:?}: nothing read back:\n{t}"
    );
    assert!(
        t.contains("(128KiB/") || t.contains("128KiB"),
        "{kind_opts:?}: not all read back:\n{t}"
    );
    // sha512 (fio's variant) and meta do not cover byte 4000 of a block's data.
    if kind_opts[0].ends_with("sha512") || kind_opts[0].ends_with("meta") {
        return;
    }
    corrupt(&file);
    let o = ck(&check);
    let t = text(&o);
    assert!(
        !o.status.success(),
        "{kind_opts:?}: corruption not detected:\n{t}"
    );
    assert!(
        t.contains("requested block: offset=20480"),
        "{kind_opts:?}: wrong offset:\n{t}"
    );
}

#[test]
fn fio_written_blocks_verify_with_ferrio() {
    if !have_fio() {
        return;
    }
    common::cases::each_case(&KINDS, |k| cross(&[&format!("--verify={k}")], true));
}

#[test]
fn ferrio_written_blocks_verify_with_fio() {
    if !have_fio() {
        return;
    }
    common::cases::each_case(&KINDS, |k| cross(&[&format!("--verify={k}")], false));
}

#[test]
fn intervals_offsets_and_patterns_interoperate() {
    if !have_fio() {
        return;
    }
    let cases: [&[&str]; 5] = [
        &["--verify=crc32c", "--verify_interval=512"],
        &[
            "--verify=md5",
            "--verify_interval=1024",
            "--verify_offset=100",
        ],
        &["--verify=sha256", "--verify_offset=2048"],
        &["--verify_pattern=0xdeadbeef"],
        &["--verify=pattern", "--verify_pattern=\"abc\"%o0x01"],
    ];
    common::cases::each_case(&cases, |opts| {
        cross(opts, true);
        cross(opts, false);
    });
}

/// `writer` writes block 5 with crc32c headers, the byte at 4000 is flipped, and
/// `checker` (verify_dump=1, run in the directory) dumps what the block should be,
/// rebuilt from its header's seed: past the header, exactly what `writer` wrote.
/// Both tools fill a block with fio's __fill_random_buf from that seed.
fn dump_rebuilds_the_other_tools_block(fio_writes: bool) {
    let dir = scratch();
    let file = file_in(dir.path(), "v.dat");
    let write = job(&file, &["--verify=crc32c", "--do_verify=0"]);
    let check = job(
        &file,
        &["--verify=crc32c", "--verify_only=1", "--verify_dump=1"],
    );
    let run = |tool: &str, args: &[String]| {
        let mut cmd = if tool == "fio" {
            Command::new("fio")
        } else {
            ferrio()
        };
        cmd.current_dir(dir.path())
            .args(args)
            .output()
            .expect("run")
    };
    let (writer, checker) = if fio_writes {
        ("fio", "ferrio")
    } else {
        ("ferrio", "fio")
    };
    let o = run(writer, &write);
    assert!(o.status.success(), "{writer} write: {}", text(&o));
    let written = std::fs::read(&file).unwrap()[5 * 4096..6 * 4096].to_vec();
    corrupt(&file);
    let o = run(checker, &check);
    assert!(!o.status.success(), "{checker}: corruption not detected");
    let expected = std::fs::read(dir.path().join("v.dat.20480.expected"))
        .unwrap_or_else(|e| panic!("{checker} dumped no expected block ({e}):\n{}", text(&o)));
    assert_eq!(expected.len(), 4096);
    // (the header's time stamps are the checker's to fill; the data is the seed's)
    assert!(
        expected[64..] == written[64..],
        "{checker}'s rebuild of {writer}'s block differs"
    );
}

#[test]
fn verify_dump_rebuilds_the_other_tools_data_from_its_seed() {
    if !have_fio() {
        return;
    }
    dump_rebuilds_the_other_tools_block(true);
    dump_rebuilds_the_other_tools_block(false);
}

/// The blocks each tool writes and then reads back, in order, from its write_iolog.
fn write_and_verify_order(tool: &str, extra: &[&str]) -> (Vec<u64>, Vec<u64>) {
    let dir = scratch();
    let file = file_in(dir.path(), "v.dat");
    let log = dir.path().join("io.log");
    let mut args = job(&file, &["--verify=crc32c", "--size=64k"]);
    args.push(format!("--write_iolog={}", log.display()));
    args.extend(extra.iter().map(|s| s.to_string()));
    if tool == "ferrio" {
        args.push("--fio_seeds=3.33".into()); // fio 3.33's offsets (docs/random.md)
    }
    let mut cmd = if tool == "fio" {
        Command::new("fio")
    } else {
        ferrio()
    };
    let o = cmd.args(&args).output().expect("run");
    assert!(o.status.success(), "{tool}: {}", text(&o));
    let (mut w, mut r) = (Vec::new(), Vec::new());
    for l in std::fs::read_to_string(&log).unwrap().lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.get(2) {
            Some(&"write") => w.push(f[3].parse::<u64>().unwrap() / 4096),
            Some(&"read") => r.push(f[3].parse::<u64>().unwrap() / 4096),
            _ => {}
        }
    }
    (w, r)
}

/// fio reads a verified job's blocks back in its io_piece order: as written with a
/// random map, by offset (each block once, the last write's) without one.
#[test]
fn the_read_back_order_is_fios() {
    if !have_fio() {
        return;
    }
    for extra in [&[][..], &["--norandommap"][..]] {
        let (fw, fr) = write_and_verify_order("fio", extra);
        let (w, r) = write_and_verify_order("ferrio", extra);
        assert_eq!(w, fw, "{extra:?}: the writes differ");
        assert_eq!(r, fr, "{extra:?}: the read-back differs");
        assert!(r.len() > 8, "{extra:?}: {r:?}");
    }
    // (the two orders differ, so each case checks its own)
    let (w, r) = write_and_verify_order("ferrio", &[]);
    assert_eq!(w, r);
    assert_ne!(r, {
        let mut s = r.clone();
        s.sort();
        s
    });
}

/// A job that reads and writes (`rw=randrw`, `rw=rw`): fio 3.33's verify_only walks
/// the job again and expects each block's header to hold the seed its verify stream
/// gives that block in write order (it checks the seed only for such jobs), so the
/// writer's seeds must be fio's stream. ferrio runs with fio 3.33's offsets
/// (`fio_seeds=3.33`) so both walk the same blocks.
#[test]
fn a_mixed_jobs_blocks_carry_fios_seeds_and_verify_with_fio() {
    if !have_fio() {
        return;
    }
    let cases: [&[&str]; 6] = [
        &["--rw=randrw"],
        &["--rw=randrw", "--loops=2"],
        &["--rw=randrw", "--random_generator=tausworthe64"],
        &["--rw=randrw", "--bsrange=4k-16k", "--verify=md5"],
        &["--rw=randrw", "--verify_pattern=0xabcd"],
        &["--rw=rw", "--rwmixread=30"],
    ];
    common::cases::each_case(&cases, |opts| {
        let dir = scratch();
        let file = file_in(dir.path(), "v.dat");
        let mut w = vec!["--verify=crc32c"];
        w.extend_from_slice(opts);
        let mut c = w.clone();
        w.extend(["--do_verify=0", "--fio_seeds=3.33"]);
        c.push("--verify_only=1");
        let o = ferrio_out(&job(&file, &w));
        assert!(o.status.success(), "{opts:?} write: {}", text(&o));
        let o = fio(&job(&file, &c));
        let t = text(&o);
        assert!(
            o.status.success() && t.contains("err= 0") && !t.contains("bad header"),
            "{opts:?}: fio failed ferrio's blocks:\n{t}"
        );
        assert!(t.contains("read: IOPS="), "{opts:?}: nothing read:\n{t}");
    });
}
