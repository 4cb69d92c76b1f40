//! `read_iolog`: replay an I/O log written by fio or ferrio (`write_iolog`), in fio's
//! version 2 or version 3 format (docs/random.md), plain or gzip-compressed. The log
//! names its files ("add"), and every read, write and trim is issued in order with
//! its offset and length.
//!
//! Timing, as fio 3.33's iolog.c: a version 3 line carries a timestamp (µs), and
//! each I/O waits until the log's gap since the line before has passed since the
//! previous I/O started (`replay_time_scale` scales the gaps; a line right after a
//! timestamp of 0 has no gap, as in fio). File actions, which issue nothing, pass
//! their gaps on to the next I/O; syncs are issued (fsync, fdatasync) as fio's. A version 2 `wait` line holds the
//! next I/O until that many ms after the job's start. `replay_no_stall=1` drops all
//! of it. `replay_redirect`, `replay_scale`, `replay_align` and `replay_skip`
//! transform the log as fio does (replay_skip as fio after 3.33, which honours it
//! for iologs too; 3.33 only for blktraces).
//!
//! A blktrace (binary, told by its magic) is read by `blktrace`, whole, with fio's
//! rules for traces; `merge_blktrace_file` merges several into one first.
//!
//! The log is parsed whole into memory, or with `read_iolog_chunked=1` read a chunk
//! of entries at a time as the replay goes on (`stream`); both go through the same
//! line `Parser` and replay options.

use super::region::{PlannedFile, Region};
use crate::engine::IoOp;
use crate::sys::file;
use ferrio_config::ext::logs::LogSpec;
use ferrio_config::RwKind;
use std::io::Read;
use std::path::PathBuf;

pub mod blktrace;
mod stream;
pub use stream::Cursor;

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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IoLog {
    pub names: Vec<String>,
    /// The I/Os, all of them; empty when the log is read in chunks.
    pub entries: Vec<Entry>,
    /// read_iolog_chunked=1: the replay reads the log again, a chunk at a time.
    pub chunked: Option<stream::Chunked>,
    /// The job's own block sizes (min, max per direction) and iodepth, before the
    /// log's replaced them: fio's job header shows these.
    pub job_bs: Option<([(u64, u64); 3], u32)>,
    /// A blktrace's queue depth (fio's probe): the replay's iodepth unless given.
    pub depth: Option<u32>,
}

/// The line-by-line parser of a log, the same for a whole log and a chunked one: it
/// keeps the files named so far and the timing carried between lines. Lines are
/// split in place and file names found through a map (a long log of many files
/// parses in time linear in its length, with no allocation per line).
pub(crate) struct Parser {
    version: u8,
    origin: String,
    pub names: Vec<String>,
    /// Each name's index in `names`, and the last one found (logs name the same
    /// file line after line).
    index: std::collections::HashMap<String, usize>,
    last_file: usize,
    /// The last line's timestamp (v3), the gap carried by lines that are not
    /// issued, a v2 wait for the next I/O.
    last_t: u64,
    carried: u64,
    wait_ms: Option<u64>,
}

/// At most this many fields of a line are looked at (v3: time, file, action,
/// offset, length; one more tells a line that has too many).
const FIELDS: usize = 6;

impl Parser {
    /// A parser for the log whose first line is `first`.
    pub fn new(first: Option<&str>, origin: &str) -> Result<Parser, String> {
        let version = match first.map(str::trim) {
            Some("fio version 2 iolog") => 2,
            Some("fio version 3 iolog") => 3,
            other => {
                return Err(format!(
                    "read_iolog={origin}: not an fio iolog (first line {other:?}; expected 'fio version 2 iolog' or 'fio version 3 iolog')"
                ))
            }
        };
        Ok(Parser {
            version,
            origin: origin.to_string(),
            names: Vec::new(),
            index: Default::default(),
            last_file: 0,
            last_t: 0,
            carried: 0,
            wait_ms: None,
        })
    }

    /// The index of file `name`, added when new.
    fn file(&mut self, name: &str) -> usize {
        if self.names.get(self.last_file).is_some_and(|n| n == name) {
            return self.last_file;
        }
        self.last_file = match self.index.get(name) {
            Some(&i) => i,
            None => {
                self.names.push(name.to_string());
                self.index.insert(name.to_string(), self.names.len() - 1);
                self.names.len() - 1
            }
        };
        self.last_file
    }

    /// Line number `n` (1-based) of the log: the I/O (or sync) it issues, if any.
    pub fn line(&mut self, n: usize, line: &str) -> Result<Option<Entry>, String> {
        let mut all = [""; FIELDS];
        let count = fields(line, &mut all);
        if count == 0 {
            return Ok(None);
        }
        let origin = &self.origin;
        let bad = |why: &str| format!("read_iolog={origin}: line {n}: {why}: '{line}'");
        let mut gap = 0;
        let mut f = &all[..count];
        if self.version == 3 {
            let t = number(f[0]).ok_or_else(|| bad("expected a timestamp first"))?;
            // fio's delay_since_ttime: no gap after a 0 or backwards.
            if self.last_t != 0 && t >= self.last_t {
                gap = t - self.last_t;
            }
            self.last_t = t;
            f = &f[1..];
        }
        if f.len() < 2 {
            return Err(bad("expected '<file> <action> [<offset> <length>]'"));
        }
        let issued = IoOp::of_iolog_action(f[1]);
        let op = match (f[1], issued) {
            // Not issued: the gap waits with the next I/O.
            ("add" | "open" | "close", _) => {
                self.file(f[0]);
                self.carried += gap;
                return Ok(None);
            }
            // fio issues a sync with its offset and length (fsync or fdatasync); one
            // without them it refuses and passes over (its gap goes on).
            (_, Some(op)) if is_sync(op) && f.len() != 4 => {
                self.file(f[0]);
                self.carried += gap;
                return Ok(None);
            }
            (_, Some(op)) => op,
            // v3 ignores waits (fio says so); v2: until <offset> ms after the start.
            ("wait", _) if self.version == 3 => return Ok(None),
            ("wait", _) => {
                let ms = f.get(2).and_then(|v| v.parse::<u64>().ok());
                let ms = ms.ok_or_else(|| bad("expected '<file> wait <ms> <length>'"))?;
                self.wait_ms = Some(self.wait_ms.map_or(ms, |w: u64| w.max(ms)));
                return Ok(None);
            }
            (other, None) => return Err(bad(&format!("unknown action '{other}' (read, write, trim, sync, datasync, add, open, close, wait)"))),
        };
        if f.len() != 4 {
            return Err(bad("expected '<file> <action> <offset> <length>'"));
        }
        let offset = number(f[2]).ok_or_else(|| bad("bad offset"))?;
        let len = number(f[3]).ok_or_else(|| bad("bad length"))?;
        if len == 0 && !is_sync(op) {
            return Err(bad("length 0"));
        }
        let e = Entry {
            file: self.file(f[0]),
            op,
            offset,
            len,
            delay_us: self.carried + gap,
            at_ms: self.wait_ms.take(),
        };
        self.carried = 0;
        Ok(Some(e))
    }
}

/// Split `line` at ASCII whitespace into `out` (the first FIELDS words); how many.
fn fields<'a>(line: &'a str, out: &mut [&'a str; FIELDS]) -> usize {
    let b = line.as_bytes();
    let (mut i, mut n) = (0, 0);
    // (ASCII whitespace spelled out: no call per byte, even in a debug build.)
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0c);
    while n < FIELDS {
        while i < b.len() && space(b[i]) {
            i += 1;
        }
        if i == b.len() {
            break;
        }
        let start = i;
        while i < b.len() && !space(b[i]) {
            i += 1;
        }
        out[n] = &line[start..i];
        n += 1;
    }
    n
}

/// A decimal number of a log line (what `str::parse::<u64>` takes, without its
/// call per digit in a debug build); None when it is not one or overflows.
fn number(word: &str) -> Option<u64> {
    let digits = word.strip_prefix('+').unwrap_or(word).as_bytes();
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

/// A logged sync (fsync or fdatasync): issued, but no data and no direction.
pub(crate) fn is_sync(op: IoOp) -> bool {
    matches!(op, IoOp::Fsync | IoOp::Fdatasync)
}

impl IoLog {
    /// A log of these I/Os, held whole (the verify read-back replays its pieces so).
    pub fn from_entries(names: Vec<String>, entries: Vec<Entry>) -> IoLog {
        IoLog {
            names,
            entries,
            chunked: None,
            job_bs: None,
            depth: None,
        }
    }

    pub fn parse(text: &str, origin: &str) -> Result<IoLog, String> {
        let mut lines = text.lines().enumerate();
        let mut parser = Parser::new(lines.next().map(|(_, l)| l), origin)?;
        let mut log = IoLog::default();
        for (n, line) in lines {
            if let Some(e) = parser.line(n + 1, line)? {
                log.entries.push(e);
            }
        }
        log.names = parser.names;
        if log.entries.iter().all(|e| is_sync(e.op)) {
            return Err(format!("read_iolog={origin}: the log has no I/O to replay"));
        }
        Ok(log)
    }

    /// What the planner needs of the log's I/Os (kept from the first pass when the
    /// log is read in chunks).
    fn summary(&self) -> Summary {
        match &self.chunked {
            Some(c) => c.summary.clone(),
            None => {
                let mut s = Summary::default();
                self.entries.iter().for_each(|e| s.add(e));
                s
            }
        }
    }

    /// The rw mode that issues the log's directions.
    pub fn rw_kind(&self) -> RwKind {
        let [read, write, trim] = self.summary().has;
        match (read, write, trim) {
            // Trims with other I/O: a mode that opens the files for writing; the
            // engine learns the log's own directions (`directions`).
            (true, _, true) => RwKind::ReadWrite,
            (false, true, true) => RwKind::TrimWrite,
            (_, _, true) => RwKind::Trim,
            (true, true, _) => RwKind::ReadWrite,
            (false, true, _) => RwKind::Write,
            _ => RwKind::Read,
        }
    }

    /// Which of read, write, trim the log issues.
    pub fn directions(&self) -> [bool; 3] {
        self.summary().has
    }

    /// Shortest and longest logged I/O.
    pub fn len_range(&self) -> (u64, u64) {
        let s = self.summary();
        if s.count == 0 {
            return (1, 1);
        }
        (s.min_len, s.max_len)
    }

    /// Shortest and longest logged I/O of each direction (read, write, trim), as
    /// fio's replay grows each direction's max_bs from its own entries. A direction
    /// the log does not issue gets the range of its reads and writes (else of all),
    /// so a log's huge trims never size a read or write buffer.
    pub fn len_ranges(&self) -> [(u64, u64); 3] {
        let s = self.summary();
        let rw = match s.by_dir {
            [Some(a), Some(b), _] => Some((a.0.min(b.0), a.1.max(b.1))),
            [a, b, _] => a.or(b),
        };
        let fallback = rw.unwrap_or_else(|| self.len_range());
        s.by_dir.map(|r| r.unwrap_or(fallback))
    }

    /// Bytes of all logged I/Os.
    pub fn bytes(&self) -> u64 {
        self.summary().bytes
    }

    /// The files to open: each covers up to its last logged byte.
    pub fn planned_files(&self) -> Vec<PlannedFile> {
        let s = self.summary();
        self.names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let end = s.ends.get(i).copied().unwrap_or(0);
                let path = PathBuf::from(name);
                PlannedFile {
                    block_device: file::is_block_device(&path),
                    device: file::is_device(&path),
                    path,
                    region: Region { start: 0, len: end },
                    tail: 0,
                    beyond: 0,
                }
            })
            .collect()
    }
}

/// A log's totals: its directions, I/O sizes and each file's end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Whether it reads, writes, trims.
    has: [bool; 3],
    min_len: u64,
    max_len: u64,
    /// Per direction (read, write, trim): the shortest and longest I/O, when any.
    by_dir: [Option<(u64, u64)>; 3],
    bytes: u64,
    count: u64,
    /// Per file (by index): one past its last logged byte.
    ends: Vec<u64>,
}

impl Summary {
    fn add(&mut self, e: &Entry) {
        if is_sync(e.op) {
            // A sync moves no data: the job's directions, sizes and files are the
            // data I/Os'.
            return;
        }
        let d = match e.op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            _ => 2,
        };
        self.has[d] = true;
        self.min_len = if self.count == 0 {
            e.len
        } else {
            self.min_len.min(e.len)
        };
        self.max_len = self.max_len.max(e.len);
        self.by_dir[d] = Some(match self.by_dir[d] {
            Some((lo, hi)) => (lo.min(e.len), hi.max(e.len)),
            None => (e.len, e.len),
        });
        self.bytes += e.len;
        self.count += 1;
        if self.ends.len() <= e.file {
            self.ends.resize(e.file + 1, 0);
        }
        self.ends[e.file] = self.ends[e.file].max(e.offset + e.len);
    }
}

/// Read and parse a log file (gunzipped when it is gzip data), applying the replay
/// options. With read_iolog_chunked=1 the log is only read through here (its files,
/// directions and sizes noted) and the replay reads it again a chunk at a time.
pub fn load(path: &str, logs: &LogSpec) -> Result<IoLog, String> {
    // A blktrace (by its magic), or several merged into one first: read whole.
    if let Some(out) = &logs.merge.file {
        blktrace::merge(path, logs, out)?;
        let swap = blktrace::detect(std::path::Path::new(out)).ok_or_else(|| {
            format!(
                "merge_blktrace_file={out}: the traces in read_iolog={path} have no I/O to merge"
            )
        })?;
        return blktrace::load(out, logs, swap);
    }
    if let Some(swap) = blktrace::detect(std::path::Path::new(path)) {
        return blktrace::load(path, logs, swap);
    }
    if logs.read_iolog_chunked {
        return stream::Chunked::load(path, logs, stream::CHUNK);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("read_iolog={path}: {e}"))?;
    let text = text_of(bytes).map_err(|e| format!("read_iolog={path}: {e}"))?;
    let mut log = IoLog::parse(&text, path)?;
    log.transform(logs);
    if log.entries.iter().all(|e| is_sync(e.op)) {
        return Err(skipped_all(path));
    }
    Ok(log)
}

fn skipped_all(path: &str) -> String {
    format!("read_iolog={path}: replay_skip leaves no I/O to replay")
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
        self.entries = std::mem::take(&mut self.entries)
            .into_iter()
            .filter_map(|e| transform_entry(e, logs))
            .collect();
        if let Some(target) = &logs.replay_redirect {
            self.names = vec![target.clone()];
        }
    }
}

/// One entry as the replay options make it; None when replay_skip drops it (its gap
/// goes with it: fio computes a line's gap from the line before it, skipped or not).
fn transform_entry(mut e: Entry, logs: &LogSpec) -> Option<Entry> {
    if logs.replay_skip & (1 << ddir_bit(e.op)) != 0 {
        return None;
    }
    let scale = logs.replay_time_scale.max(1);
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
    Some(e)
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
    fn block_sizes_per_direction() {
        let v2 =
            "fio version 2 iolog\na add\na trim 0 1073741824\na write 0 4096\na write 4096 512\n";
        let log = IoLog::parse(v2, "x").unwrap();
        assert_eq!(log.len_range(), (512, 1 << 30));
        // The trims' 1 GiB stays the trims' own; reads take the writes' range.
        assert_eq!(
            log.len_ranges(),
            [(512, 4096), (512, 4096), (1 << 30, 1 << 30)]
        );
        let trims = IoLog::parse("fio version 2 iolog\na add\na trim 0 8192\n", "x").unwrap();
        assert_eq!(trims.len_ranges(), [(8192, 8192); 3]);
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

    #[test]
    fn gaps_are_the_time_since_the_line_before() {
        let v3 =
            "fio version 3 iolog\n10 a add\n10 a write 0 512\n30 a read 0 512\n25 a read 0 512\n";
        let log = IoLog::parse(v3, "x").unwrap();
        let gaps: Vec<u64> = log.entries.iter().map(|e| e.delay_us).collect();
        // fio's delay_since_ttime: 20 µs; none after a step backwards.
        assert_eq!(gaps, [0, 20, 0]);
    }

    #[test]
    fn the_rw_mode_follows_the_logged_directions() {
        let kind = |ops: &str| {
            IoLog::parse(&format!("fio version 2 iolog\n{ops}"), "x")
                .unwrap()
                .rw_kind()
        };
        assert_eq!(kind("a read 0 1\n"), RwKind::Read);
        assert_eq!(kind("a write 0 1\n"), RwKind::Write);
        assert_eq!(kind("a read 0 1\na write 0 1\n"), RwKind::ReadWrite);
        assert_eq!(kind("a trim 0 1\n"), RwKind::Trim);
        // Trims with reads: a mode that opens the files for writing (the engine
        // learns the log's own directions).
        assert_eq!(kind("a trim 0 1\na read 0 1\n"), RwKind::ReadWrite);
        assert_eq!(kind("a trim 0 1\na write 0 1\n"), RwKind::TrimWrite);
    }

    #[test]
    fn a_replay_skip_that_leaves_nothing_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.log");
        std::fs::write(&path, "fio version 2 iolog\na add\na read 0 4096\n").unwrap();
        let logs = LogSpec {
            replay_skip: 1,
            ..LogSpec::default()
        };
        let path = path.to_str().unwrap();
        let e = load(path, &logs).unwrap_err();
        assert_eq!(
            e,
            format!("read_iolog={path}: replay_skip leaves no I/O to replay")
        );
    }

    #[test]
    fn numbers_read_as_str_parse_reads_them() {
        for w in [
            "0",
            "4096",
            "+12",
            "18446744073709551615",
            "18446744073709551616",
            "",
            "+",
            "-1",
            "12a",
            "0x10",
            " 1",
        ] {
            assert_eq!(number(w), w.parse::<u64>().ok(), "{w:?}");
        }
    }
}
