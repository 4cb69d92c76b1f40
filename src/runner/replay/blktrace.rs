//! Block traces (blktrace's binary output) for `read_iolog`, as fio replays them:
//! a file whose first record carries blktrace's magic (in either byte order) is a
//! trace, not a text iolog. Each record is the kernel's 48-byte `blk_io_trace`
//! (magic | version, sequence, time in ns, sector, bytes, action, pid, device,
//! cpu, error, pdu_len) followed by `pdu_len` bytes of payload, which are skipped.
//!
//! Only *queue* events are replayed (the others are the block layer's own doings):
//! a read or write of `bytes` at `sector * 512`, a discard as a trim, a flush as an
//! fsync of the device (as fio issues it). Each I/O waits for the trace's gap since the queue event before
//! it (`replay_time_scale`, `replay_no_stall` as fio's `delay_since_ttime`); an
//! event left out (`replay_skip`, zero bytes) takes its gap with it, as in fio.
//! `replay_scale` divides offsets, `replay_align` aligns offsets down and lengths
//! up. Devices are found by their major:minor under /dev, or all replaced by
//! `replay_redirect`. Unless `iodepth` is given, the replay runs at the trace's
//! own queue depth, as fio probes it (`Depth`).
//!
//! [`merge`] is fio's `merge_blktrace_file`: the queue events of several traces in
//! one file, in time order, each trace's times scaled and its events repeated.

use super::{Entry, IoLog};
use crate::engine::IoOp;
use ferrio_config::ext::logs::LogSpec;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// `BLK_IO_TRACE_MAGIC`: the top 24 bits of a record's first word.
pub const MAGIC: u32 = 0x6561_7400;
/// The record version fio (and blktrace since 2008) reads.
pub const VERSION: u32 = 7;
/// Bytes in one record, before its payload.
pub const RECORD: usize = 48;

/// Trace categories (the action's top 16 bits) and actions (its low 16).
pub mod act {
    pub const READ: u32 = 1 << 16;
    pub const WRITE: u32 = 1 << 17;
    pub const FLUSH: u32 = 1 << 18;
    pub const NOTIFY: u32 = 1 << 26;
    pub const DISCARD: u32 = 1 << 29;
    /// `__BLK_TA_QUEUE`.
    pub const QUEUE: u32 = 1;
    /// `__BLK_TA_BACKMERGE`, `__BLK_TA_FRONTMERGE`, `__BLK_TA_COMPLETE`.
    pub const BACKMERGE: u32 = 2;
    pub const FRONTMERGE: u32 = 3;
    pub const COMPLETE: u32 = 8;
}

/// One `blk_io_trace` record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub magic: u32,
    pub sequence: u32,
    pub time: u64,
    pub sector: u64,
    pub bytes: u32,
    pub action: u32,
    pub pid: u32,
    pub device: u32,
    pub cpu: u32,
    pub error: u16,
    pub pdu_len: u16,
}

impl Trace {
    /// A record from its bytes: little-endian, or big-endian when `swap` (a trace
    /// taken on the other kind of machine).
    pub fn from_bytes(b: &[u8; RECORD], swap: bool) -> Trace {
        let u16_at = |i: usize| {
            let v = [b[i], b[i + 1]];
            if swap {
                u16::from_be_bytes(v)
            } else {
                u16::from_le_bytes(v)
            }
        };
        let u32_at = |i: usize| {
            let v = b[i..i + 4].try_into().expect("4 bytes");
            if swap {
                u32::from_be_bytes(v)
            } else {
                u32::from_le_bytes(v)
            }
        };
        let u64_at = |i: usize| {
            let v = b[i..i + 8].try_into().expect("8 bytes");
            if swap {
                u64::from_be_bytes(v)
            } else {
                u64::from_le_bytes(v)
            }
        };
        Trace {
            magic: u32_at(0),
            sequence: u32_at(4),
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            pid: u32_at(32),
            device: u32_at(36),
            cpu: u32_at(40),
            error: u16_at(44),
            pdu_len: u16_at(46),
        }
    }

    /// The record's bytes, little-endian (what fio writes when it merges).
    pub fn to_bytes(&self) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[0..4].copy_from_slice(&self.magic.to_le_bytes());
        b[4..8].copy_from_slice(&self.sequence.to_le_bytes());
        b[8..16].copy_from_slice(&self.time.to_le_bytes());
        b[16..24].copy_from_slice(&self.sector.to_le_bytes());
        b[24..28].copy_from_slice(&self.bytes.to_le_bytes());
        b[28..32].copy_from_slice(&self.action.to_le_bytes());
        b[32..36].copy_from_slice(&self.pid.to_le_bytes());
        b[36..40].copy_from_slice(&self.device.to_le_bytes());
        b[40..44].copy_from_slice(&self.cpu.to_le_bytes());
        b[44..46].copy_from_slice(&self.error.to_le_bytes());
        b[46..48].copy_from_slice(&self.pdu_len.to_le_bytes());
        b
    }

    fn is_queue(&self) -> bool {
        self.action & 0xffff == act::QUEUE
    }

    /// The direction fio's merge keeps an event for: read, write or discard.
    fn has_direction(&self) -> bool {
        self.action & (act::READ | act::WRITE | act::DISCARD) != 0
    }
}

/// Whether the file is a blktrace: Some(swap) when its first record has the magic
/// (swap: in the other byte order), None for anything else (a text iolog, gzip, a
/// file shorter than one record).
pub fn detect(path: &Path) -> Option<bool> {
    let mut b = [0u8; RECORD];
    File::open(path).ok()?.read_exact(&mut b).ok()?;
    [false, true]
        .into_iter()
        .find(|&swap| Trace::from_bytes(&b, swap).magic & 0xffff_ff00 == MAGIC)
}

/// A trace file read record by record, payloads skipped.
struct Reader {
    file: BufReader<File>,
    swap: bool,
    path: String,
}

impl Reader {
    fn open(path: &str, swap: bool) -> Result<Reader, String> {
        let file = File::open(path).map_err(|e| format!("read_iolog={path}: {e}"))?;
        Ok(Reader {
            file: BufReader::new(file),
            swap,
            path: path.to_string(),
        })
    }

    /// The next record, None at the end (a partial record at the end is an error).
    fn next(&mut self) -> Result<Option<Trace>, String> {
        let mut b = [0u8; RECORD];
        let mut got = 0;
        while got < RECORD {
            match self.file.read(&mut b[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("read_iolog={}: {e}", self.path)),
            }
        }
        if got == 0 {
            return Ok(None);
        }
        if got < RECORD {
            return Err(format!(
                "read_iolog={}: the trace ends inside a record ({got} of {RECORD} bytes)",
                self.path
            ));
        }
        let t = Trace::from_bytes(&b, self.swap);
        if t.pdu_len > 0 {
            self.file
                .seek_relative(i64::from(t.pdu_len))
                .map_err(|e| format!("read_iolog={}: {e}", self.path))?;
        }
        Ok(Some(t))
    }

    fn rewind(&mut self) -> Result<(), String> {
        self.file
            .seek(SeekFrom::Start(0))
            .map(drop)
            .map_err(|e| format!("read_iolog={}: {e}", self.path))
    }
}

/// The device a trace names, as the kernel packs a dev_t (major << 20 | minor).
fn dev_numbers(device: u32) -> (u32, u32) {
    (device >> 20, device & 0xf_ffff)
}

/// The block device under `dir` (searched depth first, links not followed, as
/// fio) with these numbers.
fn find_device(dir: &Path, major: u32, minor: u32) -> Option<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Some(p) = find_device(&path, major, minor) {
                return Some(p);
            }
        } else if meta.file_type().is_block_device() {
            // glibc's major()/minor() of a 64-bit dev_t.
            let rdev = meta.rdev();
            let maj = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff);
            let min = (rdev & 0xff) | ((rdev >> 12) & !0xff);
            if (maj, min) == (u64::from(major), u64::from(minor)) {
                return Some(path);
            }
        }
    }
    None
}

/// The replay's files: one per traced device, in order of first appearance.
struct Devices<'a> {
    logs: &'a LogSpec,
    path: &'a str,
    seen: Vec<u32>,
    names: Vec<String>,
}

impl Devices<'_> {
    fn index(&mut self, device: u32) -> Result<usize, String> {
        if let Some(target) = &self.logs.replay_redirect {
            if self.names.is_empty() {
                self.names.push(target.clone());
            }
            return Ok(0);
        }
        if let Some(i) = self.seen.iter().position(|&d| d == device) {
            return Ok(i);
        }
        let (major, minor) = dev_numbers(device);
        let found = find_device(Path::new("/dev"), major, minor).ok_or_else(|| {
            format!(
                "read_iolog={}: no block device {major}:{minor} under /dev for the trace's I/O (replay_redirect=FILE replays it onto a file or device)",
                self.path
            )
        })?;
        self.seen.push(device);
        self.names.push(found.display().to_string());
        Ok(self.names.len() - 1)
    }
}

/// fio's `delay_since_ttime`: the ns since the last queue event, scaled; none
/// after a time of 0, backwards, or with replay_no_stall.
fn gap_ns(logs: &LogSpec, last: u64, time: u64) -> u64 {
    if last == 0 || logs.replay_no_stall || time < last {
        return 0;
    }
    let scale = logs.replay_time_scale.max(1);
    if scale == 100 {
        return time - last;
    }
    ((time - last) as f64 * (100.0 / scale as f64)) as u64
}

/// Read a whole trace into a log, with the replay options applied.
pub fn load(path: &str, logs: &LogSpec, swap: bool) -> Result<IoLog, String> {
    let mut r = Reader::open(path, swap)?;
    let mut devices = Devices {
        logs,
        path,
        seen: Vec::new(),
        names: Vec::new(),
    };
    let (mut entries, mut last, mut ios, mut n) = (Vec::new(), 0u64, 0u64, 0);
    let mut depth = Depth::default();
    while let Some(mut t) = r.next()? {
        n += 1;
        if t.magic & 0xffff_ff00 != MAGIC {
            return Err(format!(
                "read_iolog={path}: record {n}: bad magic {:#x} (not a blktrace record)",
                t.magic
            ));
        }
        if t.magic & 0xff != VERSION {
            return Err(format!(
                "read_iolog={path}: record {n}: blktrace version {} (ferrio, as fio, reads version {VERSION})",
                t.magic & 0xff
            ));
        }
        if t.action & act::NOTIFY != 0 {
            continue;
        }
        depth.event(&t);
        if !t.is_queue() {
            continue;
        }
        let delay_us = gap_ns(logs, last, t.time) / 1000;
        last = t.time;
        if logs.replay_align > 0 {
            t.bytes = (u64::from(t.bytes).div_ceil(logs.replay_align) * logs.replay_align) as u32;
        }
        let op = if t.action & act::DISCARD != 0 {
            IoOp::Trim
        } else if t.action & act::FLUSH != 0 {
            // fio issues a flush as a sync of the device, after its own gap.
            if logs.replay_skip & 1 << 3 != 0 {
                continue;
            }
            let file = devices.index(t.device)?;
            ios += 1;
            entries.push(Entry {
                file,
                op: IoOp::Fsync,
                offset: 0,
                len: 0,
                delay_us,
                at_ms: None,
            });
            continue;
        } else if t.action & act::WRITE != 0 {
            IoOp::Write
        } else {
            IoOp::Read
        };
        let bit = match op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            _ => 2,
        };
        if op != IoOp::Trim {
            // fio opens a read's or write's device before it checks replay_skip.
            devices.index(t.device)?;
        }
        if logs.replay_skip & 1 << bit != 0 {
            continue;
        }
        let file = devices.index(t.device)?;
        if t.bytes == 0 {
            // fio warns once and leaves it out.
            continue;
        }
        let mut offset = (t.sector * 512) / logs.replay_scale.max(1);
        if logs.replay_align > 0 {
            offset &= !(logs.replay_align - 1);
        }
        ios += 1;
        depth.ios[bit] += 1;
        entries.push(Entry {
            file,
            op,
            offset,
            len: u64::from(t.bytes),
            delay_us,
            at_ms: None,
        });
    }
    if ios == 0 {
        let why = match n {
            0 => "the trace has no records",
            _ if logs.replay_skip != 0 => "replay_skip leaves no I/O to replay",
            _ => "found no I/O (queue events) in the trace",
        };
        return Err(format!("read_iolog={path}: {why}"));
    }
    if entries.iter().all(|e| super::is_sync(e.op)) {
        return Err(format!(
            "read_iolog={path}: the trace has only flushes, no read, write or discard to replay"
        ));
    }
    let mut log = IoLog::from_entries(devices.names, entries);
    log.depth = Some(depth.of_trace());
    Ok(log)
}

/// fio's probe of a trace's queue depth: per direction, the queue events (less
/// the merges) between two completions, at most; 1 for a direction with I/O but
/// no completion seen; 1024 at most (a stacked device may never complete). The
/// replay runs at the deepest direction's depth unless iodepth is given.
#[derive(Default)]
struct Depth {
    now: [i64; 3],
    most: [i64; 3],
    /// The I/Os queued for replay, per direction.
    ios: [u64; 3],
}

impl Depth {
    fn event(&mut self, t: &Trace) {
        let d = if t.action & act::READ != 0 {
            0
        } else if t.action & act::WRITE != 0 {
            1
        } else if t.action & act::DISCARD != 0 {
            2
        } else {
            return;
        };
        match t.action & 0xffff {
            act::QUEUE => self.now[d] += 1,
            act::BACKMERGE | act::FRONTMERGE => self.now[d] -= 1,
            act::COMPLETE => {
                self.most[d] = self.most[d].max(self.now[d]);
                self.now[d] = 0;
            }
            _ => {}
        }
    }

    fn of_trace(&self) -> u32 {
        (0..3)
            .map(|d| match self.most[d] {
                m if m > 1024 => 1024,
                m if m <= 0 && self.ios[d] > 0 => 1,
                m => m.max(0),
            })
            .max()
            .unwrap_or(0)
            .max(1) as u32
    }
}

/// The text of fio's `--debug=blktrace` line for a replayed I/O (`store ddir=1,
/// off=8192, len=4096, delay=4`, `store discard, off=...` for a trim), for the
/// debug output to print once per entry of a loaded trace.
pub fn debug_store(e: &Entry) -> String {
    match e.op {
        IoOp::Fsync => format!("store flush delay={}", e.delay_us),
        IoOp::Trim => format!(
            "store discard, off={}, len={}, delay={}",
            e.offset, e.len, e.delay_us
        ),
        op => {
            let ddir = u8::from(op != IoOp::Read);
            format!(
                "store ddir={ddir}, off={}, len={}, delay={}",
                e.offset, e.len, e.delay_us
            )
        }
    }
}

/// One input of a merge: its reader, the event it offers next, its time scale and
/// passes.
struct Cursor {
    r: Reader,
    /// The last record read (the next event to write once it is a queue event).
    t: Trace,
    scalar: u64,
    iters: u64,
    iter: u64,
    /// The time of the trace's last record: where a repeated pass starts.
    length: u64,
}

impl Cursor {
    /// Advance to the next queue event with a direction, across passes; false when
    /// the trace is done.
    fn advance(&mut self) -> Result<bool, String> {
        loop {
            match self.r.next()? {
                Some(t) => {
                    if self.iter == 0 {
                        self.length = t.time;
                    }
                    if t.is_queue() && t.has_direction() {
                        self.t = t;
                        self.t.time = (t.time + self.iter * self.length) * self.scalar / 100;
                        return Ok(true);
                    }
                }
                None => {
                    self.iter += 1;
                    if self.iter >= self.iters {
                        return Ok(false);
                    }
                    self.r.rewind()?;
                }
            }
        }
    }
}

/// fio's merge_blktrace_file: the queue events (reads, writes, discards) of the
/// `:`-separated traces in `inputs`, written to `out` in time order (the earliest
/// first; on a tie the trace named first), each trace's times scaled by its
/// merge_blktrace_scalars percentage, and its events repeated merge_blktrace_iters
/// times, each pass after the previous one's last record. Records are written
/// little-endian with no payload.
pub fn merge(inputs: &str, logs: &LogSpec, out: &str) -> Result<(), String> {
    let names: Vec<&str> = inputs.split(':').filter(|s| !s.is_empty()).collect();
    let list = |vals: &[u64], what: &str, def: u64| -> Result<Vec<u64>, String> {
        match vals.len() {
            0 => Ok(vec![def; names.len()]),
            n if n == names.len() => Ok(vals.to_vec()),
            n => Err(format!(
                "merge_blktrace_{what} has {n} values for {} traces in read_iolog (one per trace)",
                names.len()
            )),
        }
    };
    let scalars = list(&logs.merge.scalars, "scalars", 100)?;
    let iters = list(&logs.merge.iters, "iters", 1)?;
    let mut cursors = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let swap = detect(Path::new(name)).ok_or_else(|| match Path::new(name).exists() {
            true => format!("merge_blktrace_file: {name} is not a blktrace"),
            false => format!("merge_blktrace_file: cannot open {name}"),
        })?;
        let mut c = Cursor {
            r: Reader::open(name, swap)?,
            t: Trace::default(),
            scalar: scalars[i],
            iters: iters[i],
            iter: 0,
            length: 0,
        };
        if c.advance()? {
            cursors.push(c);
        }
    }
    let file = File::create(out).map_err(|e| format!("merge_blktrace_file={out}: {e}"))?;
    let mut w = BufWriter::with_capacity(128 << 10, file);
    let werr = |e: std::io::Error| format!("merge_blktrace_file={out}: {e}");
    while !cursors.is_empty() {
        let i = (0..cursors.len())
            .min_by_key(|&i| cursors[i].t.time)
            .expect("not empty");
        let mut t = cursors[i].t;
        t.pdu_len = 0;
        w.write_all(&t.to_bytes()).map_err(werr)?;
        if !cursors[i].advance()? {
            // fio keeps the open traces contiguous by moving the last one here.
            cursors.swap_remove(i);
        }
    }
    w.flush().map_err(werr)
}

#[cfg(test)]
#[path = "blktrace_tests.rs"]
mod tests;
