//! fio 3.33's I/O sequence for the generator options the first differential suite
//! (differential_sequence.rs) leaves out: rw=randtrimwrite, bs_is_seq_rand and
//! offset_align. Each job runs under fio and ferrio with write_iolog and the same
//! seed; the (direction, offset, length) lines must be identical.
//!
//! Trims need the null engine (fio 3.33 fails them on regular files), which names its
//! file differently in ferrio, so names are left out of the comparison; the jobs use
//! one file. Skipped (with a message) when fio is absent, unless FERRIO_REQUIRE_FIO or
//! CI is set.

mod common;
use common::*;
use std::process::Command;

/// (direction, offset, length) of every I/O `tool` logs for the job.
fn ios(tool: &str, opts: &[&str]) -> Vec<String> {
    let d = scratch();
    let log = d.path().join("io.log");
    let mut cmd = if tool == "fio" {
        Command::new("fio")
    } else {
        ferrio()
    };
    let o = cmd
        .current_dir(d.path())
        .args([
            "--name=j",
            "--size=256k",
            "--randrepeat=0",
            "--randseed=1234",
        ])
        .arg(format!("--write_iolog={}", log.display()))
        .args(opts)
        .output()
        .expect("run");
    assert!(
        o.status.success(),
        "{tool} {opts:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&log).expect("iolog");
    text.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            matches!(w.get(2), Some(&("read" | "write" | "trim"))).then(|| w[2..].join(" "))
        })
        .collect()
}

fn assert_same(opts: &[&str]) {
    let (f, r) = (ios("fio", opts), ios("ferrio", opts));
    assert!(f.len() > 8, "{opts:?}: fio logged only {f:?}");
    if let Some(i) = (0..f.len().max(r.len())).find(|&i| f.get(i) != r.get(i)) {
        panic!(
            "{opts:?}: first difference at I/O {}: fio {:?}, ferrio {:?} ({} vs {} I/Os)",
            i + 1,
            f.get(i),
            r.get(i),
            f.len(),
            r.len()
        );
    }
}

#[test]
fn randtrimwrite_matches_fio() {
    if !have_fio() {
        return;
    }
    for job in [
        &["--ioengine=null", "--rw=randtrimwrite", "--bs=4k"][..],
        &[
            "--ioengine=null",
            "--rw=randtrimwrite",
            "--bsrange=4k-16k",
            "--percentage_random=40",
        ],
        &["--ioengine=null", "--rw=randtrimwrite:4", "--bs=4k"],
        &[
            "--ioengine=null",
            "--rw=randtrimwrite:3",
            "--bs=4k",
            "--rw_sequencer=identical",
        ],
        &[
            "--ioengine=null",
            "--rw=randtrimwrite:2",
            "--bs=4k",
            "--norandommap",
            "--loops=2",
        ],
        &[
            "--ioengine=null",
            "--rw=randtrimwrite",
            "--bs=4k",
            "--random_generator=lfsr",
        ],
        &[
            "--ioengine=null",
            "--rw=randtrimwrite",
            "--bs=4k",
            "--random_generator=tausworthe64",
            "--loops=2",
        ],
    ] {
        assert_same(job);
    }
}

#[test]
fn randtrimwrite_writes_each_block_it_trims() {
    let r = ios(
        "ferrio",
        &["--ioengine=null", "--rw=randtrimwrite", "--bsrange=4k-16k"],
    );
    assert_eq!(
        r.len(),
        2 * r.iter().filter(|l| l.starts_with("trim")).count()
    );
    let mut offsets = std::collections::HashSet::new();
    for pair in r.chunks(2) {
        let (t, w) = (&pair[0], &pair[1]);
        assert_eq!(t.strip_prefix("trim"), w.strip_prefix("write"), "{pair:?}");
        offsets.insert(t.split(' ').nth(1).unwrap().to_string());
    }
    // Random, not sequential: the first few trims are not in order.
    let firsts: Vec<u64> = r
        .iter()
        .step_by(2)
        .take(6)
        .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(firsts.windows(2).any(|w| w[1] < w[0]), "{firsts:?}");
}

#[test]
fn bs_is_seq_rand_matches_fio() {
    if !have_fio() {
        return;
    }
    // Sequential I/Os (of either direction) take the first slot's sizes, random ones
    // the second's.
    for job in [
        &[
            "--rw=randread",
            "--bsrange=1k-4k,8k-32k",
            "--bs_is_seq_rand=1",
            "--percentage_random=30",
        ][..],
        &[
            "--rw=randwrite",
            "--bssplit=4k/50:8k/50,16k/100",
            "--bs_is_seq_rand=1",
            "--percentage_random=60",
            "--norandommap",
        ],
        &["--rw=randrw:4", "--bs=4k,8k", "--bs_is_seq_rand=1"],
        &["--rw=rw", "--bs=8k,4k", "--bs_is_seq_rand=1"],
    ] {
        let mut job = job.to_vec();
        job.extend(["--ioengine=psync", "--filename=dat"]);
        assert_same(&job);
    }
}

#[test]
fn bs_is_seq_rand_sizes_follow_the_offsets() {
    // Without bs_is_seq_rand, rw=rw with bs=8k,4k reads 8k and writes 4k; with it,
    // every I/O is sequential, so all take the first slot: 8k.
    let plain = ios("ferrio", &["--ioengine=null", "--rw=rw", "--bs=8k,4k"]);
    assert!(plain
        .iter()
        .any(|l| l.starts_with("write") && l.ends_with(" 4096")));
    let seq = ios(
        "ferrio",
        &[
            "--ioengine=null",
            "--rw=rw",
            "--bs=8k,4k",
            "--bs_is_seq_rand=1",
        ],
    );
    assert!(seq.iter().all(|l| l.ends_with(" 8192")), "{seq:?}");
    // All random: all take the second slot.
    let rand = ios(
        "ferrio",
        &[
            "--ioengine=null",
            "--rw=randrw",
            "--bs=8k,4k",
            "--bs_is_seq_rand=1",
        ],
    );
    assert!(rand.iter().all(|l| l.ends_with(" 4096")), "{rand:?}");
}
