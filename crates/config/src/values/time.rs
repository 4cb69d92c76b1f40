//! Times: `10` (default unit), `10s`, `500ms`, `250us`, `2m`, `1h`, `1d`, `(2*1000)`.
//!
//! Suffixes are case-insensitive: ns/nsec (rounded up to whole microseconds), us/usec, ms/msec, s/sec, m/min, h, d. Without a
//! suffix the option's default unit applies (seconds for runtime, ramp_time,
//! startdelay; milliseconds for bwavgtime). Inside parentheses the default unit is
//! microseconds (fio's rule for arithmetic). Results are microseconds.

use super::arith::{eval, Unit};
use super::suffix::{fio_value_head, time_suffix_us};

/// The unit a time option uses when the value has no suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Us,
    Ms,
    S,
}

impl TimeUnit {
    pub fn us(self) -> u64 {
        match self {
            TimeUnit::Us => 1,
            TimeUnit::Ms => 1_000,
            TimeUnit::S => 1_000_000,
        }
    }
}

/// Parse a time to microseconds.
pub fn parse_time(text: &str, default: TimeUnit) -> Result<u64, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty time".into());
    }
    if s.starts_with('(') {
        return eval(s, Unit::Time);
    }
    let s = fio_value_head(s);
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, suffix) = s.split_at(split);
    if digits.is_empty() {
        return Err(format!("malformed time '{s}'"));
    }
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("time '{s}' is too large"))?;
    // Times are kept in microseconds: nanoseconds round up, so a non-zero time stays
    // non-zero (fio 3.33 knows no `ns` and reads the number as microseconds).
    if matches!(suffix.to_ascii_lowercase().as_str(), "ns" | "nsec") {
        return Ok(n.div_ceil(1000));
    }
    let mult = if suffix.is_empty() {
        default.us()
    } else {
        time_suffix_us(suffix).ok_or_else(|| {
            format!(
                "malformed time '{s}' (units: ns, us, ms, s, m, h, d; fractions are not accepted)"
            )
        })?
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("time '{s}' is too large"))
}

/// Parse a time or a time range (`1s-5s` or `1:5`); a single value gives (v, v).
/// A reversed range is swapped, as fio does.
pub fn parse_time_range(text: &str, default: TimeUnit) -> Result<(u64, u64), String> {
    let s = text.trim();
    match super::list::range_separator(s) {
        None => {
            let v = parse_time(s, default)?;
            Ok((v, v))
        }
        Some(i) => {
            let a = parse_time(&s[..i], default)?;
            let b = parse_time(&s[i + 1..], default)?;
            Ok((a.min(b), a.max(b)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        let t = |s| parse_time(s, TimeUnit::S).unwrap();
        assert_eq!(t("10"), 10_000_000);
        assert_eq!(t("10s"), 10_000_000);
        assert_eq!(t("10S"), 10_000_000);
        assert_eq!(t("10sec"), 10_000_000);
        assert_eq!(t("10ms"), 10_000);
        assert_eq!(t("10MS"), 10_000);
        assert_eq!(t("10msec"), 10_000);
        assert_eq!(t("10us"), 10);
        assert_eq!(t("10usec"), 10);
        assert_eq!(t("1m"), 60_000_000);
        assert_eq!(t("1h"), 3_600_000_000);
        assert_eq!(t("1d"), 86_400_000_000);
        assert_eq!(t("0"), 0);
        assert_eq!(parse_time("500", TimeUnit::Ms).unwrap(), 500_000);
        assert_eq!(parse_time("500", TimeUnit::Us).unwrap(), 500);
    }

    #[test]
    fn nanoseconds_round_up_to_microseconds() {
        let t = |s| parse_time(s, TimeUnit::S).unwrap();
        assert_eq!(t("0ns"), 0);
        assert_eq!(t("1ns"), 1);
        assert_eq!(t("999ns"), 1);
        assert_eq!(t("1000ns"), 1);
        assert_eq!(t("1001NS"), 2);
        assert_eq!(t("2500nsec"), 3);
        assert!(parse_time("18446744073709551616ns", TimeUnit::S).is_err());
    }

    #[test]
    fn arithmetic_defaults_to_microseconds() {
        assert_eq!(parse_time("(1+2)", TimeUnit::S).unwrap(), 3);
        assert_eq!(parse_time("(2*1s)", TimeUnit::S).unwrap(), 2_000_000);
    }

    #[test]
    fn malformed() {
        for bad in ["", "s", "1.5", "1.5s", "10x", "-1", "10 s", "1ss"] {
            assert!(parse_time(bad, TimeUnit::S).is_err(), "{bad}");
        }
        assert!(parse_time("99999999999999999999", TimeUnit::S).is_err());
        assert!(parse_time("999999999999999d", TimeUnit::S).is_err());
    }

    #[test]
    fn ranges() {
        assert_eq!(
            parse_time_range("5", TimeUnit::S).unwrap(),
            (5_000_000, 5_000_000)
        );
        assert_eq!(
            parse_time_range("1-5", TimeUnit::S).unwrap(),
            (1_000_000, 5_000_000)
        );
        assert_eq!(
            parse_time_range("5s:1s", TimeUnit::S).unwrap(),
            (1_000_000, 5_000_000)
        );
        assert_eq!(
            parse_time_range("100ms-1s", TimeUnit::S).unwrap(),
            (100_000, 1_000_000)
        );
        assert_eq!(
            parse_time_range("(1000*2)-(3s)", TimeUnit::S).unwrap(),
            (2000, 3_000_000)
        );
        assert!(parse_time_range("1-", TimeUnit::S).is_err());
        assert!(parse_time_range("x-1", TimeUnit::S).is_err());
    }
}
