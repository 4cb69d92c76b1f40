//! Differential tests against Debian's fio 3.33 (/usr/bin/fio) on the JSON *values*
//! that are deterministic for a job: per-direction I/O and byte counts, the fsync
//! count, and the I/O depth maps (`iodepth_level`, `iodepth_submit`,
//! `iodepth_complete`), compared key by key and value by value.
//!
//! The depth maps are deterministic where every submit and every reap moves a fixed
//! number of I/Os: synchronous engines (one I/O at a time: level "1", submit and
//! complete "4" = 100 %), and asynchronous engines with
//! `iodepth_batch = iodepth_batch_complete_min = iodepth` (every submit and every reap
//! moves exactly `iodepth` I/Os). fio 3.33 was run on each job here several times and
//! printed the same maps every time.

mod common;
use common::*;
use serde_json::Value;

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(|s| s.as_str()).collect()
}

/// `--name=x` + `opts`, with `--filename=<dir>/<file>` unless the engine is null.
fn args(opts: &[&str], file: Option<String>) -> Vec<String> {
    let mut v = vec!["--name=x".to_string()];
    if let Some(f) = file {
        v.push(format!("--filename={f}"));
    }
    v.extend(opts.iter().map(|s| s.to_string()));
    v
}

/// The three depth maps of the first job, as JSON objects.
fn depth_maps(v: &Value) -> [(&'static str, Value); 3] {
    let j = &v["jobs"][0];
    ["iodepth_level", "iodepth_submit", "iodepth_complete"]
        .map(|k| (k, j.get(k).unwrap_or_else(|| panic!("no {k}: {j}")).clone()))
}

/// The deterministic values of the first job (per direction and sync).
fn counts(v: &Value) -> Vec<(String, Value)> {
    let j = &v["jobs"][0];
    let mut out = Vec::new();
    for d in ["read", "write", "trim"] {
        for k in [
            "io_bytes",
            "io_kbytes",
            "total_ios",
            "short_ios",
            "drop_ios",
        ] {
            out.push((format!("{d}.{k}"), j[d][k].clone()));
        }
    }
    out.push(("sync.total_ios".into(), j["sync"]["total_ios"].clone()));
    out.push(("error".into(), j["error"].clone()));
    out
}

/// Run `opts` with fio and ferrio (each on its own file in a scratch dir when
/// `on_file`) and compare the counts and the depth maps value by value.
fn same_as_fio(opts: &[&str], on_file: bool, dir: &std::path::Path, tag: &str) {
    let file = |who: &str| on_file.then(|| file_in(dir, &format!("{who}-{tag}")));
    let theirs = fio_json(&refs(&args(opts, file("fio"))));
    let ours = run_json(&refs(&args(opts, file("ferrio"))));
    assert_eq!(counts(&ours), counts(&theirs), "{opts:?}: counts");
    for ((k, o), (_, t)) in depth_maps(&ours).iter().zip(depth_maps(&theirs).iter()) {
        assert_eq!(o, t, "{opts:?}: {k}\nferrio: {o}\nfio:    {t}");
    }
}

/// Synchronous engines: one I/O in flight, each submit and each reap one I/O.
/// fio 3.33 prints iodepth_level {"1": 100.0}, submit and complete {"4": 100.0}.
#[test]
fn synchronous_engines_depth_maps_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for (i, opts) in [
        &["--ioengine=psync", "--rw=randread", "--bs=4k", "--size=1M"][..],
        &["--ioengine=psync", "--rw=write", "--bs=4k", "--size=1M"][..],
        &[
            "--ioengine=sync",
            "--rw=rw",
            "--bs=4k",
            "--size=1M",
            "--rwmixread=0",
        ][..],
        &["--ioengine=pvsync", "--rw=read", "--bs=8k", "--size=1M"][..],
        &[
            "--ioengine=pvsync2",
            "--rw=randwrite",
            "--bs=4k",
            "--size=1M",
        ][..],
        // iodepth is capped at 1 for a synchronous engine, as in fio.
        &[
            "--ioengine=psync",
            "--rw=read",
            "--bs=4k",
            "--size=1M",
            "--iodepth=8",
        ][..],
    ]
    .iter()
    .enumerate()
    {
        same_as_fio(opts, true, d.path(), &i.to_string());
    }
}

/// The null engine with full batches: fio 3.33 prints level/submit/complete at the
/// batch size (">=64" for the level and "64" for submit/complete at iodepth 64).
#[test]
fn null_engine_batched_depth_maps_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for (i, depth) in [2u32, 8, 32, 64].iter().enumerate() {
        let (a, b, c) = (
            format!("--iodepth={depth}"),
            format!("--iodepth_batch={depth}"),
            format!("--iodepth_batch_complete_min={depth}"),
        );
        for rw in ["--rw=randread", "--rw=write"] {
            same_as_fio(
                &["--ioengine=null", rw, "--bs=4k", "--size=4M", &a, &b, &c],
                false,
                d.path(),
                &i.to_string(),
            );
        }
    }
}

/// Polling (iodepth_batch_complete_min=0, _max unset): fio reaps after every queued
/// I/O, full queue or not. A buffered libaio read of a cached file completes inside
/// its io_submit, so that reap finds it done and the queue never deepens: fio 3.33
/// prints level {"1": 100.0}. (A loop that queued until the queue was full before
/// reaping printed level "8".)
#[test]
fn polling_reaps_after_every_io_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    same_as_fio(
        &[
            "--ioengine=libaio",
            "--rw=randread",
            "--bs=4k",
            "--size=4M",
            "--iodepth=8",
            "--iodepth_batch_complete_min=0",
            "--invalidate=0",
        ],
        true,
        d.path(),
        "poll",
    );
}

/// The null engine without batching options: fio 3.33 completes each I/O at once, so
/// its level stays at 1 even with iodepth=4.
#[test]
fn null_engine_unbatched_depth_maps_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    same_as_fio(
        &[
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=4M",
            "--iodepth=4",
        ],
        false,
        d.path(),
        "u",
    );
}

/// libaio on a file, buffered, with full batches of 2 and 8: fio 3.33 prints the
/// batch size = 100 % in all three maps (complete "8", where counting each reap as
/// one completion would say "4"; level "2" where a depth off by one would say "4").
#[test]
fn libaio_batched_depth_maps_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for (i, rw) in ["--rw=randread", "--rw=write", "--rw=read"]
        .iter()
        .enumerate()
    {
        for depth in [2, 8] {
            let (a, b, c) = (
                format!("--iodepth={depth}"),
                format!("--iodepth_batch={depth}"),
                format!("--iodepth_batch_complete_min={depth}"),
            );
            same_as_fio(
                &["--ioengine=libaio", rw, "--bs=4k", "--size=1M", &a, &b, &c],
                true,
                d.path(),
                &format!("{i}-{depth}"),
            );
        }
    }
}

/// libaio on a file, buffered, with fio's default batching: the kernel completes a
/// buffered I/O inside io_submit, so every reap finds what it asks for and the maps are
/// fixed. `fsync=4`: fio's libaio syncs synchronously once nothing is queued but
/// unsubmitted, with the other writes still in flight, so the depth stays at 8 (ferrio
/// used to wait for the in-flight writes too: its level fell to 1, 2 and 4 before each
/// sync). `iodepth_batch_complete_max=16`: each reap takes every completion there, so
/// the queue empties and refills (level 1 to 16, as fio prints it).
#[test]
fn libaio_buffered_unbatched_depth_maps_and_syncs_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let base = ["--ioengine=libaio", "--bs=4k", "--size=1M"];
    let jobs: [&[&str]; 3] = [
        &["--rw=write", "--iodepth=8", "--fsync=4"],
        &["--rw=randwrite", "--iodepth=4", "--fsync=3"],
        &[
            "--rw=randread",
            "--iodepth=16",
            "--iodepth_batch_complete_max=16",
        ],
    ];
    for (i, job) in jobs.iter().enumerate() {
        let opts: Vec<&str> = base.iter().chain(job.iter()).copied().collect();
        same_as_fio(&opts, true, d.path(), &format!("b{i}"));
    }
}

/// The null engine at depth 1 completes every I/O in its queue call; fio 3.33's null
/// engine has a commit hook, so those I/Os are in neither its submit nor its complete
/// map (both empty: 0 submits), only in the depth map.
#[test]
fn null_engine_depth_one_submit_and_complete_maps_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    same_as_fio(
        &["--ioengine=null", "--rw=randread", "--bs=4k", "--size=1M"],
        false,
        d.path(),
        "n1",
    );
}

/// io_uring at depth 1 with fsync=4: one sync after every fourth write (the last
/// write's is never issued: the job is over). At depth 1 fio 3.33's rule and the later
/// fio's rule ferrio follows give the same count (docs/engines.md, "fsync=N with
/// asynchronous engines").
#[test]
fn io_uring_depth_one_fsync_count_matches_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    same_as_fio(
        &[
            "--ioengine=io_uring",
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--iodepth=1",
            "--fsync=4",
        ],
        true,
        d.path(),
        "s1",
    );
}

/// io_uring on a file with full batches of 16 (fio 3.33: 16 = 100 % in all three).
#[test]
fn io_uring_batched_depth_maps_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    same_as_fio(
        &[
            "--ioengine=io_uring",
            "--rw=randread",
            "--bs=4k",
            "--size=1M",
            "--iodepth=16",
            "--iodepth_batch=16",
            "--iodepth_batch_complete_min=16",
        ],
        true,
        d.path(),
        "u",
    );
}

/// The depth maps of ferrio alone, where fio's are known: a psync job must print the
/// normal report's "IO depths: 1=100.0%" and "complete: 0=0.0%, 4=100.0%" lines.
#[test]
fn psync_normal_output_depth_lines() {
    let d = scratch();
    let f = file_in(d.path(), "n");
    let out = run_ok(&[
        "--name=n",
        "--ioengine=psync",
        "--rw=read",
        "--bs=4k",
        "--size=256k",
        &format!("--filename={f}"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    // fio 3.33 on the same job prints exactly these three lines.
    for want in [
        "IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
        "submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
}

/// The maps fio 3.33 printed for libaio and io_uring with full batches (see above),
/// checked without fio so that a machine without it still catches a wrong map.
#[test]
fn batched_depth_maps_as_fio_printed_them() {
    let d = scratch();
    for (engine, depth, label) in [
        ("libaio", 8, "8"),
        ("libaio", 2, "4"),
        ("io_uring", 16, "16"),
    ] {
        let f = file_in(d.path(), engine);
        let v = run_json(&[
            "--name=x",
            &format!("--filename={f}"),
            &format!("--ioengine={engine}"),
            "--rw=randread",
            "--bs=4k",
            "--size=1M",
            &format!("--iodepth={depth}"),
            &format!("--iodepth_batch={depth}"),
            &format!("--iodepth_batch_complete_min={depth}"),
        ]);
        let j = &v["jobs"][0];
        let level = if depth == 2 { "2" } else { label };
        assert_eq!(j["iodepth_level"][level], 100.0, "{engine} {depth}: {j}");
        assert_eq!(j["iodepth_submit"][label], 100.0, "{engine} {depth}");
        assert_eq!(j["iodepth_complete"][label], 100.0, "{engine} {depth}");
    }
}
