//! Unit suffixes shared by the plain parsers ([`super::size`], [`super::time`]) and
//! the expression evaluator ([`super::arith`]): one place for what `4k` or `10ms`
//! multiply by, below all three so none of them imports another's tables.

/// The part of a plain value fio reads: fio takes the number and its unit and
/// ignores whatever follows once that is punctuation, so `65536)` is 65536 and
/// `1k:25:2k` is 1k (fio 3.33's own test jobs and scripts rely on it). The cut is
/// at the first character that is not a letter, digit, `.`, `%` or blank, and never
/// at the start: what remains is still checked whole, so junk that fio would read
/// as a different number (`4k4`, `1.5m`, `4q`) stays an error.
pub fn fio_value_head(s: &str) -> &str {
    let cut =
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c.is_whitespace() || c == '.' || c == '%'));
    match cut {
        Some(i) if i > 0 => s[..i].trim_end(),
        _ => s,
    }
}

/// The multiplier of a size suffix (already lowercased), or None if it is not one.
pub fn size_suffix_mult(suffix: &str, kb_base: u32) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    if s.is_empty() || s == "b" {
        return Some(1);
    }
    let mut chars = s.chars();
    let pow = match chars.next()? {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        // exa: 1024^6 fits in 64 bits (up to 15e); fio 3.33 has no such unit and
        // reads any unknown letter as 1 (`1e` = 1 byte), which no user means.
        'e' => 6,
        _ => return None,
    };
    let rest: String = chars.collect();
    let base: u64 = match rest.as_str() {
        "" | "b" | "i" => kb_base as u64,
        "ib" => {
            if kb_base == 1000 {
                1024
            } else {
                1000
            }
        }
        _ => return None,
    };
    Some(base.pow(pow))
}

/// Microseconds per unit of a time suffix, or None if it is not one.
pub fn time_suffix_us(suffix: &str) -> Option<u64> {
    Some(match suffix.to_ascii_lowercase().as_str() {
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" | "sec" => 1_000_000,
        "m" | "min" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::fio_value_head;

    #[test]
    fn punctuation_after_a_value_is_cut_as_fio_ignores_it() {
        assert_eq!(fio_value_head("65536)"), "65536");
        assert_eq!(fio_value_head("512/25"), "512");
        assert_eq!(fio_value_head("1k:25:2k:25:4k/25"), "1k");
        assert_eq!(fio_value_head("10s;"), "10s");
        // Nothing to cut, or nothing before the cut: left whole for the caller's check.
        for whole in ["4k", "4k4", "1.5m", "50%", "-1", ")", "(1+2)", "1 k"] {
            assert_eq!(fio_value_head(whole), whole);
        }
    }
}
