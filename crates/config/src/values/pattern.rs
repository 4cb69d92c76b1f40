//! `buffer_pattern=`: concatenation of hex (`0xdeadface`, bytes in written order),
//! double-quoted strings (`"abcd"`) and decimal integers (`-12`, `4096`: stored
//! little-endian in the fewest bytes that hold them, two's complement when negative).
//! `'file'` (read the pattern from a file) is not supported: parsing touches no files.

/// Parse a buffer pattern into bytes.
pub fn parse_pattern(text: &str) -> Result<Vec<u8>, String> {
    let s = text.trim().as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'"' => {
                let end = s[i + 1..]
                    .iter()
                    .position(|&c| c == b'"')
                    .ok_or_else(|| format!("unterminated string in pattern '{text}'"))?;
                out.extend_from_slice(&s[i + 1..i + 1 + end]);
                i += end + 2;
            }
            b'\'' => {
                return Err(format!(
                    "file patterns ('{text}') are not supported by ferrio yet"
                ));
            }
            b'0' if matches!(s.get(i + 1), Some(b'x' | b'X')) => {
                let start = i + 2;
                let mut j = start;
                while j < s.len() && s[j].is_ascii_hexdigit() {
                    j += 1;
                }
                let hex = &s[start..j];
                if hex.is_empty() {
                    return Err(format!("empty hex number in pattern '{text}'"));
                }
                // An odd number of digits gets a leading zero nibble.
                let padded: Vec<u8> = if hex.len() % 2 == 1 {
                    std::iter::once(b'0').chain(hex.iter().copied()).collect()
                } else {
                    hex.to_vec()
                };
                for pair in padded.chunks(2) {
                    let h = std::str::from_utf8(pair).unwrap_or("");
                    out.push(
                        u8::from_str_radix(h, 16)
                            .map_err(|_| format!("bad hex in pattern '{text}'"))?,
                    );
                }
                i = j;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < s.len() && s[i].is_ascii_digit() {
                    i += 1;
                }
                let n = std::str::from_utf8(&s[start..i]).unwrap_or("");
                let v: i64 = n
                    .parse()
                    .map_err(|_| format!("bad number '{n}' in pattern '{text}'"))?;
                let bytes = v.to_le_bytes();
                // Fewest bytes that sign-extend (or zero-extend) back to v.
                let len = (1..=8)
                    .find(|&l| {
                        let shift = 64 - 8 * l as u32;
                        if v < 0 {
                            (v << shift) >> shift == v
                        } else {
                            ((v as u64) << shift) >> shift == v as u64
                        }
                    })
                    .unwrap_or(8);
                out.extend_from_slice(&bytes[..len]);
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                return Err(format!(
                    "malformed pattern '{text}' (use 0x hex, \"string\" or decimal)"
                ))
            }
        }
    }
    if out.is_empty() {
        return Err("empty pattern".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(parse_pattern("-12").unwrap(), vec![0xf4]);
        assert_eq!(
            parse_pattern("0xdeadface\"abcd\"-12").unwrap(),
            vec![0xde, 0xad, 0xfa, 0xce, b'a', b'b', b'c', b'd', 0xf4]
        );
    }

    #[test]
    fn errors() {
        for bad in ["", "0x", "\"abc", "'file'", "xyz", "0xzz"] {
            assert!(parse_pattern(bad).is_err(), "{bad}");
        }
    }
}
