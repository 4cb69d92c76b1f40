//! The chunked reader against the whole-log reader: the same entries, in the same
//! order, loop after loop, with the same files and totals.

use super::super::{load, Cursor, IoLog};
use super::*;
use std::io::Write;

/// A v3 log with several files, file actions, syncs, timestamps (a 0 and a step
/// back among them) and all three directions but trims with reads.
fn v3_log(n: usize) -> String {
    let mut s = String::from("fio version 3 iolog\n0 a add\n0 b add\n5 a open\n9 b open\n");
    let mut t = 10u64;
    for i in 0..n {
        t = if i % 97 == 13 {
            t - 3
        } else {
            t + (i as u64 * 7) % 50
        };
        let f = ["a", "b"][i % 3 % 2];
        let op = ["read", "write"][(i / 2) % 2];
        s += &format!(
            "{t} {f} {op} {} {}\n",
            (i as u64 * 12_289) % 1_000_000,
            512 << (i % 4)
        );
        if i % 11 == 0 {
            s += &format!("{} {f} sync 0 0\n", t + 1);
        }
        if i % 17 == 0 {
            s += "\n";
        }
    }
    s + &format!("{} a close\n{} b close\n", t + 2, t + 3)
}

/// A v2 log with waits and trims, its line endings CRLF.
fn v2_log(n: usize) -> String {
    let mut s = String::from("fio version 2 iolog\r\nx add\r\nx open\r\n");
    for i in 0..n {
        if i % 5 == 0 {
            s += &format!("x wait {} 0\r\n", i * 3);
        }
        s += &format!("x trim {} 4096\r\n", i as u64 * 8192);
    }
    s + "x close\r\n"
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str, gzip: bool) -> String {
    let path = dir.path().join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    if gzip {
        // Two members, as a log appended to as .gz has.
        let (a, b) = text.split_at(text.len() / 2);
        for part in [a, b] {
            let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            z.write_all(part.as_bytes()).unwrap();
            f.write_all(&z.finish().unwrap()).unwrap();
        }
    } else {
        f.write_all(text.as_bytes()).unwrap();
    }
    path.display().to_string()
}

fn chunked(path: &str, logs: &LogSpec, chunk: usize) -> IoLog {
    Chunked::load(path, logs, chunk).unwrap()
}

#[test]
fn chunked_replay_yields_the_whole_logs_entries() {
    let dir = tempfile::tempdir().unwrap();
    let skip_writes = LogSpec {
        replay_skip: 1 << 1,
        ..LogSpec::default()
    };
    let transformed = LogSpec {
        replay_scale: 3,
        replay_align: 4096,
        replay_time_scale: 250,
        replay_redirect: Some("/tmp/elsewhere".into()),
        ..LogSpec::default()
    };
    let no_stall = LogSpec {
        replay_no_stall: true,
        ..LogSpec::default()
    };
    let cases = [
        ("v3", v3_log(1000), false, LogSpec::default()),
        ("v3.gz", v3_log(1000), true, LogSpec::default()),
        ("v3s", v3_log(301), false, skip_writes.clone()),
        ("v3t.gz", v3_log(500), true, transformed),
        ("v2", v2_log(64), false, LogSpec::default()),
        ("v2.gz", v2_log(64), true, no_stall),
        ("one", v3_log(1), false, LogSpec::default()),
    ];
    for (name, text, gzip, logs) in cases {
        let path = write(&dir, name, &text, gzip);
        let whole = load(&path, &logs).unwrap();
        assert!(whole.chunked.is_none());
        let n = whole.entries.len();
        assert!(n > 0, "{name}");
        for chunk in [1, 3, 7, n, n + 5, CHUNK] {
            let log = chunked(&path, &logs, chunk);
            assert!(log.entries.is_empty(), "{name}: no entry is held");
            assert_eq!(log.names, whole.names, "{name}");
            assert_eq!(log.rw_kind(), whole.rw_kind(), "{name}");
            assert_eq!(log.len_range(), whole.len_range(), "{name}");
            assert_eq!(log.bytes(), whole.bytes(), "{name}");
            let regions = |l: &IoLog| {
                l.planned_files()
                    .iter()
                    .map(|f| (f.path.clone(), f.region))
                    .collect::<Vec<_>>()
            };
            assert_eq!(regions(&log), regions(&whole), "{name}");
            // Two and a half passes: the log starts over after its end.
            let mut c = Cursor::new(Arc::new(log));
            let mut w = Cursor::new(Arc::new(whole.clone()));
            for i in 0..(2 * n + n / 2) {
                let e = c.next_entry();
                assert_eq!(e, whole.entries[i % n], "{name}: chunk {chunk}, entry {i}");
                assert_eq!(e, w.next_entry());
                assert_eq!(c.last(), Some(&e));
            }
            // A new loop starts from the first entry, wherever the cursor was.
            c.rewind();
            assert_eq!(c.next_entry(), whole.entries[0], "{name}");
        }
    }
}

#[test]
fn chunked_load_refuses_what_the_whole_load_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let bad = [
        ("notlog", "hello\n"),
        ("badline", "fio version 2 iolog\na add\na read 0\n"),
        ("noio", "fio version 3 iolog\n1 a add\n"),
        ("empty", ""),
    ];
    for (name, text) in bad {
        let path = write(&dir, name, text, false);
        let whole = load(&path, &LogSpec::default()).unwrap_err();
        let part = Chunked::load(&path, &LogSpec::default(), 2).unwrap_err();
        assert_eq!(part, whole, "{name}");
    }
    let path = write(&dir, "reads", "fio version 2 iolog\na read 0 1\n", false);
    let skip = LogSpec {
        replay_skip: 1,
        ..LogSpec::default()
    };
    let part = Chunked::load(&path, &skip, 2).unwrap_err();
    assert_eq!(part, load(&path, &skip).unwrap_err());
    let gone = dir.path().join("missing").display().to_string();
    assert!(Chunked::load(&gone, &skip, 2)
        .unwrap_err()
        .contains("missing"));
}
