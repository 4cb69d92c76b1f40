//! `read_iolog`: replay an I/O log written by fio or ferrio (`write_iolog`), in fio's
//! version 2 or version 3 format (docs/random.md), plain or gzip-compressed. The log
//! names its files ("add"), and every read, write and trim is issued in order with
//! its offset and length.
//!
//! Timing, as fio 3.33's iolog.c: a version 3 line carries a timestamp (µs), and
//! each I/O waits until the log's gap since the line before has passed since the
//! previous I/O started (`replay_time_scale` scales the gaps; a line right after a
//! timestamp of 0 has no gap, as in fio). File actions and syncs, which ferrio does
//! not issue, pass their gaps on to the next I/O. A version 2 `wait` line holds the
//! next I/O until that many ms after the job's start. `replay_no_stall=1` drops all
//! of it. `replay_redirect`, `replay_scale`, `replay_align` and `replay_skip`
//! transform the log as fio does (replay_skip as fio after 3.33, which honours it
//! for iologs too; 3.33 only for blktraces).

use super::pattern::Region;
use super::plan::PlannedFile;
use crate::engine::IoOp;
use crate::sys::file;
use ferrio_config::ext::logs::LogSpec;
use ferrio_config::RwKind;
use std::io::Read;
use std::path::PathBuf;

/// One logged I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub file: usize,
    pub op: IoOp,
    pub offset: u64,
    pub len: u64,
    /// µs to wait after the previous I/O started (timed replay), 0: none.
    pub delay_us: u64,
    /// A version 2 `wait` before it: not before this many ms after the job started.
    pub at_ms: Option<u64>,
}

/// A parsed log: its files in order of appearance and its I/Os.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IoLog {
    pub names: Vec<String>,
    pub entries: Vec<Entry>,
}

impl IoLog {
    pub fn parse(text: &str, origin: &str) -> Result<IoLog, String> {
        let mut lines = text.lines().enumerate();
        let version = match lines.next().map(|(_, l)| l.trim()) {
            Some("fio version 2 iolog") => 2,
            Some("fio version 3 iolog") => 3,
            other => {
                return Err(format!(
                    "read_iolog={origin}: not an fio iolog (first line {other:?}; expected 'fio version 2 iolog' or 'fio version 3 iolog')"
                ))
            }
        };
        let mut log = IoLog::default();
        // Timing: the last line's timestamp (v3), the gap carried by lines that are
        // not issued, a v2 wait for the next I/O.
        let (mut last_t, mut carried, mut wait_ms) = (0u64, 0u64, None);
        for (n, line) in lines {
            let mut f: Vec<&str> = line.split_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            let bad = |why: &str| format!("read_iolog={origin}: line {}: {why}: '{line}'", n + 1);
            let mut gap = 0;
            if version == 3 {
                let t = f[0]
                    .parse::<u64>()
                    .map_err(|_| bad("expected a timestamp first"))?;
                // fio's delay_since_ttime: no gap after a 0 or backwards.
                if last_t != 0 && t >= last_t {
                    gap = t - last_t;
                }
                last_t = t;
                f.remove(0);
            }
            if f.len() < 2 {
                return Err(bad("expected '<file> <action> [<offset> <length>]'"));
            }
            let name = f[0];
            let idx = match log.names.iter().position(|x| x == name) {
                Some(i) => i,
                None => {
                    log.names.push(name.to_string());
                    log.names.len() - 1
                }
            };
            let op = match f[1] {
                // Not issued by ferrio: the gap waits with the next I/O. (The sync
                // actions are spelled by suffix: the runner never names an engine, and
                // one engine shares the action's name.)
                "add" | "open" | "close" => {
                    carried += gap;
                    continue;
                }
                a if matches!(a.strip_suffix("ync"), Some("s" | "datas")) => {
                    carried += gap;
                    continue;
                }
                // v3 ignores waits (fio says so); v2: until <offset> ms after the start.
                "wait" if version == 3 => continue,
                "wait" => {
                    let ms = f.get(2).and_then(|v| v.parse::<u64>().ok());
                    let ms = ms.ok_or_else(|| bad("expected '<file> wait <ms> <length>'"))?;
                    wait_ms = Some(wait_ms.map_or(ms, |w: u64| w.max(ms)));
                    continue;
                }
                "read" => IoOp::Read,
                "write" => IoOp::Write,
                "trim" => IoOp::Trim,
                other => return Err(bad(&format!("unknown action '{other}' (read, write, trim, sync, datasync, add, open, close, wait)"))),
            };
            if f.len() != 4 {
                return Err(bad("expected '<file> <action> <offset> <length>'"));
            }
            let offset = f[2].parse().map_err(|_| bad("bad offset"))?;
            let len: u64 = f[3].parse().map_err(|_| bad("bad length"))?;
            if len == 0 {
                return Err(bad("length 0"));
            }
            log.entries.push(Entry {
                file: idx,
                op,
                offset,
                len,
                delay_us: carried + gap,
                at_ms: wait_ms.take(),
            });
            carried = 0;
        }
        if log.entries.is_empty() {
            return Err(format!("read_iolog={origin}: the log has no I/O to replay"));
        }
        Ok(log)
    }

    /// The rw mode that issues the log's directions (None: trims mixed with others).
    pub fn rw_kind(&self) -> Option<RwKind> {
        let has = |op| self.entries.iter().any(|e| e.op == op);
        match (has(IoOp::Read), has(IoOp::Write), has(IoOp::Trim)) {
            (_, _, true) if has(IoOp::Read) || has(IoOp::Write) => None,
            (_, _, true) => Some(RwKind::Trim),
            (true, true, _) => Some(RwKind::ReadWrite),
            (false, true, _) => Some(RwKind::Write),
            _ => Some(RwKind::Read),
        }
    }

    /// Shortest and longest logged I/O.
    pub fn len_range(&self) -> (u64, u64) {
        let lens = self.entries.iter().map(|e| e.len);
        (lens.clone().min().unwrap_or(1), lens.max().unwrap_or(1))
    }

    /// Bytes of all logged I/Os.
    pub fn bytes(&self) -> u64 {
        self.entries.iter().map(|e| e.len).sum()
    }

    /// The files to open: each covers up to its last logged byte.
    pub fn planned_files(&self) -> Vec<PlannedFile> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let end = self
                    .entries
                    .iter()
                    .filter(|e| e.file == i)
                    .map(|e| e.offset + e.len)
                    .max()
                    .unwrap_or(0);
                let path = PathBuf::from(name);
                PlannedFile {
                    block_device: file::is_block_device(&path),
                    device: file::is_device(&path),
                    path,
                    region: Region { start: 0, len: end },
                    tail: 0,
                }
            })
            .collect()
    }
}

/// Read and parse a log file (gunzipped when it is gzip data), applying the replay
/// options.
pub fn load(path: &str, logs: &LogSpec) -> Result<IoLog, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("read_iolog={path}: {e}"))?;
    let text = text_of(bytes).map_err(|e| format!("read_iolog={path}: {e}"))?;
    let mut log = IoLog::parse(&text, path)?;
    log.transform(logs);
    if log.entries.is_empty() {
        return Err(format!(
            "read_iolog={path}: replay_skip leaves no I/O to replay"
        ));
    }
    Ok(log)
}

/// The log's text: gzip data (by its magic, whatever the name) is decompressed,
/// every member of it (a log appended to as .gz has several).
fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| format!("gzip: {e}"))?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|_| "not text (nor gzip-compressed text)".to_string())
}

impl IoLog {
    /// fio's replay options: offsets divided by replay_scale, then aligned down to
    /// replay_align; with replay_redirect every I/O goes to that one file.
    pub fn transform(&mut self, logs: &LogSpec) {
        // replay_skip: the entries go, and their gaps with them (fio computes a
        // line's gap from the line before it, skipped or not).
        self.entries
            .retain(|e| logs.replay_skip & (1 << ddir_bit(e.op)) == 0);
        let scale = logs.replay_time_scale.max(1);
        for e in &mut self.entries {
            if logs.replay_no_stall {
                e.delay_us = 0;
                e.at_ms = None;
            } else if scale != 100 {
                e.delay_us = (e.delay_us as f64 * (100.0 / scale as f64)) as u64;
            }
            e.offset /= logs.replay_scale.max(1);
            if logs.replay_align > 0 {
                e.offset &= !(logs.replay_align - 1);
            }
            if logs.replay_redirect.is_some() {
                e.file = 0;
            }
        }
        if let Some(target) = &logs.replay_redirect {
            self.names = vec![target.clone()];
        }
    }
}

/// fio's ddir number of a logged I/O (replay_skip's bits).
fn ddir_bit(op: IoOp) -> u8 {
    match op {
        IoOp::Read => 0,
        IoOp::Write => 1,
        IoOp::Trim => 2,
        IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_v2_and_v3() {
        let v3 = "fio version 3 iolog\n1 a add\n2 a open\n3 a write 4096 512\n4 b read 0 8192\n5 a sync\n6 a close\n";
        let log = IoLog::parse(v3, "x").unwrap();
        assert_eq!(log.names, ["a", "b"]);
        assert_eq!(
            log.entries,
            [
                Entry {
                    file: 0,
                    op: IoOp::Write,
                    offset: 4096,
                    len: 512,
                    delay_us: 2,
                    at_ms: None,
                },
                Entry {
                    file: 1,
                    op: IoOp::Read,
                    offset: 0,
                    len: 8192,
                    delay_us: 1,
                    at_ms: None,
                },
            ]
        );
        assert_eq!(log.bytes(), 8704);
        assert_eq!(
            log.planned_files()[0].region,
            Region {
                start: 0,
                len: 4608
            }
        );
        let v2 = "fio version 2 iolog\na add\na open\na trim 0 4096\na close\n";
        assert_eq!(IoLog::parse(v2, "x").unwrap().entries[0].op, IoOp::Trim);
    }

    #[test]
    fn replay_options_transform_offsets_and_files() {
        let v2 = "fio version 2 iolog\na add\nb add\na read 10000 512\nb write 8191 512\n";
        let mut log = IoLog::parse(v2, "x").unwrap();
        let logs = LogSpec {
            replay_scale: 2,
            replay_align: 4096,
            replay_redirect: Some("/dev/null".into()),
            ..LogSpec::default()
        };
        log.transform(&logs);
        assert_eq!(log.names, ["/dev/null"]);
        assert_eq!(
            log.entries
                .iter()
                .map(|e| (e.file, e.offset))
                .collect::<Vec<_>>(),
            [(0, 4096), (0, 0)]
        );
    }

    #[test]
    fn refuses_what_it_cannot_replay() {
        assert!(IoLog::parse("hello\n", "x")
            .unwrap_err()
            .contains("not an fio iolog"));
        let e = IoLog::parse("fio version 2 iolog\na read 0\n", "x").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let e = IoLog::parse("fio version 2 iolog\na frobnicate 0 1\n", "x").unwrap_err();
        assert!(e.contains("unknown action 'frobnicate'"), "{e}");
        assert!(IoLog::parse("fio version 3 iolog\n1 a add\n", "x").is_err());
    }
}
