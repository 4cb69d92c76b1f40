//! Small value shapes: booleans, integers, ranges, per-direction lists, colon lists,
//! CPU lists and float lists.

use super::size::parse_size;

/// Parse a boolean. fio takes integers only (`true`/`yes` are errors in fio 3.33).
/// `flag` options (fio's "set" type: time_based, thread, ...) may be given bare and
/// accept any non-negative integer (non-zero = on); plain booleans need 0 or 1.
pub fn parse_bool(value: Option<&str>, flag: bool) -> Result<bool, String> {
    let Some(v) = value else {
        return if flag {
            Ok(true)
        } else {
            Err("a value is required (0 or 1)".into())
        };
    };
    let n =
        parse_int(v, 1024).map_err(|_| format!("malformed boolean '{}' (use 0 or 1)", v.trim()))?;
    match n {
        0 => Ok(false),
        1 => Ok(true),
        _ if flag => Ok(true),
        _ => Err(format!("boolean '{}' out of range (use 0 or 1)", v.trim())),
    }
}

/// Parse a non-negative integer. Like fio, integers accept size suffixes (`1k` = 1024),
/// `0x` hex and parenthesised arithmetic.
pub fn parse_int(text: &str, kb_base: u32) -> Result<u64, String> {
    parse_size(text, kb_base).map_err(|e| e.replace("size", "integer"))
}

/// Where a range `a-b` / `a:b` splits: outside parentheses (so `(1k*2)-(4k*2)`
/// works) and never at the very start, at the first `-` if there is one, else at
/// the first `:` (fio's order: `512/25:1k:25` splits at the first colon, and each
/// side is then read as fio reads it, here 512 and 1k).
pub(crate) fn range_separator(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut colon = None;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = (depth - 1).max(0),
            '-' if depth == 0 && i > 0 => return Some(i),
            ':' if depth == 0 && i > 0 && colon.is_none() => colon = Some(i),
            _ => {}
        }
    }
    colon
}

/// Parse a byte range `4k-64k` or `4k:64k`. A reversed range is swapped, as fio
/// does. A single value is not a range: fio's bsrange parser fails a part with
/// neither `-` nor `:` (`bsrange=4k` is "failed parsing" to fio).
pub fn parse_range(text: &str, kb_base: u32) -> Result<(u64, u64), String> {
    let s = text.trim();
    let Some(i) = range_separator(s) else {
        return Err(format!(
            "'{s}' is one size, not a range LOW-HIGH (or LOW:HIGH); for one size write {s}-{s} or use bs="
        ));
    };
    let a = parse_size(&s[..i], kb_base)?;
    let b = parse_size(&s[i + 1..], kb_base)?;
    Ok((a.min(b), a.max(b)))
}

/// Split a per-direction value (read,write,trim) by fio's rule: a value not followed
/// by a comma also applies to the directions after it; an empty slot means "default".
/// `bs=8k,32k` → [8k, 32k, 32k]; `bs=8k,32k,` → [8k, 32k, default];
/// `bs=,8k` → [default, 8k, 8k].
pub fn per_direction(text: &str) -> Result<[Option<&str>; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!(
            "too many comma-separated values in '{text}' (at most read,write,trim)"
        ));
    }
    fill_directions(&parts)
}

/// read, write, trim from 1 to 3 values: the last one given also fills the slots
/// after it; an empty one leaves its slot to the default.
fn fill_directions<'a>(parts: &[&'a str]) -> Result<[Option<&'a str>; 3], String> {
    let mut out = [None; 3];
    for (i, slot) in out.iter_mut().enumerate() {
        let p = parts[i.min(parts.len() - 1)];
        if !p.is_empty() {
            *slot = Some(p);
        }
    }
    if out.iter().all(Option::is_none) {
        return Err("empty value".into());
    }
    Ok(out)
}

/// A size or a range of sizes (filesize=64k, filesize=64k-1m): fio reads one value
/// as LOW = HIGH there, unlike bsrange's parts ([`parse_range`]).
pub fn parse_size_or_range(text: &str, kb_base: u32) -> Result<(u64, u64), String> {
    let s = text.trim();
    if range_separator(s).is_none() {
        let v = parse_size(s, kb_base)?;
        return Ok((v, v));
    }
    parse_range(s, kb_base)
}

/// A (low, high) range per direction, read, write, trim; None leaves the default.
pub type DirRanges = [Option<(u64, u64)>; 3];

/// bsrange's read,write,trim ranges, split as fio splits them: at commas, each part
/// parsed on its own. fio fails the option only when no part parses; a part that
/// fails is skipped, so its direction, and those it would have filled, keep the
/// default (`bsrange=4k-8k,8k` leaves writes at bs). ferrio skips a part that is one
/// size as fio does (the skipped parts come back with why, for a warning) and
/// refuses a malformed one.
pub fn per_direction_ranges(text: &str, kb_base: u32) -> Result<(DirRanges, Vec<String>), String> {
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    let mut first_error = None;
    for part in text.split(',').map(str::trim) {
        if part.is_empty() {
            kept.push("");
            continue;
        }
        match parse_range(part, kb_base) {
            Ok(_) => kept.push(part),
            // One size where a range belongs: fio skips it (below). Anything else
            // malformed is refused, as ferrio refuses `bs=4k,x` (fio skips those too).
            Err(e) if range_separator(part).is_none() && parse_size(part, kb_base).is_ok() => {
                first_error.get_or_insert_with(|| e.clone());
                skipped.push(e);
                kept.push("");
            }
            Err(e) => return Err(e),
        }
    }
    if kept.len() > 3 {
        return Err(format!(
            "too many comma-separated values in '{text}' (at most read,write,trim)"
        ));
    }
    let slots = match fill_directions(&kept) {
        Ok(slots) => slots,
        Err(e) => return Err(first_error.unwrap_or(e)),
    };
    let mut out = [None; 3];
    for (o, s) in out.iter_mut().zip(slots) {
        if let Some(s) = s {
            *o = Some(parse_range(s, kb_base)?);
        }
    }
    Ok((out, skipped))
}

/// A per-direction number (bs, blockalign, rate, rate_iops, percentage_random, the
/// cmdprio values) split as fio's option parser splits every numeric option: at a
/// comma, or, where none is left, at a ':' or a '-'. So `bs=4k-16k` and `bs=4k:16k`
/// are `bs=4k,16k` to fio (reads 4k, writes and trims 16k), not a range; ranges are
/// bsrange's, whose value is split at commas only ([`per_direction`]).
pub fn per_direction_numbers(text: &str) -> Result<[Option<&str>; 3], String> {
    let mut parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let mut last = parts.pop().unwrap_or("");
    // (Never at the start: a leading '-' is a sign, and fio reads the whole value.)
    while let Some(i) = last.find(':').or_else(|| last.find('-')).filter(|&i| i > 0) {
        parts.push(last[..i].trim());
        last = last[i + 1..].trim();
    }
    parts.push(last);
    if parts.len() > 3 {
        return Err(format!(
            "too many values in '{text}' (at most read,write,trim; fio also splits at ':' and '-')"
        ));
    }
    fill_directions(&parts)
}

/// Split a colon-separated list where `\:` stands for a literal colon
/// (filename=/dev/sda:/dev/sdb, directory=a:b). Empty entries are dropped.
pub fn parse_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                cur.push(':');
                chars.next();
            }
            ':' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

/// Parse a CPU list in fio's syntax: `0-3,5,7-8` (comma list of CPUs and ranges).
/// Returns the sorted, deduplicated CPU numbers.
pub fn parse_cpus(text: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim) {
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n < 65536)
                .ok_or_else(|| format!("malformed CPU list '{text}' (e.g. 0-3,5)"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("bad CPU range '{part}' (start > end)"));
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(num(part)?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Parse a ':'-separated list of floats (percentile_list=1:5:99.9).
pub fn parse_float_list(text: &str) -> Result<Vec<f64>, String> {
    text.split(':')
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("malformed number '{}' in list '{text}'", p.trim()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bools() {
        assert_eq!(parse_bool(Some("1"), false), Ok(true));
        assert_eq!(parse_bool(Some("0"), false), Ok(false));
        assert_eq!(parse_bool(Some(" 1 "), false), Ok(true));
        assert_eq!(parse_bool(Some("0x1"), false), Ok(true));
        assert!(parse_bool(Some("2"), false).is_err());
        assert_eq!(parse_bool(Some("2"), true), Ok(true));
        assert!(parse_bool(None, false).is_err());
        assert_eq!(parse_bool(None, true), Ok(true));
        for bad in ["true", "false", "yes", "on", "", "-1"] {
            assert!(parse_bool(Some(bad), true).is_err(), "{bad}");
        }
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("16", 1024), Ok(16));
        assert_eq!(parse_int("1k", 1024), Ok(1024));
        assert_eq!(parse_int("0x10", 1024), Ok(16));
        assert_eq!(parse_int("(4*8)", 1024), Ok(32));
        let e = parse_int("x", 1024).unwrap_err();
        assert!(e.contains("integer"), "{e}");
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("4k-64k", 1024), Ok((4096, 65536)));
        assert_eq!(parse_range("1k:4k", 1024), Ok((1024, 4096)));
        assert_eq!(parse_range("64k-4k", 1024), Ok((4096, 65536)));
        assert!(parse_range("8k", 1024).unwrap_err().contains("not a range"));
        assert_eq!(parse_size_or_range("8k", 1024), Ok((8192, 8192)));
        assert_eq!(parse_size_or_range("(2*4k)", 1024), Ok((8192, 8192)));
        assert_eq!(parse_size_or_range("8k-4k", 1024), Ok((4096, 8192)));
        assert!(parse_range("(2*4k)", 1024).is_err());
        assert_eq!(parse_range("(1k*2)-(4k*2)", 1024), Ok((2048, 8192)));
        assert!(parse_range("(8k-4k)", 1024).is_err());
        assert!(parse_range("4k-", 1024).is_err());
        assert!(parse_range("-4k", 1024).is_err());
        assert!(parse_range("a-b", 1024).is_err());
    }

    #[test]
    fn bsrange_parts_that_fail_are_skipped_as_fio_skips_them() {
        let r = |t| per_direction_ranges(t, 1024);
        let k4 = Some((4096, 8192));
        assert_eq!(r("4k-8k"), Ok(([k4; 3], vec![])));
        assert_eq!(r("4k-8k,"), Ok(([k4, None, None], vec![])));
        // fio 3.33: `bsrange=4k-8k,8k` runs with writes at the default bs.
        let (slots, skipped) = r("4k-8k,8k").unwrap();
        assert_eq!(slots, [k4, None, None]);
        assert!(skipped[0].contains("'8k' is one size"), "{skipped:?}");
        assert_eq!(r("8k,4k-8k").unwrap().0, [None, k4, k4]);
        // No part parses: fio's "failed parsing".
        assert!(r("4k").unwrap_err().contains("not a range"));
        assert!(r(",8k").unwrap_err().contains("not a range"));
        assert!(r("1k-2k,1k-2k,1k-2k,1k-2k").is_err());
        // Only one size is skipped; a malformed part is an error, as `bs=4k,x` is.
        assert!(r("4k-8k,x").unwrap_err().contains("'x'"));
        assert!(r("4k-8k,x-y").is_err());
    }

    #[test]
    fn ranges_split_and_read_as_fio() {
        // fio 3.33's t0023 job has `bsrange=512/25:1k:25:2k:25:4k/25` (a bssplit
        // typo); fio splits at the first ':' and reads 512 and 1k.
        assert_eq!(
            parse_range("512/25:1k:25:2k:25:4k/25", 1024),
            Ok((512, 1024))
        );
        // A '-' anywhere wins over an earlier ':'.
        assert_eq!(parse_range("1k:2k-8k", 1024), Ok((1024, 8192)));
        assert_eq!(parse_range("4k)-8k)", 1024), Ok((4096, 8192)));
    }

    #[test]
    fn directions() {
        assert_eq!(per_direction("256k").unwrap(), [Some("256k"); 3]);
        assert_eq!(
            per_direction("8k,32k").unwrap(),
            [Some("8k"), Some("32k"), Some("32k")]
        );
        assert_eq!(
            per_direction("8k,32k,").unwrap(),
            [Some("8k"), Some("32k"), None]
        );
        assert_eq!(
            per_direction(",8k").unwrap(),
            [None, Some("8k"), Some("8k")]
        );
        assert_eq!(per_direction(",8k,").unwrap(), [None, Some("8k"), None]);
        assert_eq!(
            per_direction("1k,2k,3k").unwrap(),
            [Some("1k"), Some("2k"), Some("3k")]
        );
        assert!(per_direction("1,2,3,4").is_err());
        // fio's numeric split: ':' and '-' too, once no comma is left.
        assert_eq!(
            per_direction_numbers("4k-16k").unwrap(),
            [Some("4k"), Some("16k"), Some("16k")]
        );
        assert_eq!(
            per_direction_numbers("4k:16k").unwrap(),
            [Some("4k"), Some("16k"), Some("16k")]
        );
        assert_eq!(
            per_direction_numbers("4k,8k-16k").unwrap(),
            [Some("4k"), Some("8k"), Some("16k")]
        );
        assert_eq!(
            per_direction_numbers("8k,32k,").unwrap(),
            [Some("8k"), Some("32k"), None]
        );
        assert_eq!(per_direction_numbers("-1").unwrap(), [Some("-1"); 3]);
        assert!(per_direction_numbers("1k-2k-3k-4k").is_err());
        // A range option keeps its '-'.
        assert_eq!(per_direction("1k-4k").unwrap(), [Some("1k-4k"); 3]);
        assert!(per_direction(",").is_err());
        assert!(per_direction("").is_err());
    }

    #[test]
    fn colon_lists() {
        assert_eq!(parse_list("a:b"), vec!["a", "b"]);
        assert_eq!(
            parse_list("/dev/dsk/foo@3,0\\:c"),
            vec!["/dev/dsk/foo@3,0:c"]
        );
        assert_eq!(parse_list("F\\:\\filename"), vec!["F:\\filename"]);
        assert_eq!(parse_list("a::b:"), vec!["a", "b"]);
        assert_eq!(parse_list("single"), vec!["single"]);
        assert!(parse_list("").is_empty());
    }

    #[test]
    fn cpus() {
        assert_eq!(parse_cpus("0-3,5").unwrap(), vec![0, 1, 2, 3, 5]);
        assert_eq!(parse_cpus("5,1,1").unwrap(), vec![1, 5]);
        assert_eq!(parse_cpus("7").unwrap(), vec![7]);
        for bad in ["", "a", "3-1", "1-", "1,,2", "-1", "99999"] {
            assert!(parse_cpus(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float_list("1:5:99.9").unwrap(), vec![1.0, 5.0, 99.9]);
        assert_eq!(parse_float_list("50").unwrap(), vec![50.0]);
        assert!(parse_float_list("1::2").is_err());
        assert!(parse_float_list("a").is_err());
        assert!(parse_float_list("inf").is_err());
    }
}
