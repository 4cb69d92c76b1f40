//! Unit suffixes shared by the plain parsers ([`super::size`], [`super::time`]) and
//! the expression evaluator ([`super::arith`]): one place for what `4k` or `10ms`
//! multiply by, below all three so none of them imports another's tables.

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
