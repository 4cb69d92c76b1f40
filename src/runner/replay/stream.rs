//! `read_iolog_chunked=1`: the log is read as the replay goes on, a chunk of entries
//! at a time, so a log of any length replays in bounded memory (fio's chunked
//! iolog reading). Planning still needs the log's files, directions and sizes, so
//! [`Chunked::load`] reads it through once first, keeping only those totals; the
//! replay's [`Cursor`] then reads it again from the start, and once more for every
//! loop. Both reads use the whole-log path's parser and replay options, so the I/Os
//! are the same, in the same order, with the same timing.

use super::{is_sync, skipped_all, transform_entry, Entry, IoLog, Parser, Summary};
use ferrio_config::ext::logs::LogSpec;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::sync::Arc;

/// Entries held at a time by a chunked replay.
pub const CHUNK: usize = 4096;

/// Where a chunked log is read from again, and what the first read found.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunked {
    path: String,
    logs: LogSpec,
    chunk: usize,
    pub(super) summary: Summary,
}

impl Chunked {
    /// Read the log through once (validating every line, as the whole-log path
    /// does) and keep its files and totals; no entry is kept.
    pub(crate) fn load(path: &str, logs: &LogSpec, chunk: usize) -> Result<IoLog, String> {
        let mut r = Reader::open(path)?;
        let (mut raw, mut summary) = (0u64, Summary::default());
        while let Some(e) = r.next_raw()? {
            raw += u64::from(!is_sync(e.op));
            if let Some(e) = transform_entry(e, logs) {
                summary.add(&e);
            }
        }
        if raw == 0 {
            return Err(format!("read_iolog={path}: the log has no I/O to replay"));
        }
        if summary.count == 0 {
            return Err(skipped_all(path));
        }
        let names = match &logs.replay_redirect {
            Some(target) => vec![target.clone()],
            None => r.parser.names,
        };
        Ok(IoLog {
            names,
            entries: Vec::new(),
            chunked: Some(Chunked {
                path: path.to_string(),
                logs: logs.clone(),
                chunk: chunk.max(1),
                summary,
            }),
            job_bs: None,
            depth: None,
        })
    }
}

/// A log file read line by line (gunzipped when it is gzip data, by its magic).
struct Reader {
    path: String,
    lines: Box<dyn BufRead + Send>,
    parser: Parser,
    /// The line number of the last line read.
    n: usize,
    line: Vec<u8>,
}

impl Reader {
    fn open(path: &str) -> Result<Reader, String> {
        let err = |e: std::io::Error| format!("read_iolog={path}: {e}");
        let mut file = BufReader::new(File::open(path).map_err(err)?);
        let gzip = file.fill_buf().map_err(err)?.starts_with(&[0x1f, 0x8b]);
        let mut lines: Box<dyn BufRead + Send> = if gzip {
            Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(file)))
        } else {
            Box::new(file)
        };
        let mut line = Vec::new();
        let first = match read_line(&mut *lines, &mut line, path)? {
            true => Some(text_of_line(&line, path)?),
            false => None,
        };
        let parser = Parser::new(first, path)?;
        Ok(Reader {
            path: path.to_string(),
            lines,
            parser,
            n: 1,
            line,
        })
    }

    /// The next logged I/O as the log has it (before the replay options).
    fn next_raw(&mut self) -> Result<Option<Entry>, String> {
        while read_line(&mut *self.lines, &mut self.line, &self.path)? {
            self.n += 1;
            let text = text_of_line(&self.line, &self.path)?;
            if let Some(e) = self.parser.line(self.n, text)? {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }
}

/// Read the next line into `buf`; false at the end.
fn read_line(lines: &mut dyn BufRead, buf: &mut Vec<u8>, path: &str) -> Result<bool, String> {
    buf.clear();
    let got = lines.read_until(b'\n', buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
            format!("read_iolog={path}: gzip: {e}")
        }
        _ => format!("read_iolog={path}: {e}"),
    })?;
    Ok(got > 0)
}

/// A line's text, without its line ending.
fn text_of_line<'a>(line: &'a [u8], path: &str) -> Result<&'a str, String> {
    let text = std::str::from_utf8(line)
        .map_err(|_| format!("read_iolog={path}: not text (nor gzip-compressed text)"))?;
    let text = text.strip_suffix('\n').unwrap_or(text);
    Ok(text.strip_suffix('\r').unwrap_or(text))
}

/// The replay's position in its log: the next entry to hand out, and the one
/// handed out last (its timing paces the I/O just generated).
pub struct Cursor {
    log: Arc<IoLog>,
    /// The whole log's next entry.
    next: usize,
    /// A chunked log's reader and the entries read ahead (None: start over).
    stream: Option<(Reader, VecDeque<Entry>)>,
    last: Option<Entry>,
}

impl Cursor {
    pub fn new(log: Arc<IoLog>) -> Cursor {
        Cursor {
            log,
            next: 0,
            stream: None,
            last: None,
        }
    }

    /// The next entry; after the last one the log starts over.
    pub fn next_entry(&mut self) -> Entry {
        let e = match &self.log.chunked {
            None => {
                let e = self.log.entries[self.next];
                self.next = (self.next + 1) % self.log.entries.len();
                e
            }
            Some(_) => {
                // The log is shared; hold it while the cursor reads on.
                let log = Arc::clone(&self.log);
                let c = log.chunked.as_ref().expect("matched above");
                self.next_chunked(c).unwrap_or_else(|e| gone(&e))
            }
        };
        self.last = Some(e);
        e
    }

    /// Whether the pass's next entry is a sync: the pass, whose data is all
    /// issued, is not over before it (a log that ends with syncs issues them).
    pub fn sync_follows(&self) -> bool {
        let next = match &self.log.chunked {
            None => (self.next != 0).then(|| &self.log.entries[self.next]),
            Some(_) => self.stream.as_ref().and_then(|(_, ahead)| ahead.front()),
        };
        next.is_some_and(|e| is_sync(e.op))
    }

    /// The entry handed out last.
    pub fn last(&self) -> Option<&Entry> {
        self.last.as_ref()
    }

    /// Back to the log's first entry (a new loop).
    pub fn rewind(&mut self) {
        self.next = 0;
        self.stream = None;
    }

    fn next_chunked(&mut self, c: &Chunked) -> Result<Entry, String> {
        // Two tries: the rest of this read, then (at the end) a new one from the
        // start, which the first pass found holds an entry.
        for _ in 0..2 {
            if self.stream.is_none() {
                self.stream = Some((Reader::open(&c.path)?, VecDeque::new()));
            }
            let (reader, ahead) = self.stream.as_mut().expect("opened above");
            if ahead.is_empty() {
                fill(reader, ahead, c)?;
            }
            if let Some(e) = ahead.pop_front() {
                if ahead.is_empty() {
                    // Read the next chunk now (not past the end): what follows this
                    // entry is known (sync_follows).
                    fill(reader, ahead, c)?;
                }
                return Ok(e);
            }
            self.stream = None;
        }
        Err(format!(
            "read_iolog={}: no I/O left to replay on reading it again",
            c.path
        ))
    }
}

/// Read up to a chunk of entries ahead (none at the log's end).
fn fill(reader: &mut Reader, ahead: &mut VecDeque<Entry>, c: &Chunked) -> Result<(), String> {
    while ahead.len() < c.chunk {
        let Some(e) = reader.next_raw()? else { break };
        if let Some(e) = transform_entry(e, &c.logs) {
            ahead.push_back(e);
        }
    }
    Ok(())
}

/// The log changed or went away during a chunked replay: the run cannot go on with
/// the I/Os it planned from the first read.
fn gone(why: &str) -> ! {
    eprintln!("ferrio: {why} (read_iolog_chunked=1 reads the log again during the replay; it must not change)");
    std::process::exit(1)
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
