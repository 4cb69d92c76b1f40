//! `write_iolog`: every issued I/O in fio's iolog version 3 format, so a run can be
//! replayed (by fio's `read_iolog`) or compared line for line with fio's own log:
//!
//! ```text
//! fio version 3 iolog
//! <usec> <file> add            (each file, at the start)
//! <usec> <file> open           (before its first I/O of a pass)
//! <usec> <file> read|write|trim <offset> <length>
//! <usec> <file> sync|datasync|sync_file_range <offset> 0   (fsync=N..., end_fsync)
//! <usec> <file> close          (each opened file, at the end of a pass)
//! ```
//!
//! Times are microseconds of wall-clock time since the thread started. As fio does, the
//! file is opened for appending; lines are written whole, so clones sharing one log
//! interleave by line. A name ending in `.gz` gets gzip data: each writer appends its
//! own gzip member (fio 3.33 writes plain text whatever the name; `read_iolog` reads
//! every member back).

use super::plan::ThreadPlan;
use crate::engine::IoOp;
use flate2::{write::GzEncoder, Compression};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::time::Instant;

pub struct IoLogWriter {
    out: BufWriter<Box<dyn Write + Send>>,
    start: Instant,
    names: Vec<String>,
    open: Vec<bool>,
    failed: bool,
}

impl IoLogWriter {
    /// The thread's write_iolog writer, if the job asks for one.
    pub fn for_plan(plan: &ThreadPlan) -> Result<Option<IoLogWriter>, String> {
        let Some(path) = &plan.spec.logs.write_iolog else {
            return Ok(None);
        };
        let names = plan
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        IoLogWriter::create(path, names).map(Some)
    }

    pub fn create(path: &str, names: Vec<String>) -> Result<IoLogWriter, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("write_iolog={path}: {e}"))?;
        let sink: Box<dyn Write + Send> = if path.ends_with(".gz") {
            Box::new(GzMembers {
                file,
                partial: Vec::new(),
            })
        } else {
            Box::new(file)
        };
        let mut w = IoLogWriter {
            out: BufWriter::with_capacity(64 << 10, sink),
            start: Instant::now(),
            open: vec![false; names.len()],
            names,
            failed: false,
        };
        w.line(format_args!("fio version 3 iolog"));
        for i in 0..w.names.len() {
            w.file_event(i, "add");
        }
        Ok(w)
    }

    fn line(&mut self, args: std::fmt::Arguments) {
        if !self.failed && writeln!(self.out, "{args}").is_err() {
            self.failed = true;
        }
    }

    fn usec(&self) -> u128 {
        self.start.elapsed().as_micros()
    }

    fn file_event(&mut self, file: usize, what: &str) {
        let t = self.usec();
        let name = std::mem::take(&mut self.names[file]);
        self.line(format_args!("{t} {name} {what}"));
        self.names[file] = name;
    }

    /// One issued I/O.
    pub fn io(&mut self, file: usize, op: IoOp, offset: u64, len: u64) {
        if !self.open[file] {
            self.open[file] = true;
            self.file_event(file, "open");
        }
        let what = op.iolog_action();
        let t = self.usec();
        let name = std::mem::take(&mut self.names[file]);
        self.line(format_args!("{t} {name} {what} {offset} {len}"));
        self.names[file] = name;
    }

    /// One issued sync (fsync=N, fdatasync=N, sync_file_range=..:N, end_fsync or
    /// fsync_on_close at the job's end), logged as fio does: its length is 0 and its
    /// offset is whatever the io_u it took was last used for (`stale_offset`).
    pub fn sync(&mut self, file: usize, op: IoOp, stale_offset: u64) {
        self.io(file, op, stale_offset, 0);
    }

    /// end_fsync's sync: a closed file is opened for it and closed again, as fio.
    pub fn end_sync(&mut self, file: usize, stale_offset: u64) {
        let was_open = self.open[file];
        self.sync(file, IoOp::Fsync, stale_offset);
        if !was_open {
            self.close(file);
        }
    }

    /// A file's pass is over: fio closes it (and logs an open before its next I/O).
    pub fn close(&mut self, file: usize) {
        if self.open[file] {
            self.open[file] = false;
            self.file_event(file, "close");
        }
    }

    /// Every open file's pass is over (the writes before a verify phase's reads).
    pub fn close_all(&mut self) {
        for i in 0..self.open.len() {
            self.close(i);
        }
    }
}

impl Drop for IoLogWriter {
    fn drop(&mut self) {
        self.close_all();
        let _ = self.out.flush();
    }
}

/// write_iolog=*.gz: each run of whole lines handed down becomes one complete gzip
/// member written with one call, so clones appending to one log never interleave
/// inside a member (or a line).
struct GzMembers {
    file: File,
    /// The end of the last chunk after its last newline.
    partial: Vec<u8>,
}

impl GzMembers {
    fn member(&mut self, data: &[u8]) -> std::io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let mut e = GzEncoder::new(Vec::with_capacity(data.len() / 4), Compression::default());
        e.write_all(data)?;
        self.file.write_all(&e.finish()?)
    }
}

impl Write for GzMembers {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match buf.iter().rposition(|&b| b == b'\n') {
            Some(end) => {
                let mut data = std::mem::take(&mut self.partial);
                data.extend_from_slice(&buf[..=end]);
                self.member(&data)?;
                self.partial.extend_from_slice(&buf[end + 1..]);
            }
            None => self.partial.extend_from_slice(buf),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for GzMembers {
    fn drop(&mut self) {
        let rest = std::mem::take(&mut self.partial);
        let _ = self.member(&rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_fios_version_3_iolog() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("io.log");
        let mut w =
            IoLogWriter::create(path.to_str().unwrap(), vec!["a".into(), "b".into()]).unwrap();
        w.io(1, IoOp::Write, 4096, 512);
        w.io(1, IoOp::Read, 0, 4096);
        w.close(1);
        w.io(0, IoOp::Trim, 8192, 4096);
        drop(w);
        let text = std::fs::read_to_string(&path).unwrap();
        // Times are wall-clock µs: compare what follows them.
        let rest: Vec<&str> = text
            .lines()
            .map(|l| {
                l.split_once(' ').map_or(l, |(t, r)| {
                    assert!(t.parse::<u64>().is_ok() || l.starts_with("fio"), "{l}");
                    r
                })
            })
            .collect();
        assert_eq!(
            rest,
            [
                "version 3 iolog",
                "a add",
                "b add",
                "b open",
                "b write 4096 512",
                "b read 0 4096",
                "b close",
                "a open",
                "a trim 8192 4096",
                "a close",
            ]
        );
    }
}
