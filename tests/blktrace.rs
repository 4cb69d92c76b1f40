//! `read_iolog` of a binary blktrace and `merge_blktrace_file` (docs/random.md,
//! "Block traces"), on traces written here record by record from the kernel's
//! `blk_io_trace` layout: fio 3.33 replays the same trace to the same I/Os (file,
//! direction, offset, length, in order) under the replay options; a trace's device
//! is found under /dev by its numbers (a loop device made here); and
//! `--merge-blktrace-only` writes the merged trace and runs nothing.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

const MAGIC: u32 = 0x6561_7407;
const QUEUE: u32 = 1 | 1 << 20;
const COMPLETE: u32 = 8 | 1 << 23;
const READ: u32 = 1 << 16;
const WRITE: u32 = 1 << 17;
const FLUSH: u32 = 1 << 18;
const DISCARD: u32 = 1 << 29;
const NOTIFY: u32 = 1 << 26;

/// One little-endian `blk_io_trace` (48 bytes) and its payload.
fn rec(time_ns: u64, sector: u64, bytes: u32, action: u32, device: u32, pdu: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(48 + pdu.len());
    v.extend_from_slice(&MAGIC.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes()); // sequence
    v.extend_from_slice(&time_ns.to_le_bytes());
    v.extend_from_slice(&sector.to_le_bytes());
    v.extend_from_slice(&bytes.to_le_bytes());
    v.extend_from_slice(&action.to_le_bytes());
    v.extend_from_slice(&4242u32.to_le_bytes()); // pid
    v.extend_from_slice(&device.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes()); // cpu
    v.extend_from_slice(&0u16.to_le_bytes()); // error
    v.extend_from_slice(&(pdu.len() as u16).to_le_bytes());
    v.extend_from_slice(pdu);
    v
}

const DEV: u32 = 8 << 20 | 16;

/// Reads, writes (one with a payload), a discard, a flush, completions and a
/// notify; 24 queue events a few µs apart over the first 256 KiB.
fn trace() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..24u64 {
        let t = 1_000 + i * 3_000;
        let sector = (i * 37 % 64) * 8;
        let (bytes, act) = match i % 6 {
            0 | 3 => (4096, READ),
            1 => (8192, WRITE),
            2 => (3000, READ),
            4 => (4096, DISCARD | WRITE),
            _ => (12288, WRITE),
        };
        let pdu: &[u8] = if i == 5 { b"payload" } else { &[] };
        out.extend(rec(t, sector, bytes, QUEUE | act, DEV, pdu));
        out.extend(rec(t + 500, sector, bytes, COMPLETE | act, DEV, &[]));
        if i == 10 {
            out.extend(rec(t + 700, 0, 0, QUEUE | FLUSH, DEV, &[]));
            out.extend(rec(t + 800, 0, 0, QUEUE | NOTIFY, DEV, b"fio"));
        }
    }
    out
}

/// The I/Os fio issued, from `--debug=io`'s queue lines: (file, ddir, offset, length),
/// the trace's flush as a sync (ddir 3) included.
fn fio_ios(args: &[&str]) -> Vec<(String, u8, u64, u64)> {
    let o = Command::new("fio")
        .args(args)
        .arg("--debug=io")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "fio {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    text.lines()
        .filter_map(|l| l.split_once(" queue: io_u ").map(|x| x.1))
        .filter_map(|rest| {
            let kv = rest.split_once(": ")?.1;
            let get = |k: &str| {
                kv.split(',')
                    .find_map(|p| p.strip_prefix(k))
                    .unwrap()
                    .to_string()
            };
            let hex = |s: String| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
            let ddir: u8 = get("ddir=").parse().unwrap();
            (ddir <= 3).then(|| (get("file="), ddir, hex(get("off=")), hex(get("len="))))
        })
        .collect()
}

/// The I/Os ferrio issued, from its write_iolog.
fn ferrio_ios(dir: &Path, args: &[&str]) -> Vec<(String, u8, u64, u64)> {
    let log = dir.join("ferrio.iolog");
    let _ = std::fs::remove_file(&log);
    let mut a = args.to_vec();
    let w = format!("--write_iolog={}", log.display());
    a.push(&w);
    run_ok(&a);
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let ddir = match *f.get(2)? {
                "read" => 0,
                "write" => 1,
                "trim" => 2,
                "sync" => 3,
                _ => return None,
            };
            Some((
                f[1].to_string(),
                ddir,
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            ))
        })
        .collect()
}

#[test]
fn fio_replays_the_trace_to_the_same_ios() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let tr = d.path().join("trace.bin");
    std::fs::write(&tr, trace()).unwrap();
    let data = d.path().join("data");
    std::fs::File::create(&data)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let (tr, data) = (path_str(&tr), path_str(&data));
    let base = [
        "--name=bt".to_string(),
        "--ioengine=null".to_string(),
        format!("--read_iolog={tr}"),
        format!("--replay_redirect={data}"),
    ];
    for extra in [
        &[][..],
        &["--replay_scale=3", "--replay_align=4096"],
        &["--replay_skip=write,trim", "--replay_time_scale=50"],
        &["--replay_no_stall=1", "--replay_skip=read"],
    ] {
        let mut a: Vec<&str> = base.iter().map(String::as_str).collect();
        a.extend_from_slice(extra);
        let ours = ferrio_ios(d.path(), &a);
        let fio = fio_ios(&a);
        assert!(ours.len() >= 8, "{extra:?}: {ours:?}");
        assert!(ours.iter().any(|io| io.1 == 3), "the flush: {ours:?}");
        assert_eq!(ours, fio, "{extra:?}");
    }
}

/// The counts and bytes per direction in JSON match fio's too.
#[test]
fn fio_counts_the_replayed_trace_the_same() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let tr = file_in(d.path(), "trace.bin");
    std::fs::write(&tr, trace()).unwrap();
    let data = file_in(d.path(), "data");
    std::fs::File::create(&data)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let (r, w) = (
        format!("--read_iolog={tr}"),
        format!("--replay_redirect={data}"),
    );
    let a = [
        "--name=bt",
        "--ioengine=null",
        r.as_str(),
        w.as_str(),
        "--replay_no_stall=1",
    ];
    let (ours, fio) = (run_json(&a), fio_json(&a));
    for dir in ["read", "write", "trim"] {
        assert_eq!(dir_counts(&ours, dir), dir_counts(&fio, dir), "{dir}");
    }
    assert_eq!(dir_counts(&ours, "trim").1, 4);
}

const BACKMERGE: u32 = 2 | 1 << 20;

/// Four rounds of five reads queued before one completes (the trace's read depth:
/// 5) and three writes of which one merges (depth 2), then a flush.
fn deep_trace() -> Vec<u8> {
    let mut out = Vec::new();
    let mut t = 1_000;
    let mut ev = |sector: u64, bytes: u32, action: u32| {
        t += 1_000;
        out.extend(rec(t, sector, bytes, action, DEV, &[]));
    };
    for round in 0..4u64 {
        for i in 0..5 {
            ev((round * 40 + i) * 8, 4096, QUEUE | READ);
        }
        ev(0, 4096, COMPLETE | READ);
        for i in 0..3 {
            ev((round * 40 + 20 + i) * 8, 8192, QUEUE | WRITE);
        }
        ev(0, 8192, BACKMERGE | WRITE);
        ev(0, 0, QUEUE | FLUSH);
        ev(0, 8192, COMPLETE | WRITE);
    }
    out
}

/// The deepest `iodepth_level` bucket in use.
fn deepest(v: &serde_json::Value) -> String {
    let levels = v["jobs"][0]["iodepth_level"].as_object().unwrap();
    ["1", "2", "4", "8", "16", "32", ">=64"]
        .iter()
        .rev()
        .find(|k| levels[**k].as_f64().unwrap() > 0.0)
        .unwrap()
        .to_string()
}

/// Unless iodepth is given, a trace replays at its own queue depth (fio's probe:
/// the queue events between completions, less merges; here 5, in the "4" bucket),
/// and its flushes are issued as syncs; with iodepth=2 the depth is 2. The header
/// shows the job's own iodepth, as fio's (printed before the trace is read).
#[test]
fn a_trace_replays_at_its_own_depth_unless_iodepth_is_given() {
    let d = scratch();
    let tr = file_in(d.path(), "deep.bin");
    std::fs::write(&tr, deep_trace()).unwrap();
    let data = file_in(d.path(), "data");
    std::fs::File::create(&data)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let (r, w) = (
        format!("--read_iolog={tr}"),
        format!("--replay_redirect={data}"),
    );
    for (extra, want) in [(None, "4"), (Some("--iodepth=2"), "2")] {
        let mut a = vec![
            "--name=bt",
            "--ioengine=libaio",
            r.as_str(),
            w.as_str(),
            "--replay_no_stall=1",
        ];
        a.extend(extra);
        let ours = run_json(&a);
        assert_eq!(deepest(&ours), want, "{extra:?}");
        let syncs = &ours["jobs"][0]["sync"]["total_ios"];
        assert_eq!(syncs.as_u64(), Some(4), "{extra:?}: the flushes");
        let header = String::from_utf8_lossy(&run_ok(&a).stdout).to_string();
        let depth = extra.map_or("iodepth=1", |_| "iodepth=2");
        assert!(header.lines().next().unwrap().ends_with(depth), "{header}");
        if have_fio() {
            let fio = fio_json(&a);
            assert_eq!(deepest(&fio), want, "{extra:?}: fio");
            // (The I/O counts: fio 3.33's io_bytes at depth > 1 fall short of the
            // bytes it replays here, which it gets right at depth 1.)
            for dir in ["read", "write", "trim"] {
                let n = |v: &serde_json::Value| v["jobs"][0][dir]["total_ios"].as_u64();
                assert_eq!(n(&ours), n(&fio), "{dir}");
            }
            assert_eq!(&fio["jobs"][0]["sync"]["total_ios"], syncs);
        }
    }
}

/// A loop device made here, removed when dropped.
struct Loop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl Loop {
    fn new() -> Option<Loop> {
        let dir = scratch();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(1 << 20)
            .unwrap();
        match loopdev::attach(&img) {
            Ok(dev) => Some(Loop { dev, _dir: dir }),
            Err(e) => {
                skip::skip(&e);
                None
            }
        }
    }

    /// Its dev_t as blktrace records it (major << 20 | minor).
    fn trace_dev(&self) -> u32 {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&self.dev).unwrap().rdev();
        let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff);
        let minor = (rdev & 0xff) | ((rdev >> 12) & !0xff);
        (major << 20 | minor) as u32
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        loopdev::detach(&self.dev);
    }
}

/// Without replay_redirect, the trace's device is the block device under /dev with
/// its numbers, as fio finds it (reads only: the loop device is ours, but nothing
/// is written to any device).
#[test]
fn a_traces_device_is_found_by_its_numbers() {
    let Some(lo) = Loop::new() else {
        return;
    };
    let d = scratch();
    let tr = file_in(d.path(), "reads.bin");
    let dev = lo.trace_dev();
    let recs: Vec<u8> = (0..6u64)
        .flat_map(|i| {
            rec(
                1_000 + i * 1_000,
                (5 - i) * 16,
                4096,
                QUEUE | READ,
                dev,
                &[],
            )
        })
        .collect();
    std::fs::write(&tr, recs).unwrap();
    let r = format!("--read_iolog={tr}");
    let a = ["--name=bt", "--ioengine=psync", r.as_str()];
    let ours = ferrio_ios(d.path(), &a);
    let want: Vec<_> = (0..6u64)
        .map(|i| (lo.dev.clone(), 0, (5 - i) * 8192, 4096))
        .collect();
    assert_eq!(ours, want);
    if have_fio() {
        assert_eq!(fio_ios(&a), want);
    }
}

#[test]
fn merge_blktrace_only_writes_the_merged_trace_and_runs_nothing() {
    let d = scratch();
    let a = file_in(d.path(), "a.bin");
    let b = file_in(d.path(), "b.bin");
    std::fs::write(
        &a,
        [
            rec(10_000, 8, 4096, QUEUE | READ, DEV, b"xy"),
            rec(30_000, 16, 4096, QUEUE | WRITE, DEV, &[]),
        ]
        .concat(),
    )
    .unwrap();
    std::fs::write(
        &b,
        [
            rec(5_000, 64, 4096, QUEUE | READ, DEV, &[]),
            rec(20_000, 72, 4096, QUEUE | READ, DEV, &[]),
            rec(25_000, 0, 0, COMPLETE | READ, DEV, &[]),
        ]
        .concat(),
    )
    .unwrap();
    let out = file_in(d.path(), "merged.bin");
    let data = file_in(d.path(), "data");
    std::fs::write(&data, vec![0u8; 64 << 10]).unwrap();
    let r = format!("--read_iolog={a}:{b}");
    let m = format!("--merge_blktrace_file={out}");
    let w = format!("--replay_redirect={data}");
    let args = [
        "--name=m",
        "--ioengine=null",
        r.as_str(),
        m.as_str(),
        w.as_str(),
        "--merge_blktrace_scalars=200:100",
        "--merge_blktrace_iters=1:2",
    ];
    let o = ferrio()
        .arg("--merge-blktrace-only")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.stdout.is_empty(),
        "ran something: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    // A at 200 %: 20 and 60 µs; B twice, its second pass 25 µs (its last record)
    // later: 5, 20, 30, 45. Records in time order, the payloads dropped.
    let bytes = std::fs::read(&out).unwrap();
    let times: Vec<(u64, u64)> = bytes
        .chunks(48)
        .map(|c| {
            (
                u64::from_le_bytes(c[8..16].try_into().unwrap()),
                u64::from_le_bytes(c[16..24].try_into().unwrap()),
            )
        })
        .collect();
    assert_eq!(
        times,
        [
            (5_000, 64),
            (20_000, 8),
            (20_000, 72),
            (30_000, 64),
            (45_000, 72),
            (60_000, 16)
        ]
    );
    assert!(bytes.chunks(48).all(|c| c[46..48] == [0, 0]));
    // The run replays the merged trace.
    let v = run_json(&args);
    assert_eq!(dir_counts(&v, "read"), (5 * 4096, 5));
    assert_eq!(dir_counts(&v, "write"), (4096, 1));
    // A scalar per trace, or none.
    let o = ferrio()
        .arg("--merge-blktrace-only")
        .args(&args[..5])
        .arg("--merge_blktrace_scalars=50")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("merge_blktrace_scalars has 1 values for 2 traces"),
        "{e}"
    );
    // Nothing to merge without read_iolog.
    let o = ferrio()
        .args(["--name=m", "--ioengine=null", "--size=4k", m.as_str()])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("needs read_iolog="),
        "{e}"
    );
}

/// `--debug=blktrace`: each entry the replay stores gives fio's `store ...` line,
/// the same values as fio 3.33's for the same trace (flushes, which ferrio does not
/// issue, left out of both).
#[test]
fn debug_blktrace_stores_the_entries_as_fio_does() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let tr = d.path().join("trace.bin");
    std::fs::write(&tr, trace()).unwrap();
    let data = d.path().join("data");
    std::fs::File::create(&data)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let args = [
        "--name=bt".to_string(),
        "--ioengine=null".to_string(),
        format!("--read_iolog={}", path_str(&tr)),
        format!("--replay_redirect={}", path_str(&data)),
        "--debug=blktrace".to_string(),
    ];
    let stores = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("blktrace"))
            .filter_map(|l| l.split_once(" store ").map(|x| x.1.to_string()))
            .filter(|m| m.starts_with("ddir=") || m.starts_with("discard"))
            .collect()
    };
    let fio = Command::new("fio").args(&args).output().unwrap();
    assert!(fio.status.success(), "{fio:?}");
    let fio = stores(
        &(String::from_utf8_lossy(&fio.stdout).to_string() + &String::from_utf8_lossy(&fio.stderr)),
    );
    let ours = ferrio().args(&args).output().unwrap();
    assert!(ours.status.success(), "{ours:?}");
    let ours = stores(&String::from_utf8_lossy(&ours.stdout));
    assert_eq!(ours.len(), 24, "{ours:?}");
    assert_eq!(ours, fio);
}
