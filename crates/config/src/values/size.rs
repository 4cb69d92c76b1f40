//! Sizes: `4k`, `1m`, `1MiB`, `0x1000`, `(1024*1024)`, `50%`.
//!
//! Suffixes (case-insensitive): k, m, g, t, p, each optionally followed by `i` and/or
//! `b`; a lone `b` means bytes. With kb_base=1024 (default) `k` is 1024; with
//! kb_base=1000 `k` is 1000. A suffix ending in `ib` ("KiB", "mib") flips the base:
//! it means 1000 under kb_base=1024 and 1024 under kb_base=1000 (fio 3.33's actual
//! behaviour; a bare `i`, as in `1mi`, does not flip).

use super::arith::{eval, Unit};
use super::suffix::{fio_value_head, size_suffix_mult};

/// A size value that fio also accepts as a percentage of the file/device size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeOrPercent {
    Bytes(u64),
    /// 0.0..=100.0
    Percent(f64),
}

/// Parse a size in bytes.
pub fn parse_size(text: &str, kb_base: u32) -> Result<u64, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty size".into());
    }
    if s.starts_with('(') {
        return eval(s, Unit::Bytes { kb_base });
    }
    let s = fio_value_head(s);
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map_err(|_| format!("malformed size '{s}'"));
    }
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, suffix) = s.split_at(split);
    if digits.is_empty() {
        return Err(format!("malformed size '{s}'"));
    }
    // A float that is an integer (`16777216.0`, as scripts print sizes) is that
    // integer, as in fio. With a unit (`1.0m`) fio silently drops the unit (1 byte),
    // so that stays an error below, like a real fraction (which fio truncates).
    let suffix = match suffix.strip_prefix('.') {
        Some(f) if !f.is_empty() && f.bytes().all(|c| c == b'0') => "",
        _ => suffix,
    };
    let mult = size_suffix_mult(suffix, kb_base).ok_or_else(|| {
        if suffix.starts_with('.') {
            format!("malformed size '{s}' (fractional sizes are not accepted; use a smaller unit)")
        } else {
            format!(
                "malformed size '{s}' (units: k, m, g, t, p, e with optional i/b, e.g. 4k, 1MiB)"
            )
        }
    })?;
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("size '{s}' is too large"))?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("size '{s}' is too large"))
}

/// Parse a size that may also be a percentage (`50%`) of the file or device.
pub fn parse_size_or_percent(text: &str, kb_base: u32) -> Result<SizeOrPercent, String> {
    let s = text.trim();
    if let Some(p) = s.strip_suffix('%') {
        let v: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("malformed percentage '{s}'"))?;
        if !(0.0..=100.0).contains(&v) {
            return Err(format!("percentage '{s}' out of range [0%, 100%]"));
        }
        return Ok(SizeOrPercent::Percent(v));
    }
    parse_size(s, kb_base).map(SizeOrPercent::Bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sz(s: &str) -> u64 {
        parse_size(s, 1024).unwrap()
    }

    #[test]
    fn plain_and_units_kb1024() {
        assert_eq!(sz("0"), 0);
        assert_eq!(sz("4096"), 4096);
        assert_eq!(sz("4k"), 4096);
        assert_eq!(sz("4K"), 4096);
        assert_eq!(sz("4kb"), 4096);
        assert_eq!(sz("4KB"), 4096);
        assert_eq!(sz("1m"), 1 << 20);
        assert_eq!(sz("1MB"), 1 << 20);
        assert_eq!(sz("1g"), 1 << 30);
        assert_eq!(sz("1t"), 1 << 40);
        assert_eq!(sz("1p"), 1 << 50);
        assert_eq!(sz("4096b"), 4096);
        assert_eq!(sz("4096B"), 4096);
        assert_eq!(sz(" 4k "), 4096);
    }

    #[test]
    fn exa_suffix_where_it_fits() {
        assert_eq!(sz("1e"), 1 << 60);
        assert_eq!(sz("15e"), 15 << 60);
        assert_eq!(sz("2eb"), 2 << 60);
        assert_eq!(parse_size("1e", 1000).unwrap(), 1_000_000_000_000_000_000);
        assert_eq!(parse_size("1eib", 1000).unwrap(), 1 << 60);
        assert!(parse_size("16e", 1024).unwrap_err().contains("too large"));
        assert_eq!(crate::values::parse_int("(2e/4)", 1024).unwrap(), 1 << 59);
    }

    #[test]
    fn ib_suffix_flips_base() {
        // fio 3.33: 1MiB -> 1000000 and 1kib -> 1000 with kb_base=1024.
        assert_eq!(sz("1MiB"), 1_000_000);
        assert_eq!(sz("1kib"), 1000);
        // ... but a bare 'i' does not flip (fio 3.33 gives 1048576 for 1mi).
        assert_eq!(sz("1mi"), 1 << 20);
    }

    #[test]
    fn kb_base_1000() {
        assert_eq!(parse_size("1k", 1000).unwrap(), 1000);
        assert_eq!(parse_size("1KB", 1000).unwrap(), 1000);
        assert_eq!(parse_size("1ki", 1000).unwrap(), 1000);
        assert_eq!(parse_size("1kib", 1000).unwrap(), 1024);
        assert_eq!(parse_size("1KiB", 1000).unwrap(), 1024);
        assert_eq!(parse_size("1m", 1000).unwrap(), 1_000_000);
        assert_eq!(parse_size("1MiB", 1000).unwrap(), 1 << 20);
        assert_eq!(parse_size("1g", 1000).unwrap(), 1_000_000_000);
    }

    #[test]
    fn a_float_that_is_an_integer_is_that_integer() {
        assert_eq!(sz("16777216.0"), 16777216);
        assert_eq!(sz("4096.00"), 4096);
        // fio reads 1.0m as 1 byte (the unit after the fraction is lost): refused.
        for bad in ["1.0m", "4.00k", "1.5m", "1.05", "1.", "1.0.0", ".0"] {
            assert!(parse_size(bad, 1024).is_err(), "{bad}");
        }
    }

    #[test]
    fn percentages_from_0_to_100() {
        assert_eq!(
            parse_size_or_percent("0%", 1024).unwrap(),
            SizeOrPercent::Percent(0.0)
        );
        let e = parse_size_or_percent("101%", 1024).unwrap_err();
        assert!(e.contains("out of range [0%, 100%]"), "{e}");
    }

    #[test]
    fn hex() {
        assert_eq!(sz("0x10"), 16);
        assert_eq!(sz("0X1000"), 4096);
        assert!(parse_size("0x10k", 1024).is_err());
        assert!(parse_size("0x", 1024).is_err());
    }

    #[test]
    fn punctuation_after_the_value_is_ignored_as_fio_does() {
        // fio 3.33 reads these as the number (and unit) before the punctuation.
        assert_eq!(sz("65536)"), 65536);
        assert_eq!(sz("512/25"), 512);
        assert_eq!(sz("1k:25:2k"), 1024);
        assert_eq!(sz("4kb,"), 4096);
        assert_eq!(sz("0x10)"), 16);
        // What comes before the punctuation must still be a whole value.
        for bad in ["4q)", "1.5m)", "4k4)", ")", "k)"] {
            assert!(parse_size(bad, 1024).is_err(), "{bad}");
        }
    }

    #[test]
    fn arithmetic() {
        assert_eq!(sz("(1024*1024)"), 1 << 20);
        assert_eq!(sz("(2*1k)"), 2048);
        assert_eq!(sz("(1m/4)"), 256 * 1024);
        assert_eq!(sz("(4k+512)"), 4608);
    }

    #[test]
    fn malformed() {
        for bad in [
            "", "abc", "k", "4q", "4k4", "1kk", "1.5m", "-1", "1 k", "1x", "1ee", "4kibb", "%",
        ] {
            assert!(parse_size(bad, 1024).is_err(), "{bad:?} should be rejected");
        }
        let e = parse_size("1.5m", 1024).unwrap_err();
        assert!(e.contains("fractional"), "{e}");
    }

    #[test]
    fn overflow() {
        assert_eq!(sz("18446744073709551615"), u64::MAX);
        assert!(parse_size("18446744073709551616", 1024).is_err());
        assert!(parse_size("16384p", 1024).is_err());
        assert_eq!(sz("16383p"), 16383u64 << 50);
    }

    #[test]
    fn percent() {
        assert_eq!(
            parse_size_or_percent("50%", 1024).unwrap(),
            SizeOrPercent::Percent(50.0)
        );
        assert_eq!(
            parse_size_or_percent("12.5%", 1024).unwrap(),
            SizeOrPercent::Percent(12.5)
        );
        assert_eq!(
            parse_size_or_percent("4k", 1024).unwrap(),
            SizeOrPercent::Bytes(4096)
        );
        // 0% is a value (offset=0%, as fio); size=0% is refused by the size option.
        assert_eq!(
            parse_size_or_percent("0%", 1024).unwrap(),
            SizeOrPercent::Percent(0.0)
        );
        assert!(parse_size_or_percent("101%", 1024).is_err());
        assert!(parse_size_or_percent("x%", 1024).is_err());
    }

    proptest::proptest! {
        #[test]
        fn size_roundtrip(n in 0u64..(1u64 << 40), unit in 0usize..5) {
            let (suf, mult) = [("", 1u64), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("t", 1 << 40)][unit];
            let s = format!("{n}{suf}");
            match n.checked_mul(mult) {
                Some(v) => proptest::prop_assert_eq!(parse_size(&s, 1024).unwrap(), v),
                None => proptest::prop_assert!(parse_size(&s, 1024).is_err()),
            }
        }

        #[test]
        fn size_never_panics(s in "\\PC{0,24}", base in proptest::sample::select(vec![1000u32, 1024])) {
            let _ = parse_size(&s, base);
            let _ = parse_size_or_percent(&s, base);
        }
    }
}
