//! `buffer_pattern=`: concatenation of hex (`0xdeadface`, bytes in written order),
//! double-quoted strings (`"abcd"`) and decimal integers (`-12`, `4096`: the 32-bit
//! value little-endian, up to its highest non-zero byte, so -12 is f4 ff ff ff).
//! `'file'` reads the pattern's bytes from that file (read only, when the job is parsed).
//! The rules are fio 3.33's (lib/pattern.c): a `0x` ends the number before it
//! (`-120xdeadface` is -12 then 0xdeadface), decimals are 32-bit.

/// Parse a buffer pattern into bytes.
pub fn parse_pattern(text: &str) -> Result<Vec<u8>, String> {
    let s = text.trim().as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            q @ (b'"' | b'\'') => {
                let end = s[i + 1..]
                    .iter()
                    .position(|&c| c == q)
                    .ok_or_else(|| format!("unterminated quote in pattern '{text}'"))?;
                let inner = &s[i + 1..i + 1 + end];
                if q == b'"' {
                    out.extend_from_slice(inner);
                } else {
                    out.extend(read_pattern_file(&String::from_utf8_lossy(inner))?);
                }
                i += end + 2;
            }
            b'0' if matches!(s.get(i + 1), Some(b'x' | b'X')) => {
                let start = i + 2;
                let mut j = start;
                while j < s.len() && s[j].is_ascii_hexdigit() {
                    // A "0x" right after the digits starts the next number (0xff0x14).
                    if s[j] == b'0' && matches!(s.get(j + 1), Some(b'x' | b'X')) {
                        break;
                    }
                    j += 1;
                }
                out.extend(hex_bytes(&s[start..j], text)?);
                i = j;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < s.len()
                    && s[i].is_ascii_digit()
                    && !(s[i] == b'0' && matches!(s.get(i + 1), Some(b'x' | b'X')))
                {
                    i += 1;
                }
                let n = std::str::from_utf8(&s[start..i]).unwrap_or("");
                out.extend(decimal_bytes(n, text)?);
            }
            b'%' => {
                return Err(format!(
                    "pattern formats like %o are not supported by ferrio yet (in '{text}')"
                ))
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                return Err(format!(
                    "malformed pattern '{text}' (use 0x hex, \"string\", 'file' or decimal)"
                ))
            }
        }
    }
    if out.is_empty() {
        return Err("empty pattern".into());
    }
    Ok(out)
}

/// The largest pattern fio master takes from a file (its MAX_PATTERN_SIZE, 128 MiB;
/// fio 3.33 silently kept the first 512 bytes of a file).
pub const MAX_PATTERN_FILE: u64 = 128 << 20;

/// The bytes of a `'file'` pattern: the whole file, opened as given (relative to the
/// working directory, as fio opens it). A missing or empty file is an error naming it
/// (fio 3.33 says only "failed parsing", and asserts on an empty file).
pub fn read_pattern_file(path: &str) -> Result<Vec<u8>, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("cannot read pattern file '{path}': {}", reason(&e)))?
        .len();
    if len > MAX_PATTERN_FILE {
        return Err(format!(
            "pattern file '{path}' is {len} bytes, more than the {MAX_PATTERN_FILE} a pattern may have"
        ));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read pattern file '{path}': {}", reason(&e)))?;
    if bytes.is_empty() {
        return Err(format!("pattern file '{path}' is empty"));
    }
    Ok(bytes)
}

/// An I/O error without its "(os error N)" tail.
fn reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

/// Hex digits → bytes in written order; an odd count gets a leading zero nibble.
fn hex_bytes(hex: &[u8], text: &str) -> Result<Vec<u8>, String> {
    if hex.is_empty() {
        return Err(format!("empty hex number in pattern '{text}'"));
    }
    let padded: Vec<u8> = if hex.len() % 2 == 1 {
        std::iter::once(b'0').chain(hex.iter().copied()).collect()
    } else {
        hex.to_vec()
    };
    padded
        .chunks(2)
        .map(|pair| {
            u8::from_str_radix(std::str::from_utf8(pair).unwrap_or(""), 16)
                .map_err(|_| format!("bad hex in pattern '{text}'"))
        })
        .collect()
}

/// A decimal in the 32-bit signed range, as fio stores it: the 32-bit value's bytes,
/// least significant first, up to its highest non-zero byte (0 is one zero byte, -12
/// is f4 ff ff ff, 4096 is 00 10).
fn decimal_bytes(n: &str, text: &str) -> Result<Vec<u8>, String> {
    let v: i64 = n
        .parse()
        .map_err(|_| format!("bad number '{n}' in pattern '{text}'"))?;
    let v = i32::try_from(v).map_err(|_| {
        format!("number {v} in pattern '{text}' is outside the 32-bit signed range")
    })?;
    let mut u = v as u32;
    let mut out = vec![(u & 0xff) as u8];
    u >>= 8;
    while u != 0 {
        out.push((u & 0xff) as u8);
        u >>= 8;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of this test's own (removed when dropped).
    struct Scratch(std::path::PathBuf);
    impl Scratch {
        fn new(tag: &str) -> Self {
            let d = std::env::temp_dir().join(format!("ferrio-pat-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            Scratch(d)
        }
        fn file(&self, name: &str, bytes: &[u8]) -> String {
            let p = self.0.join(name);
            std::fs::write(&p, bytes).unwrap();
            p.display().to_string()
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_quoted_file_name_gives_the_files_bytes() {
        let d = Scratch::new("buf");
        let big: Vec<u8> = (0..20_000u32).map(|i| (i * 7) as u8).collect();
        let f = d.file("p.bin", &big);
        assert_eq!(parse_pattern(&format!("'{f}'")).unwrap(), big);
        // Mixed with the other forms, in order.
        let g = d.file("q.bin", b"xy");
        assert_eq!(
            parse_pattern(&format!("0x01'{g}'\"z\"")).unwrap(),
            [1, b'x', b'y', b'z']
        );
        let e = parse_pattern(&format!("'{}'", d.file("e.bin", b""))).unwrap_err();
        assert!(e.contains("is empty") && e.contains("e.bin"), "{e}");
        let missing = d.0.join("nope.bin").display().to_string();
        let e = parse_pattern(&format!("'{missing}'")).unwrap_err();
        assert!(
            e.contains("cannot read pattern file") && e.contains("nope.bin"),
            "{e}"
        );
        assert!(parse_pattern("'unterminated").is_err());
    }

    #[test]
    fn forms() {
        assert_eq!(
            parse_pattern("0xdeadface").unwrap(),
            vec![0xde, 0xad, 0xfa, 0xce]
        );
        assert_eq!(parse_pattern("0xabc").unwrap(), vec![0x0a, 0xbc]);
        assert_eq!(parse_pattern("\"abcd\"").unwrap(), b"abcd".to_vec());
        assert_eq!(parse_pattern("4096").unwrap(), vec![0x00, 0x10]);
        assert_eq!(parse_pattern("255").unwrap(), vec![0xff]);
        assert_eq!(parse_pattern("0").unwrap(), vec![0]);
        // fio stores a negative decimal as its 32-bit value (checked with fio 3.33).
        assert_eq!(parse_pattern("-12").unwrap(), vec![0xf4, 0xff, 0xff, 0xff]);
        assert_eq!(
            parse_pattern("0xdeadface\"abcd\"-12").unwrap(),
            vec![0xde, 0xad, 0xfa, 0xce, b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff]
        );
    }

    #[test]
    fn a_0x_ends_the_number_before_it_as_in_fio() {
        // fio 3.33 writes 61 62 63 64 f4 ff ff ff de ad fa ce for this one.
        assert_eq!(
            parse_pattern("\"abcd\"-120xdeadface").unwrap(),
            vec![b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce]
        );
        assert_eq!(parse_pattern("0xFF0X1").unwrap(), vec![0xff, 0x01]);
        assert_eq!(
            parse_pattern("-100xab\"1\"").unwrap(),
            vec![0xf6, 0xff, 0xff, 0xff, 0xab, b'1']
        );
        assert_eq!(
            parse_pattern("-1024").unwrap(),
            vec![0x00, 0xfc, 0xff, 0xff]
        );
    }

    #[test]
    fn a_pattern_from_a_file() {
        let p = std::env::temp_dir().join(format!("ferrio-pattern-{}", std::process::id()));
        std::fs::write(&p, b"XYZ").unwrap();
        let got = parse_pattern(&format!("'{}'0x01", p.display()));
        std::fs::remove_file(&p).unwrap();
        assert_eq!(got.unwrap(), b"XYZ\x01".to_vec());
        let e = parse_pattern("'/nonexistent/ferrio-pattern'").unwrap_err();
        assert!(
            e.contains("cannot read pattern file '/nonexistent/ferrio-pattern'"),
            "{e}"
        );
    }

    #[test]
    fn errors() {
        for bad in ["", "0x", "\"abc", "'abc", "xyz", "0xzz", "%o", "4294967296"] {
            assert!(parse_pattern(bad).is_err(), "{bad}");
        }
    }
}
