//! One I/O buffer with verify data: writing it (data, then a header and checksum
//! per verify interval, as fio's populate_verify_io_u) and checking it when read
//! back (as fio's verify_io_u), with fio's failure lines.

use super::checksum;
use super::header::{Header, HDR_LEN, MAGIC};
use ferrio_config::ext::verify::{effective_interval, VerifyKind, VerifySpec};
use ferrio_config::JobSpec;

/// How the job lays verify data out in its blocks.
#[derive(Clone, Debug)]
pub struct Layout {
    pub kind: VerifyKind,
    /// A header every this many bytes (fio's verify_interval after its fix-ups).
    pub interval: usize,
    /// verify_offset: where the header is swapped to in each interval.
    pub offset: usize,
    pub pattern: Vec<u8>,
    pub pattern_offsets: Vec<usize>,
    /// verify_pattern_interval: the pattern starts again every this many bytes of a
    /// buffer, `%o` pasted as each piece's offset (0: once per buffer).
    pub pattern_interval: usize,
    /// fio's thread number (1-based), written into each header.
    pub thread: u16,
}

/// What the check knows about the block it expects.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    pub offset: u64,
    /// The seed written, when it is to be checked.
    pub seed: Option<u64>,
    /// The write counter written, when it is to be checked.
    pub numberio: Option<u16>,
}

/// A failed check: fio's lines for it, and the interval that failed.
#[derive(Clone, Debug)]
pub struct Failure {
    pub lines: Vec<String>,
    /// File offset and length of the failing interval.
    pub at: u64,
    pub len: usize,
    /// The block failed its header check (dumped as "hdr_fail").
    pub header: bool,
}

impl Layout {
    /// The layout for a job (fio's fixup_options rules for verify_interval).
    pub fn for_job(spec: &JobSpec, thread: u16) -> Layout {
        let v: &VerifySpec = &spec.verify;
        let interval = effective_interval(v.interval, spec.bs[1].min, spec.bs[1].max);
        Layout {
            kind: v.kind,
            interval: interval as usize,
            offset: v.offset as usize,
            pattern: v.pattern.clone(),
            pattern_offsets: v.pattern_offsets.clone(),
            pattern_interval: v.pattern_interval as usize,
            thread,
        }
    }

    /// Bytes of header plus checksum at the start of each interval.
    pub fn hdr_size(&self) -> usize {
        hdr_size(self.kind)
    }

    /// The step between headers in a buffer of `len` bytes.
    fn inc(&self, len: usize) -> usize {
        if self.interval > 0 && self.interval <= len {
            self.interval
        } else {
            len
        }
    }

    /// Fill `buf` (the block written at `offset`) with data and headers.
    pub fn fill(&self, buf: &mut [u8], offset: u64, seed: u64, numberio: u16, time_ns: u64) {
        if self.kind == VerifyKind::Null {
            return;
        }
        if self.pattern.is_empty() {
            // fio's random contents for the header's seed (__fill_random_buf), so a
            // dump's expected block is right for a block fio wrote too.
            crate::random::fill::fill_from_seed(buf, seed);
        } else {
            self.fill_pattern(buf, offset);
        }
        if self.kind == VerifyKind::PatternNoHdr {
            return;
        }
        let inc = self.inc(buf.len());
        let hs = self.hdr_size();
        for (n, chunk) in buf.chunks_mut(inc).enumerate() {
            if chunk.len() <= hs {
                break;
            }
            Header {
                magic: MAGIC,
                verify_type: self.kind.code(),
                len: inc as u32,
                rand_seed: seed,
                offset: offset + (n * inc) as u64,
                time_sec: (time_ns / 1_000_000_000) as u32,
                time_nsec: (time_ns % 1_000_000_000) as u32,
                thread: self.thread,
                numberio,
                crc32: 0,
            }
            .write(chunk);
            let (head, data) = chunk.split_at_mut(hs);
            checksum::compute(self.kind, data, &mut head[HDR_LEN..]);
            if self.offset > 0 {
                swap(chunk, self.offset, hs);
            }
        }
    }

    /// The pattern repeated from the start of the buffer (and again from the start of
    /// each verify_pattern_interval piece), `%o` as the block's (the piece's) offset.
    pub fn fill_pattern(&self, buf: &mut [u8], offset: u64) {
        let piece = self.piece_len(buf.len());
        for (k, part) in buf.chunks_mut(piece).enumerate() {
            let p = self.pasted(offset + (k * piece) as u64);
            for chunk in part.chunks_mut(p.len()) {
                chunk.copy_from_slice(&p[..chunk.len()]);
            }
        }
    }

    /// The length of the pieces the pattern restarts in (fio's fill_verify_pattern).
    fn piece_len(&self, len: usize) -> usize {
        match self.pattern_interval {
            0 => len.max(1),
            n => n,
        }
    }

    fn pasted(&self, offset: u64) -> Vec<u8> {
        let mut p = self.pattern.clone();
        for &at in &self.pattern_offsets {
            let n = 8.min(p.len() - at);
            p[at..at + n].copy_from_slice(&offset.to_le_bytes()[..n]);
        }
        p
    }

    /// Check `buf`, read back from `path` at `exp.offset`. Each failing interval adds
    /// a failure; a header failure ends the check of the block, as in fio, and so
    /// does any failure with `stop_first`.
    pub fn check_block(
        &self,
        buf: &mut [u8],
        exp: Expect,
        path: &str,
        stop_first: bool,
    ) -> Vec<Failure> {
        let mut out = Vec::new();
        if matches!(self.kind, VerifyKind::Null | VerifyKind::None) {
            return out;
        }
        let blen = buf.len();
        let inc = self.inc(blen);
        let hs_cfg = self.hdr_size();
        for (n, chunk) in buf.chunks_mut(inc).enumerate() {
            if chunk.len() <= hs_cfg || (stop_first && !out.is_empty()) {
                break;
            }
            let at = exp.offset + (n * inc) as u64;
            // Formatted only for a failure: a verified block allocates nothing.
            let requested = || format!("(requested block: offset={}, length={blen})", exp.offset);
            if self.offset > 0 && self.kind != VerifyKind::PatternNoHdr {
                swap(chunk, self.offset, hs_cfg);
            }
            let mut hs = hs_cfg;
            let mut media_type = self.kind.code();
            if self.kind != VerifyKind::PatternNoHdr {
                let h = Header::read(chunk);
                if let Some(why) = self.header_problem(&h, chunk, exp, n, inc) {
                    out.push(Failure {
                        lines: vec![format!(
                            "verify: {why} at file {path} offset {at}, length {inc} {}",
                            requested()
                        )],
                        at,
                        len: inc,
                        header: true,
                    });
                    return out;
                }
                media_type = h.verify_type;
                // The checksum's size is the media's (fio's hdr_size of the header).
                if let Some(k) = VerifyKind::from_code(h.verify_type) {
                    hs = hdr_size(k);
                }
            }
            let mut lines = Vec::new();
            match self.kind {
                VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::PatternNoHdr => {
                    if !self.pattern.is_empty() {
                        self.check_pattern(chunk, exp.offset, n * inc, hs, &mut lines);
                    }
                    if !lines.is_empty() {
                        let name = "pattern";
                        lines.push(format!(
                            "{name}: verify failed at file {path} offset {at}, length {inc} {}",
                            requested()
                        ));
                    }
                }
                kind => {
                    let size = checksum::size(kind);
                    if hs < HDR_LEN + size || chunk.len() < hs {
                        hs = HDR_LEN + size;
                    }
                    let (head, data) = chunk.split_at(hs);
                    // On the stack (the largest checksum, sha512's field, is 128 bytes).
                    let mut got_buf = [0u8; 128];
                    let got = &mut got_buf[..size];
                    got.copy_from_slice(&head[HDR_LEN..HDR_LEN + size]);
                    checksum::compute(kind, data, got);
                    let d = checksum::determined(kind, data.len());
                    let want = &head[HDR_LEN..HDR_LEN + d];
                    if want != &got[..d] {
                        lines.push(format!(
                            "{:.8}: verify failed at file {path} offset {at}, length {inc} {}",
                            kind.name(),
                            requested()
                        ));
                        lines.push(format!("       Expected CRC: {}", hex(want)));
                        lines.push(format!("       Received CRC: {}", hex(&got[..d])));
                    }
                }
            }
            if !lines.is_empty() {
                if media_type != self.kind.code() && self.kind != VerifyKind::PatternNoHdr {
                    lines.push(format!(
                        "verify type mismatch ({media_type} media, {} given)",
                        self.kind.code()
                    ));
                }
                out.push(Failure {
                    lines,
                    at,
                    len: inc,
                    header: false,
                });
            }
        }
        out
    }

    /// fio's verify_header checks, in its order; the message of the first that fails.
    fn header_problem(
        &self,
        h: &Header,
        chunk: &[u8],
        exp: Expect,
        n: usize,
        inc: usize,
    ) -> Option<String> {
        if h.magic != MAGIC {
            return Some(format!(
                "bad magic header {:x}, wanted {:x}",
                h.magic, MAGIC
            ));
        }
        if h.len as usize != inc {
            return Some(format!("bad header length {}, wanted {inc}", h.len));
        }
        if let Some(seed) = exp.seed {
            if h.rand_seed != seed {
                return Some(format!(
                    "bad header rand_seed {}, wanted {seed}",
                    h.rand_seed
                ));
            }
        }
        if h.offset != exp.offset + (n * inc) as u64 {
            return Some(format!(
                "bad header offset {}, wanted {}",
                h.offset,
                exp.offset + (n * inc) as u64
            ));
        }
        if let Some(nio) = exp.numberio {
            if h.numberio != nio {
                return Some(format!("bad header numberio {}, wanted {nio}", h.numberio));
            }
        }
        let crc = Header::expected_crc(chunk);
        if crc != h.crc32 {
            return Some(format!(
                "bad header crc {:x}, calculated {:x}",
                h.crc32, crc
            ));
        }
        None
    }

    /// The pattern check of one interval (fio's verify_io_u_pattern).
    fn check_pattern(
        &self,
        chunk: &[u8],
        block_offset: u64,
        start: usize,
        hs: usize,
        lines: &mut Vec<String>,
    ) {
        // Position in the buffer, as the writer's pieces were laid out.
        let piece = match self.pattern_interval {
            0 => usize::MAX,
            n => n,
        };
        let mut pos = start + hs;
        let mut i = 0;
        let data = &chunk[hs..];
        while i < data.len() {
            let first = pos / piece * piece;
            let p = self.pasted(block_offset + first as u64);
            let n = (data.len() - i).min(piece - (pos - first));
            let mut m = (pos - first) % p.len();
            for (j, &b) in data[i..i + n].iter().enumerate() {
                if b != p[m] {
                    lines.push(format!(
                        "fio: got pattern '{b:02x}', wanted '{:02x}'. Bad bits {}",
                        p[m],
                        (b ^ p[m]).count_ones()
                    ));
                    lines.push(format!("fio: bad pattern block offset {}", i + j));
                    return;
                }
                m += 1;
                if m == p.len() {
                    m = 0;
                }
            }
            i += n;
            pos += n;
        }
    }
}

/// Header plus checksum bytes of a kind (fio's __hdr_size).
pub fn hdr_size(kind: VerifyKind) -> usize {
    kind.hdr_size()
}

/// fio's memswp: swap the header's bytes with those at `offset` in the interval.
fn swap(chunk: &mut [u8], offset: usize, len: usize) {
    if offset + len > chunk.len() || offset < len {
        return;
    }
    let (a, b) = chunk.split_at_mut(offset);
    a[..len].swap_with_slice(&mut b[..len]);
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(kind: VerifyKind, pattern: &str, piece: usize) -> Layout {
        let (pattern, pattern_offsets) =
            ferrio_config::ext::verify::parse_pattern(pattern).unwrap();
        Layout {
            kind,
            interval: 4096,
            offset: 0,
            pattern,
            pattern_offsets,
            pattern_interval: piece,
            thread: 1,
        }
    }

    fn expect(offset: u64) -> Expect {
        Expect {
            offset,
            seed: None,
            numberio: None,
        }
    }

    #[test]
    fn a_pattern_interval_pastes_each_pieces_offset() {
        let l = layout(VerifyKind::PatternNoHdr, "%o", 512);
        let mut buf = vec![0u8; 4096];
        l.fill(&mut buf, 1 << 20, 0, 0, 0);
        for k in 0..8 {
            let want = (1u64 << 20) + k * 512;
            let at = k as usize * 512;
            assert_eq!(buf[at..at + 8], want.to_le_bytes(), "piece {k}");
            assert_eq!(buf[at + 504..at + 512], want.to_le_bytes(), "piece {k} end");
        }
        assert!(l
            .check_block(&mut buf.clone(), expect(1 << 20), "/f", false)
            .is_empty());
        // Another block's bytes (its pieces' offsets) fail.
        assert!(!l
            .check_block(&mut buf, expect(1 << 21), "/f", false)
            .is_empty());
    }

    #[test]
    fn pattern_hdr_checks_the_pattern_after_the_header() {
        // A piece shorter than the header, and one that does not divide the block.
        for piece in [0, 24, 500, 4096] {
            let l = layout(VerifyKind::Pattern, "%o\"ab\"", piece);
            let mut buf = vec![0u8; 8192];
            l.fill(&mut buf, 8192, 7, 1, 0);
            assert_eq!(buf[..2], crate::verify::header::MAGIC.to_le_bytes());
            let good = buf.clone();
            assert!(l
                .check_block(&mut buf, expect(8192), "/f", false)
                .is_empty());
            let mut bad = good.clone();
            bad[4096 + 3000] ^= 0x10;
            let f = l.check_block(&mut bad, expect(8192), "/f", false);
            assert_eq!(f.len(), 1, "piece {piece}");
            assert!(f[0].lines[0].contains("wanted"), "{:?}", f[0].lines);
        }
    }
}
