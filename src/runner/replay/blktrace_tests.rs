//! Unit tests of block-trace reading and merging, on traces written here record
//! by record from the kernel's `blk_io_trace` layout.

use super::*;

const DEV: u32 = 8 << 20 | 16;
const Q: u32 = act::QUEUE | 1 << 20; // a queue event (BLK_TC_QUEUE category)
const COMPLETE: u32 = 8 | 1 << 23;

fn rec(time: u64, sector: u64, bytes: u32, action: u32, pdu: &[u8]) -> Vec<u8> {
    let t = Trace {
        magic: MAGIC | VERSION,
        sequence: 0,
        time,
        sector,
        bytes,
        action,
        pid: 1,
        device: DEV,
        cpu: 0,
        error: 0,
        pdu_len: pdu.len() as u16,
    };
    let mut v = t.to_bytes().to_vec();
    v.extend_from_slice(pdu);
    v
}

fn write(dir: &Path, name: &str, recs: &[Vec<u8>]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, recs.concat()).unwrap();
    p.display().to_string()
}

fn redirected() -> LogSpec {
    LogSpec {
        replay_redirect: Some("/tmp/target".into()),
        ..LogSpec::default()
    }
}

/// A read, its completion, a write with a payload, a flush, a discard, a notify and
/// a read: (time µs, sector, bytes).
fn sample() -> Vec<Vec<u8>> {
    vec![
        rec(1_000, 0, 4096, Q | act::READ, &[]),
        rec(3_000, 0, 4096, COMPLETE | act::READ, &[]),
        rec(5_000, 64, 8192, Q | act::WRITE, b"pdu!"),
        rec(9_500, 0, 0, Q | act::FLUSH | act::WRITE, &[]),
        rec(12_000, 128, 4096, Q | act::DISCARD | act::WRITE, &[]),
        rec(15_000, 0, 0, Q | act::NOTIFY, b"process"),
        rec(20_000, 8, 1000, Q | act::READ, &[]),
    ]
}

fn ios(log: &IoLog) -> Vec<(IoOp, u64, u64, u64)> {
    log.entries
        .iter()
        .map(|e| (e.op, e.offset, e.len, e.delay_us))
        .collect()
}

#[test]
fn records_read_back_in_either_byte_order() {
    let d = tempfile::tempdir().unwrap();
    let r = rec(7, 9, 4096, Q | act::READ, &[]);
    let t = Trace::from_bytes(r[..RECORD].try_into().unwrap(), false);
    assert_eq!((t.time, t.sector, t.bytes, t.device), (7, 9, 4096, DEV));
    // The same record big-endian: every field reversed.
    let mut be = Vec::new();
    for (at, n) in [
        (0, 4),
        (4, 4),
        (8, 8),
        (16, 8),
        (24, 4),
        (28, 4),
        (32, 4),
        (36, 4),
        (40, 4),
        (44, 2),
        (46, 2),
    ] {
        be.extend(r[at..at + n].iter().rev());
    }
    assert_eq!(Trace::from_bytes(be[..].try_into().unwrap(), true), t);
    let le = write(d.path(), "le", std::slice::from_ref(&r));
    let be = write(d.path(), "be", &[be]);
    assert_eq!(detect(Path::new(&le)), Some(false));
    assert_eq!(detect(Path::new(&be)), Some(true));
    // Text, gzip and short files are not traces.
    let text = write(
        d.path(),
        "t",
        &[b"fio version 3 iolog\n0 f add\n0 f open\n1 f read 0 4096\n".to_vec()],
    );
    assert_eq!(detect(Path::new(&text)), None);
    let short = write(d.path(), "s", &[r[..40].to_vec()]);
    assert_eq!(detect(Path::new(&short)), None);
}

#[test]
fn queue_events_replay_with_fios_gaps() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.bin", &sample());
    let log = load(&p, &redirected(), false).unwrap();
    assert_eq!(log.names, ["/tmp/target"]);
    // Gaps from one queue event to the next (the completion is not one; the first
    // has none), truncated per event to whole µs as fio's. The flush is an fsync
    // with its own gap. The notify is not timed.
    assert_eq!(
        ios(&log),
        [
            (IoOp::Read, 0, 4096, 0),
            (IoOp::Write, 32768, 8192, 4),
            (IoOp::Fsync, 0, 0, 4),
            (IoOp::Trim, 65536, 4096, 2),
            (IoOp::Read, 4096, 1000, 8),
        ]
    );
    // fio's --debug=blktrace lines for them.
    assert_eq!(
        debug_store(&log.entries[1]),
        "store ddir=1, off=32768, len=8192, delay=4"
    );
    assert_eq!(debug_store(&log.entries[2]), "store flush delay=4");
    assert_eq!(
        debug_store(&log.entries[3]),
        "store discard, off=65536, len=4096, delay=2"
    );
    // The same trace big-endian reads the same.
    let swapped: Vec<Vec<u8>> = sample()
        .iter()
        .map(|r| {
            let t = Trace::from_bytes(r[..RECORD].try_into().unwrap(), false);
            let mut be = Vec::new();
            for (v, n) in [
                (u64::from(t.magic), 4),
                (0, 4),
                (t.time, 8),
                (t.sector, 8),
                (u64::from(t.bytes), 4),
                (u64::from(t.action), 4),
                (1, 4),
                (u64::from(t.device), 4),
                (0, 4),
                (0, 2),
                (u64::from(t.pdu_len), 2),
            ] {
                be.extend_from_slice(&v.to_be_bytes()[8 - n..]);
            }
            be.extend_from_slice(&r[RECORD..]);
            be
        })
        .collect();
    let q = write(d.path(), "be.bin", &swapped);
    assert_eq!(detect(Path::new(&q)), Some(true));
    assert_eq!(load(&q, &redirected(), true).unwrap().entries, log.entries);
}

#[test]
fn replay_options_apply_as_fio_applies_them_to_traces() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.bin", &sample());
    let with = |f: &dyn Fn(&mut LogSpec)| {
        let mut l = redirected();
        f(&mut l);
        ios(&load(&p, &l, false).unwrap())
    };
    // replay_scale divides offsets, replay_align aligns them down and lengths up.
    let v = with(&|l| {
        l.replay_scale = 3;
        l.replay_align = 4096;
    });
    assert_eq!(
        v.iter().map(|x| (x.1, x.2)).collect::<Vec<_>>(),
        [(0, 4096), (8192, 8192), (0, 0), (20480, 4096), (0, 4096)]
    );
    // replay_time_scale=50: gaps twice as long; replay_no_stall: none.
    let v = with(&|l| l.replay_time_scale = 50);
    assert_eq!(v.iter().map(|x| x.3).collect::<Vec<_>>(), [0, 8, 9, 5, 16]);
    let v = with(&|l| l.replay_no_stall = true);
    assert!(v.iter().all(|x| x.3 == 0));
    // replay_skip=write,sync: the write and the flush go with their gaps.
    let v = with(&|l| l.replay_skip = 0b1010);
    assert_eq!(
        v.iter().map(|x| (x.0, x.3)).collect::<Vec<_>>(),
        [(IoOp::Read, 0), (IoOp::Trim, 2), (IoOp::Read, 8)]
    );
    let e = load(
        &p,
        &LogSpec {
            replay_skip: 0b1111,
            ..redirected()
        },
        false,
    )
    .unwrap_err();
    assert!(e.contains("replay_skip leaves no I/O"), "{e}");
}

#[test]
fn bad_traces_are_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    let mut v6 = rec(1, 0, 4096, Q | act::READ, &[]);
    v6[0] = 6;
    let p = write(d.path(), "v6", &[v6]);
    let e = load(&p, &redirected(), false).unwrap_err();
    assert!(e.contains("blktrace version 6") && e.contains(&p), "{e}");
    let p = write(
        d.path(),
        "done",
        &[rec(1, 0, 4096, COMPLETE | act::READ, &[])],
    );
    let e = load(&p, &redirected(), false).unwrap_err();
    assert!(e.contains("found no I/O"), "{e}");
    let mut cut = sample().concat();
    cut.truncate(cut.len() - 8);
    let p = write(d.path(), "cut", &[cut]);
    assert!(load(&p, &redirected(), false)
        .unwrap_err()
        .contains("ends inside a record"));
    // Without replay_redirect the device is looked up under /dev: 4095:1048575
    // exists nowhere.
    let mut r = rec(1, 0, 4096, Q | act::READ, &[]);
    r[36..40].copy_from_slice(&u32::MAX.to_le_bytes());
    let p = write(d.path(), "nodev", &[r]);
    let e = load(&p, &LogSpec::default(), false).unwrap_err();
    assert!(
        e.contains("no block device 4095:1048575 under /dev") && e.contains("replay_redirect"),
        "{e}"
    );
}

fn merged(out: &str) -> Vec<(u64, u64)> {
    let b = std::fs::read(out).unwrap();
    assert_eq!(b.len() % RECORD, 0);
    b.chunks(RECORD)
        .map(|c| {
            let t = Trace::from_bytes(c.try_into().unwrap(), false);
            assert_eq!(t.pdu_len, 0);
            (t.time, t.sector)
        })
        .collect()
}

#[test]
fn merging_interleaves_scales_and_repeats_the_traces() {
    let d = tempfile::tempdir().unwrap();
    // A: queue events at 10, 30 (+ a completion at 40, which ends its pass);
    // B: 5, 20, 25 and a flush (no direction: left out of the merge).
    let a = write(
        d.path(),
        "a",
        &[
            rec(10, 1, 512, Q | act::READ, b"xx"),
            rec(30, 2, 512, Q | act::WRITE, &[]),
            rec(40, 2, 512, COMPLETE | act::WRITE, &[]),
        ],
    );
    let b = write(
        d.path(),
        "b",
        &[
            rec(5, 11, 512, Q | act::READ, &[]),
            rec(20, 12, 512, Q | act::DISCARD, &[]),
            rec(22, 0, 0, Q | act::FLUSH, &[]),
            rec(25, 13, 512, Q | act::READ, &[]),
        ],
    );
    let out = d.path().join("m").display().to_string();
    let inputs = format!("{a}:{b}");
    let mut l = LogSpec::default();
    merge(&inputs, &l, &out).unwrap();
    assert_eq!(
        merged(&out),
        [(5, 11), (10, 1), (20, 12), (25, 13), (30, 2)]
    );
    // A at 50 % twice (its second pass 40 later), B once.
    l.merge.scalars = vec![50, 100];
    l.merge.iters = vec![2, 1];
    merge(&inputs, &l, &out).unwrap();
    assert_eq!(
        merged(&out),
        [
            (5, 1),
            (5, 11),
            (15, 2),
            (20, 12),
            (25, 1),
            (25, 13),
            (35, 2)
        ]
    );
    // The merged file replays like any trace.
    let log = load(&out, &redirected(), false).unwrap();
    assert_eq!(log.entries.len(), 7);
    l.merge.iters = vec![2];
    let e = merge(&inputs, &l, &out).unwrap_err();
    assert!(
        e.contains("merge_blktrace_iters has 1 values for 2 traces"),
        "{e}"
    );
    l.merge.iters.clear();
    let text = write(d.path(), "text", &[b"fio version 3 iolog\n".repeat(4)]);
    let e = merge(&format!("{a}:{text}"), &l, &out).unwrap_err();
    assert!(e.contains("is not a blktrace"), "{e}");
}

#[test]
fn the_depth_is_fios_probe_of_the_trace() {
    let d = tempfile::tempdir().unwrap();
    let merge = act::BACKMERGE | (1 << 20);
    let depth = |recs: &[Vec<u8>]| {
        let p = write(d.path(), "d.bin", recs);
        load(&p, &redirected(), false).unwrap().depth
    };
    // Three reads queued before a completion; two writes, one merged: depth 3.
    let mut recs: Vec<Vec<u8>> = (0..3)
        .map(|i| rec(10 + i, i * 8, 4096, Q | act::READ, &[]))
        .collect();
    recs.push(rec(20, 0, 4096, COMPLETE | act::READ, &[]));
    recs.push(rec(30, 64, 4096, Q | act::WRITE, &[]));
    recs.push(rec(31, 72, 4096, Q | act::WRITE, &[]));
    recs.push(rec(32, 72, 4096, merge | act::WRITE, &[]));
    recs.push(rec(40, 64, 8192, COMPLETE | act::WRITE, &[]));
    assert_eq!(depth(&recs), Some(3));
    // No completion at all: 1 for a direction with I/O.
    assert_eq!(depth(&recs[..3]), Some(1));
}
