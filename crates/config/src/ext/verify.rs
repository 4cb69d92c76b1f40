//! Data verification (fio's verify= family): which checksum each written block
//! carries, where its header sits, the pattern, and what a failure does. The
//! on-disk layout and the checks live in the binary's `verify` module
//! (docs/verify.md).

/// verify=: the method. The numbers are fio 3.33's (the `verify_type` field of the
/// on-disk header), so blocks written by either tool verify with the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerifyKind {
    #[default]
    None,
    /// verify=meta: the header alone (fio's VERIFY_HDR_ONLY).
    Meta,
    Md5,
    Crc64,
    Crc32,
    Crc32c,
    Crc16,
    Crc7,
    Sha256,
    Sha512,
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
    Xxhash,
    Sha1,
    /// verify_pattern= without verify=: header plus pattern (fio's VERIFY_PATTERN);
    /// verify=pattern_hdr (fio 3.4x) names it.
    Pattern,
    /// verify=pattern: the pattern alone, no header (fio's VERIFY_PATTERN_NO_HDR).
    PatternNoHdr,
    /// verify=null: pretend to verify.
    Null,
}

/// (name, kind, fio's verify_type number) for every verify= value. crc32c-intel is
/// crc32c (fio uses the hardware path for both when the CPU has it).
pub const VERIFY_KINDS: [(&str, VerifyKind, u16); 21] = [
    ("0", VerifyKind::None, 0),
    ("md5", VerifyKind::Md5, 2),
    ("crc64", VerifyKind::Crc64, 3),
    ("crc32", VerifyKind::Crc32, 4),
    ("crc32c-intel", VerifyKind::Crc32c, 5),
    ("crc32c", VerifyKind::Crc32c, 5),
    ("crc16", VerifyKind::Crc16, 7),
    ("crc7", VerifyKind::Crc7, 8),
    ("sha1", VerifyKind::Sha1, 16),
    ("sha256", VerifyKind::Sha256, 9),
    ("sha512", VerifyKind::Sha512, 10),
    ("sha3-224", VerifyKind::Sha3_224, 11),
    ("sha3-256", VerifyKind::Sha3_256, 12),
    ("sha3-384", VerifyKind::Sha3_384, 13),
    ("sha3-512", VerifyKind::Sha3_512, 14),
    ("xxhash", VerifyKind::Xxhash, 15),
    ("meta", VerifyKind::Meta, 1),
    ("pattern", VerifyKind::PatternNoHdr, 18),
    ("pattern_hdr", VerifyKind::Pattern, 17),
    ("null", VerifyKind::Null, 19),
    ("none", VerifyKind::None, 0),
];

impl VerifyKind {
    /// fio's verify_type number (the header field).
    pub fn code(self) -> u16 {
        match self {
            VerifyKind::Pattern => 17,
            k => VERIFY_KINDS
                .iter()
                .find(|e| e.1 == k)
                .map(|e| e.2)
                .unwrap_or(0),
        }
    }

    /// The kind of a header's verify_type number.
    pub fn from_code(code: u16) -> Option<VerifyKind> {
        if code == 17 {
            return Some(VerifyKind::Pattern);
        }
        if code == 6 {
            return Some(VerifyKind::Crc32c); // fio's VERIFY_CRC32C_INTEL
        }
        VERIFY_KINDS.iter().find(|e| e.2 == code).map(|e| e.1)
    }

    /// Bytes of checksum after the 40-byte header (fio's vhdr_* sizes).
    pub fn checksum_len(self) -> usize {
        match self {
            VerifyKind::Md5 => 16,
            VerifyKind::Crc64 => 8,
            VerifyKind::Crc32 | VerifyKind::Crc32c | VerifyKind::Xxhash => 4,
            VerifyKind::Crc16 => 2,
            VerifyKind::Crc7 => 1,
            VerifyKind::Sha256 => 64,
            VerifyKind::Sha512 => 128,
            VerifyKind::Sha3_224 => 28,
            VerifyKind::Sha3_256 => 32,
            VerifyKind::Sha3_384 => 48,
            VerifyKind::Sha3_512 => 64,
            VerifyKind::Sha1 => 20,
            _ => 0,
        }
    }

    /// Header plus checksum bytes at the start of each interval (fio's __hdr_size).
    pub fn hdr_size(self) -> usize {
        match self {
            VerifyKind::PatternNoHdr => 0,
            k => HDR_LEN + k.checksum_len(),
        }
    }

    /// The name fio prints for it (verify=<name>).
    pub fn name(self) -> &'static str {
        match self {
            VerifyKind::Pattern => "pattern",
            k => VERIFY_KINDS
                .iter()
                .find(|e| e.1 == k && e.0 != "crc32c-intel" && e.0 != "0")
                .map(|e| e.0)
                .unwrap_or("none"),
        }
    }
}

/// fio's verify header: 40 bytes before each interval's checksum.
pub const HDR_LEN: usize = 40;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// fio's verify_interval after its fix-ups (init.c): at most the smallest write
/// size, a divisor of the smallest and largest, the write size by default.
pub fn effective_interval(given: u64, wmin: u64, wmax: u64) -> u64 {
    let mut interval = given;
    if wmax != wmin && interval == 0 {
        interval = wmin;
    }
    if interval > wmin {
        interval = wmin;
    }
    if interval == 0 || wmin % interval != 0 || wmax % interval != 0 {
        interval = gcd(wmin, wmax);
    }
    interval
}

/// The job's verify options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifySpec {
    pub kind: VerifyKind,
    /// verify= was given (verify_pattern= alone turns on header+pattern, as fio).
    pub kind_set: bool,
    /// do_verify=: read back and check after the writes (default on).
    pub do_verify: bool,
    /// verify_interval=: a header every this many bytes (0: the block size).
    pub interval: u64,
    /// verify_offset=: the header is swapped to this offset in its interval.
    pub offset: u64,
    /// verify_pattern=: the bytes, and where `%o` pastes the block's offset.
    pub pattern: Vec<u8>,
    pub pattern_offsets: Vec<usize>,
    /// verify_pattern_interval= (fio 3.4x): the pattern starts again every this many
    /// bytes of a block, `%o` the offset of each such piece (0: once per block).
    pub pattern_interval: u64,
    /// verify_policy=fsynced (fio 3.4x): a later verify_state_load pass checks only
    /// the writes an fsync covered.
    pub policy_fsynced: bool,
    /// --aux-path (run-wide): the directory of the state and verify_dump files
    /// (None: the working directory).
    pub aux_path: Option<std::path::PathBuf>,
    pub fatal: bool,
    pub dump: bool,
    /// verify_backlog=: verify the written blocks every this many writes (0: at the end).
    pub backlog: u64,
    /// verify_backlog_batch=: blocks verified per backlog round (0: backlog).
    pub backlog_batch: u64,
    /// verify_async=: fio's offload threads (ferrio verifies on the job thread).
    pub async_threads: u64,
    /// verify_only=: issue no writes, only verify what this workload would have written.
    pub only: bool,
    /// experimental_verify=: accepted; ferrio always verifies from its own write log.
    pub experimental: bool,
    /// verify_header_seed= (fio 3.36+): check the header's seed (default on).
    pub header_seed: bool,
    /// verify_write_sequence= (fio 3.4x): check the header's write number; None when
    /// not given (on, but off where fio turns it off: see `write_sequence_checked`).
    pub write_sequence: Option<bool>,
    /// trim_percentage=: this share of the written blocks is trimmed again...
    pub trim_percentage: u32,
    /// ...trim_backlog_batch= (default trim_backlog) of them every trim_backlog=
    /// written blocks (0: never, as fio).
    pub trim_backlog: u64,
    pub trim_batch: u64,
    /// trim_verify_zero=: a trimmed block must read back as zeros (else it is not
    /// verified).
    pub trim_zero: bool,
    /// verify_state_save=: a verifying write job leaves fio's state file (default on).
    pub state_save: bool,
    /// verify_state_load=: the verify pass stops where the saved state says the
    /// writes ended.
    pub state_load: bool,
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            kind: VerifyKind::None,
            kind_set: false,
            do_verify: true,
            interval: 0,
            offset: 0,
            pattern: Vec::new(),
            pattern_offsets: Vec::new(),
            pattern_interval: 0,
            policy_fsynced: false,
            aux_path: None,
            fatal: false,
            dump: false,
            backlog: 0,
            backlog_batch: 0,
            async_threads: 0,
            only: false,
            experimental: false,
            header_seed: true,
            write_sequence: None,
            trim_percentage: 0,
            trim_backlog: 0,
            trim_batch: 0,
            trim_zero: true,
            state_save: true,
            state_load: false,
        }
    }
}

impl VerifySpec {
    /// Blocks carry verify data (verify= set to something but none).
    pub fn on(&self) -> bool {
        self.kind != VerifyKind::None
    }

    /// The header and checksum must fit in each interval of the smallest block
    /// (fio fails such a job at its first write: "Blocksize too small").
    pub fn check(&self, wmin: u64, wmax: u64) -> Result<(), String> {
        if matches!(self.kind, VerifyKind::None | VerifyKind::Null) {
            return Ok(());
        }
        let inc = effective_interval(self.interval, wmin, wmax) as usize;
        let hs = self.kind.hdr_size();
        if inc <= hs {
            return Err(format!(
                "verify={}: each verify interval ({inc} bytes) must be larger than its header and checksum ({hs} bytes); use a larger bs or verify_interval",
                self.kind.name()
            ));
        }
        // fio swaps the two ranges byte for byte; overlapping, the swap cannot be
        // undone, and fio 3.33 fails every block it wrote itself.
        if self.offset > 0 && (self.offset as usize) < hs && self.kind != VerifyKind::PatternNoHdr {
            return Err(format!(
                "verify_offset={}: the header and checksum ({hs} bytes with verify={}) would overlap the bytes they are swapped with; use verify_offset={hs} or more (fio 3.33 accepts it and then fails every block it wrote)",
                self.offset,
                self.kind.name()
            ));
        }
        if self.offset > 0 && self.offset as usize + hs > inc {
            return Err(format!(
                "verify_offset={}: the header and checksum ({hs} bytes) must fit in the verify interval ({inc} bytes) from there",
                self.offset
            ));
        }
        Ok(())
    }
}

/// The largest pattern fio accepts (MAX_PATTERN_SIZE: 512 bytes in fio 3.33, 128 MiB
/// in fio master, which reads patterns from files).
pub const MAX_PATTERN: usize = crate::values::pattern::MAX_PATTERN_FILE as usize;

/// fio's pattern syntax: a sequence of `0x` hex strings (bytes in the order
/// written), decimal numbers (little-endian, as few bytes as needed), `"strings"`
/// `'file'` (its bytes) and `%o` (the block's offset, 8 bytes little-endian, pasted
/// per block), with nothing between them. Returns the bytes and the positions of each `%o`.
pub fn parse_pattern(input: &str) -> Result<(Vec<u8>, Vec<usize>), String> {
    let bad = |why: &str| format!("bad pattern '{input}': {why}");
    let mut out = Vec::new();
    let mut fmts = Vec::new();
    let mut s = input.trim();
    if s.is_empty() {
        return Err(bad("empty"));
    }
    while !s.is_empty() {
        if let Some(rest) = s.strip_prefix('\'') {
            // 'file': the file's bytes (fio's lib/pattern.c parse_file).
            let end = rest
                .find('\'')
                .ok_or_else(|| bad("unterminated file name"))?;
            out.extend(crate::values::pattern::read_pattern_file(&rest[..end])?);
            s = &rest[end + 1..];
        } else if let Some(rest) = s.strip_prefix('"') {
            let end = rest.find('"').ok_or_else(|| bad("unterminated string"))?;
            if end == 0 {
                return Err(bad("empty string"));
            }
            out.extend_from_slice(&rest.as_bytes()[..end]);
            s = &rest[end + 1..];
        } else if let Some(rest) = s.strip_prefix("%o") {
            fmts.push(out.len());
            out.extend_from_slice(&[0; 8]);
            s = rest;
        } else if s.len() > 2 && (s.starts_with("0x") || s.starts_with("0X")) {
            let digits = &s[2..];
            let mut n = digits
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(digits.len());
            // "0xff0x14": the last hex digit '0' belongs to the next 0x.
            if n < digits.len() && n > 0 && digits[n - 1..].to_ascii_lowercase().starts_with("0x") {
                n -= 1;
            }
            if n == 0 {
                return Err(bad("no hex digits after 0x"));
            }
            let hex = &digits[..n];
            // An odd count: the first byte is one digit (fio's rule).
            let (first, rest) = hex.split_at(hex.len() % 2);
            if !first.is_empty() {
                out.push(u8::from_str_radix(first, 16).map_err(|e| bad(&e.to_string()))?);
            }
            for i in (0..rest.len()).step_by(2) {
                out.push(u8::from_str_radix(&rest[i..i + 2], 16).map_err(|e| bad(&e.to_string()))?);
            }
            s = &digits[n..];
        } else {
            let (v, n) = decimal(s)
                .ok_or_else(|| bad("expected 0x hex, a number, a \"string\", a 'file' or %o"))?;
            if v > i32::MAX as i64 || v < i32::MIN as i64 {
                return Err(bad("number out of range"));
            }
            let mut u = v as i32 as u32;
            if u == 0 {
                out.push(0);
            }
            while u != 0 {
                out.push(u as u8);
                u >>= 8;
            }
            s = &s[n..];
        }
        if out.len() > MAX_PATTERN {
            return Err(bad(&format!("longer than {MAX_PATTERN} bytes")));
        }
    }
    Ok((out, fmts))
}

/// fio's decimal token (strtol's: blanks, then a sign, then digits) and the bytes of
/// `s` it uses. fio looks ahead for a "0x" and reads no further, so in `-120xdead`
/// the number is -12 and `0xdead` the next token.
fn decimal(s: &str) -> Option<(i64, usize)> {
    let limit = s.to_ascii_lowercase().find("0x").unwrap_or(s.len());
    let b = &s.as_bytes()[..limit];
    let mut i = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    let start = i;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let end = i + digits;
    // Too many digits for an i64 is out of range too (fio's strtol saturates).
    let v = s[start..end]
        .trim_start_matches('+')
        .parse()
        .unwrap_or(i64::MAX);
    Some((v, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_parse_as_fio() {
        assert_eq!(
            parse_pattern("0xdeadbeef").unwrap().0,
            [0xde, 0xad, 0xbe, 0xef]
        );
        assert_eq!(parse_pattern("0xabc").unwrap().0, [0x0a, 0xbc]);
        assert_eq!(parse_pattern("0xff0x14").unwrap().0, [0xff, 0x14]);
        assert_eq!(parse_pattern("258").unwrap().0, [2, 1]);
        assert_eq!(parse_pattern("0").unwrap().0, [0]);
        assert_eq!(parse_pattern("\"ab\"0x01").unwrap().0, [b'a', b'b', 1]);
        let (p, f) = parse_pattern("0xaa%o\"z\"").unwrap();
        assert_eq!(p.len(), 10);
        assert_eq!(f, [1]);
        assert!(parse_pattern("zz").is_err());
        assert!(parse_pattern("\"open").is_err());
        assert!(parse_pattern("").is_err());
    }

    #[test]
    fn a_0x_ends_the_decimal_before_it_as_in_buffer_pattern() {
        let (p, _) = parse_pattern("\"abcd\"-120xdeadface").unwrap();
        let mut want = b"abcd".to_vec();
        want.extend((-12i32).to_le_bytes());
        want.extend([0xde, 0xad, 0xfa, 0xce]);
        // -12 is the whole i32 here (fio fills a decimal's bytes up to the highest
        // non-zero one, which for a negative is all four).
        assert_eq!(p, want);
        assert_eq!(
            p,
            crate::values::parse_pattern("\"abcd\"-120xdeadface").unwrap()
        );
        assert_eq!(parse_pattern("100x01").unwrap().0, [10, 1]);
    }

    #[test]
    fn a_verify_pattern_may_come_from_a_file() {
        let dir = std::env::temp_dir().join(format!("ferrio-vpat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("v.bin");
        let bytes: Vec<u8> = (0..16384u32).map(|i| (i * 13 + 5) as u8).collect();
        std::fs::write(&f, &bytes).unwrap();
        let (p, fmts) = parse_pattern(&format!("'{}'%o", f.display())).unwrap();
        std::fs::write(&f, b"").unwrap();
        let empty = parse_pattern(&format!("'{}'", f.display()));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(p[..bytes.len()], bytes[..]);
        assert_eq!(fmts, [bytes.len()]);
        let e = empty.unwrap_err();
        assert!(e.contains("is empty"), "{e}");
        assert!(parse_pattern("'no-such-ferrio-pattern-file'").is_err());
    }

    #[test]
    fn kinds_round_trip_fio_codes() {
        for (name, k, code) in VERIFY_KINDS {
            assert_eq!(k.code(), code, "{name}");
            assert_eq!(VerifyKind::from_code(code), Some(k), "{name}");
        }
        assert_eq!(VerifyKind::Pattern.code(), 17);
        assert_eq!(VerifyKind::Crc32c.name(), "crc32c");
    }

    #[test]
    fn a_number_ends_where_a_0x_begins() {
        // fio's look-ahead: "-120xdeadface" is -12 then 0xdeadface.
        let (p, _) = parse_pattern("\"abcd\"-120xdeadface").unwrap();
        assert_eq!(p, b"abcd\xf4\xff\xff\xff\xde\xad\xfa\xce");
        let (p, f) = parse_pattern("-100xab\"1\"%o\"2\"").unwrap();
        assert_eq!(p[..6], [0xf6, 0xff, 0xff, 0xff, 0xab, b'1']);
        assert_eq!((p.len(), f), (15, vec![6]));
        assert_eq!(parse_pattern("-1024").unwrap().0, [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(parse_pattern("100x01").unwrap().0, [10, 1]);
        // strtol's leading blanks and '+'.
        assert_eq!(parse_pattern("1 +2").unwrap().0, [1, 2]);
        assert!(parse_pattern("4294967296").is_err());
        assert!(parse_pattern("99999999999999999999999").is_err());
        assert!(parse_pattern("1+").is_err());
    }

    #[test]
    fn only_a_leading_minus_belongs_to_a_number() {
        // "1-1" is the numbers 1 and -1, not one malformed number.
        let (bytes, _) = parse_pattern("1-1").unwrap();
        assert_eq!(bytes[0], 1);
        assert_eq!(bytes[1..], parse_pattern("-1").unwrap().0[..]);
    }
}
