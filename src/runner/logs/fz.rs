//! fio's compressed logs (`log_store_compressed=1`, `PREFIX_KIND.N.log.fz`) and
//! `--inflate-log`. The file is a sequence of zlib streams; each inflates to an array
//! of fio's binary samples as fio 3.33 keeps them in memory on x86-64 and other
//! 64-bit Linux targets (little-endian, naturally aligned):
//!
//! ```text
//! 0  u64 time (ms)      8  u64 value      16 u32 ddir | 0x8000_0000 when an offset
//! follows | 0x4000_0000 when the priority is the full ioprio (log_prio)
//! 20 u16 priority       22 (2 bytes padding)  24 u64 bs    [32 u64 offset]
//! ```
//!
//! fio reads each stream's sample size from its first sample's offset bit, so a
//! stream never mixes the two sizes. ferrio writes these files by turning each text
//! line its log writer produces back into a sample (the columns are known when the
//! file is opened), so both tools' `--inflate-log` read either tool's files.

use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::fs::File;
use std::io::{Read, Write};

const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
/// ioprio class RT in the top 3 bits of a 16-bit priority value.
const CLASS_RT: u16 = 1 << 13;

/// One log sample, as fio's flush_samples prints it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub time_ms: u64,
    pub value: u64,
    pub ddir: u32,
    pub bs: u64,
    /// Some with log_offset=1.
    pub offset: Option<u64>,
    /// The ioprio value; with `full_prio` false only its RT-class bit is printed.
    pub prio: u16,
    pub full_prio: bool,
}

impl Sample {
    fn size(offset: bool) -> usize {
        if offset {
            40
        } else {
            32
        }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut ddir = self.ddir & !(OFFSET_BIT | PRIO_BIT);
        if self.offset.is_some() {
            ddir |= OFFSET_BIT;
        }
        if self.full_prio {
            ddir |= PRIO_BIT;
        }
        out.extend_from_slice(&self.time_ms.to_le_bytes());
        out.extend_from_slice(&self.value.to_le_bytes());
        out.extend_from_slice(&ddir.to_le_bytes());
        out.extend_from_slice(&self.prio.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.bs.to_le_bytes());
        if let Some(o) = self.offset {
            out.extend_from_slice(&o.to_le_bytes());
        }
    }

    fn decode(b: &[u8], offset: bool) -> Sample {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        let ddir = u32::from_le_bytes(b[16..20].try_into().unwrap_or([0; 4]));
        Sample {
            time_ms: u64_at(0),
            value: u64_at(8),
            ddir: ddir & !(OFFSET_BIT | PRIO_BIT),
            prio: u16::from_le_bytes([b[20], b[21]]),
            bs: u64_at(24),
            offset: offset.then(|| u64_at(32)),
            full_prio: ddir & PRIO_BIT != 0,
        }
    }

    /// fio's text line for this sample.
    pub fn line(&self, out: &mut String) {
        use std::fmt::Write as _;
        // fio prints the value as a signed 64-bit number.
        let _ = write!(
            out,
            "{}, {}, {}, {}",
            self.time_ms, self.value as i64, self.ddir, self.bs
        );
        if let Some(o) = self.offset {
            let _ = write!(out, ", {o}");
        }
        if self.full_prio {
            let _ = writeln!(out, ", 0x{:04x}", self.prio);
        } else {
            let _ = writeln!(out, ", {}", u8::from(self.prio >> 13 == CLASS_RT >> 13));
        }
    }

    /// A text line of ferrio's log writer (`time, value, ddir, bs[, offset], prio`)
    /// back as a sample.
    pub fn parse(line: &str, offset: bool, full_prio: bool) -> Option<Sample> {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let want = if offset { 6 } else { 5 };
        if f.len() != want {
            return None;
        }
        let n = |i: usize| f[i].parse::<u64>().ok();
        let prio_text = f[want - 1];
        let prio = match prio_text.strip_prefix("0x") {
            Some(h) => u16::from_str_radix(h, 16).ok()?,
            None if prio_text == "1" && !full_prio => CLASS_RT,
            None => prio_text.parse().ok()?,
        };
        Some(Sample {
            time_ms: n(0)?,
            value: n(1).or_else(|| f[1].parse::<i64>().ok().map(|v| v as u64))?,
            ddir: n(2)? as u32,
            bs: n(3)?,
            offset: if offset { Some(n(4)?) } else { None },
            prio,
            full_prio,
        })
    }
}

/// A `.log.fz` file being written: samples gather until a chunk's worth, then go
/// out as one zlib stream (fio's gz_work does the same with its in-memory chunks).
pub struct Packer {
    file: File,
    offset: bool,
    full_prio: bool,
    chunk: usize,
    pending: Vec<u8>,
    /// A line split across two writes (never happens with whole-line writes).
    partial: String,
    /// --debug=compress: the log's name, and the streams written so far.
    trace: Option<String>,
    seq: u32,
}

impl Packer {
    pub fn new(file: File, offset: bool, full_prio: bool, chunk: usize) -> Packer {
        Packer {
            file,
            offset,
            full_prio,
            chunk: chunk.max(Sample::size(offset)),
            pending: Vec::new(),
            partial: String::new(),
            trace: None,
            seq: 0,
        }
    }

    /// --debug=compress: write fio's lines for each stream, when `on`.
    pub fn traced(mut self, on: bool, path: &std::path::Path) -> Packer {
        // fio names the log as its text file would be called (no .fz).
        self.trace = on.then(|| path.display().to_string().trim_end_matches(".fz").into());
        self
    }

    /// Whole text lines from the log writer.
    pub fn write(&mut self, text: &str) {
        self.partial.push_str(text);
        let Some(end) = self.partial.rfind('\n') else {
            return;
        };
        let rest = self.partial.split_off(end + 1);
        let lines = std::mem::replace(&mut self.partial, rest);
        for l in lines.lines().filter(|l| !l.is_empty()) {
            if let Some(s) = Sample::parse(l, self.offset, self.full_prio) {
                s.encode(&mut self.pending);
            }
        }
        if self.pending.len() >= self.chunk {
            self.compress();
        }
    }

    /// Compress and write what has gathered (one zlib stream).
    pub fn compress(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.seq += 1;
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        let (seq, input, trace) = (self.seq, self.pending.len(), self.trace.as_deref());
        let out = z
            .write_all(&self.pending)
            .and_then(|_| z.finish())
            .and_then(|bytes| {
                if let Some(log) = trace {
                    super::super::debug_hooks::deflated(log, seq, input, bytes.len());
                }
                self.file.write_all(&bytes)
            });
        if let Err(e) = out {
            eprintln!("ferrio: cannot write compressed log: {e}");
        }
        self.pending.clear();
    }
}

impl Drop for Packer {
    fn drop(&mut self) {
        self.compress();
    }
}

/// Every sample of a `.log.fz` file's text, stream by stream (zlib or gzip streams).
pub fn inflate(data: &[u8], out: &mut String) -> Result<(), String> {
    let mut pos = 0;
    let mut stream = 0;
    while pos < data.len() {
        stream += 1;
        let rest = &data[pos..];
        let mut raw = Vec::new();
        let used = if rest.starts_with(&[0x1f, 0x8b]) {
            let mut d = flate2::bufread::GzDecoder::new(rest);
            d.read_to_end(&mut raw)
                .map_err(|e| format!("stream {stream} at byte {pos}: {e}"))?;
            rest.len() - d.into_inner().len()
        } else {
            let mut d = flate2::bufread::ZlibDecoder::new(rest);
            d.read_to_end(&mut raw)
                .map_err(|e| format!("stream {stream} at byte {pos}: {e}"))?;
            d.total_in() as usize
        };
        if used == 0 {
            return Err(format!("stream {stream} at byte {pos}: no compressed data"));
        }
        pos += used;
        let Some(first) = raw.get(16..20) else {
            continue;
        };
        let offset = u32::from_le_bytes(first.try_into().unwrap_or([0; 4])) & OFFSET_BIT != 0;
        for s in raw.chunks_exact(Sample::size(offset)) {
            Sample::decode(s, offset).line(out);
        }
    }
    Ok(())
}

/// `--inflate-log=FILE`: the log's text on stdout; 1 on an unreadable or bad file.
pub fn inflate_file(path: &str) -> i32 {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("ferrio: --inflate-log: cannot read '{path}': {e}");
            return 1;
        }
    };
    let mut text = String::new();
    let res = inflate(&data, &mut text);
    let _ = std::io::stdout().write_all(text.as_bytes());
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("ferrio: --inflate-log: '{path}' is not a compressed fio log: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_round_trip_through_text_and_bytes() {
        for (line, off, full) in [
            ("0, 401371, 0, 4096, 249856, 0", true, false),
            ("12, 7, 1, 512, 0", false, false),
            ("3, 9, 2, 4096, 1", false, false),
            ("5, 1, 0, 8192, 65536, 0x2004", true, true),
        ] {
            let s = Sample::parse(line, off, full).unwrap();
            let mut b = Vec::new();
            s.encode(&mut b);
            assert_eq!(b.len(), Sample::size(off));
            assert_eq!(Sample::decode(&b, off), s);
            let mut t = String::new();
            s.line(&mut t);
            assert_eq!(t, format!("{line}\n"));
        }
        assert!(Sample::parse("1, 2, 3", false, false).is_none());
        assert!(Sample::parse("1, 2, 0, 4096, 9, 0", false, false).is_none());
    }

    #[test]
    fn several_streams_inflate_in_order() {
        let path = std::env::temp_dir().join(format!("ferrio-fz-{}", std::process::id()));
        {
            let f = File::create(&path).unwrap();
            let mut p = Packer::new(f, false, false, 64);
            for i in 0..5 {
                p.write(&format!("{i}, {}, 0, 4096, 0\n", i * 10));
            }
        }
        let data = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let mut text = String::new();
        inflate(&data, &mut text).unwrap();
        let want: String = (0..5)
            .map(|i| format!("{i}, {}, 0, 4096, 0\n", i * 10))
            .collect();
        assert_eq!(text, want);
        // 5 samples of 32 bytes in chunks of 64 bytes: three streams.
        assert!(data.windows(2).filter(|w| w == &[0x78, 0x9c]).count() >= 3);
        assert!(inflate(b"not zlib", &mut String::new()).is_err());
    }
}
