//! `bssplit=4k/10:64k/50:32k/40[,read-write split][,trim split]`.
//!
//! Entries are `bs/percent`; an entry with an empty percent (`1k/`) or none (`1k`)
//! shares what the explicit percentages leave of 100 evenly, by integer division as
//! fio does (`1k/:2k/:4k/` is 33 each: a draw past the total falls to the last entry
//! walked, as in fio). A fractional percentage is cut to its integer part, as fio's
//! `atoi` reads it (`4k/10.5:8k/89.5` is 10 and 89, the lost 1 % going the same way).
//! Explicit percentages over 100 are an error (fio's rule); a split whose
//! percentages do not reach 100 with no entry to absorb the rest is also an error
//! (fio 3.33 accepts it silently and skews the mix), unless fractional percentages as
//! written add up to 100. Entries are sorted by block size here; the pattern walks
//! them in fio's order (by percentage).

use super::list::per_direction;
use super::size::parse_size;

/// One direction's parsed split.
pub type Split = Vec<(u64, u32)>;

/// Parse a full bssplit value: one split per direction, None where the default applies.
pub fn parse_bssplit(text: &str, kb_base: u32) -> Result<[Option<Split>; 3], String> {
    let dirs = per_direction(text)?;
    let mut out: [Option<Split>; 3] = [None, None, None];
    for (slot, d) in out.iter_mut().zip(dirs) {
        if let Some(d) = d {
            *slot = Some(parse_one(d, kb_base)?);
        }
    }
    Ok(out)
}

fn parse_one(text: &str, kb_base: u32) -> Result<Split, String> {
    let mut entries: Vec<(u64, Option<u32>)> = Vec::new();
    // The percentages as written, and whether any had a fraction.
    let (mut written, mut fractional) = (0.0f64, false);
    for e in text.split(':') {
        let e = e.trim();
        if e.is_empty() {
            return Err(format!("empty entry in bssplit '{text}'"));
        }
        let (bs, pct) = match e.split_once('/') {
            Some((b, p)) => (b, p.trim()),
            None => (e, ""),
        };
        let bs = parse_size(bs, kb_base)?;
        if bs == 0 {
            return Err(format!("block size 0 in bssplit '{text}'"));
        }
        let malformed = || format!("malformed percentage '{pct}' in bssplit '{text}'");
        let pct = if pct.is_empty() {
            None
        } else if pct.contains('.') {
            let v = pct
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(malformed)?;
            fractional = true;
            written += v;
            Some(v.trunc().min(100.0) as u32)
        } else {
            let v = pct.parse::<u32>().map_err(|_| malformed())?;
            written += v as f64;
            Some(v)
        };
        entries.push((bs, pct));
    }
    if entries.len() > 64 {
        return Err(format!("too many bssplit entries in '{text}' (at most 64)"));
    }
    let given: u64 = entries.iter().filter_map(|e| e.1).map(u64::from).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u64;
    if given > 100 {
        return Err(format!(
            "bssplit percentages in '{text}' add up to {given}, more than 100"
        ));
    }
    let written_100 = fractional && (written - 100.0).abs() < 1e-9;
    if missing == 0 && given != 100 && !written_100 {
        return Err(format!(
            "bssplit percentages in '{text}' add up to {given}, must be 100"
        ));
    }
    let mut out = Vec::with_capacity(entries.len());
    for (bs, pct) in entries {
        let p = pct.unwrap_or_else(|| ((100 - given) / missing) as u32);
        out.push((bs, p));
    }
    out.sort_by_key(|e| e.0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Split {
        parse_one(s, 1024).unwrap()
    }

    #[test]
    fn explicit() {
        assert_eq!(
            one("4k/10:64k/50:32k/40"),
            vec![(4096, 10), (32768, 40), (65536, 50)]
        );
        assert_eq!(one("4k/100"), vec![(4096, 100)]);
    }

    #[test]
    fn blanks_share_remainder() {
        assert_eq!(
            one("4k/50:1k/:32k/"),
            vec![(1024, 25), (4096, 50), (32768, 25)]
        );
        assert_eq!(one("4k"), vec![(4096, 100)]);
        // fio's integer shares: the 1 % left over is not handed out.
        assert_eq!(one("1k/:2k/:4k/"), vec![(1024, 33), (2048, 33), (4096, 33)]);
        assert_eq!(one("4k/100:8k/"), vec![(4096, 100), (8192, 0)]);
    }

    #[test]
    fn per_direction_rule() {
        let s = parse_bssplit("2k/50:4k/50,4k/90:8k/10", 1024).unwrap();
        assert_eq!(s[0], Some(vec![(2048, 50), (4096, 50)]));
        assert_eq!(s[1], Some(vec![(4096, 90), (8192, 10)]));
        assert_eq!(s[2], s[1]);
        let s = parse_bssplit(",4k/100,", 1024).unwrap();
        assert_eq!(s, [None, Some(vec![(4096, 100)]), None]);
    }

    #[test]
    fn errors() {
        for bad in [
            "4k/50:8k/60",
            "4k/50:8k/40",
            "4k/50:8k/60:16k/",
            "x/50",
            "4k/x",
            "0/100",
            "4k/50::8k/50",
            "4k/10.5:8k/80",
            "4k/-1.5:8k/",
            "4k/1.2.3:8k/",
            "4k/nan:8k/",
            "",
        ] {
            assert!(parse_bssplit(bad, 1024).is_err(), "{bad}");
        }
        let e = parse_bssplit("4k/50:8k/60", 1024).unwrap_err();
        assert!(e.contains("110"), "{e}");
    }

    #[test]
    fn fractions_are_cut_as_fio_reads_them() {
        assert_eq!(one("4k/10.5:8k/89.5"), vec![(4096, 10), (8192, 89)]);
        assert_eq!(one("4k/10.5:8k/"), vec![(4096, 10), (8192, 90)]);
        assert_eq!(
            one("4k/33.3:8k/33.3:16k/33.4"),
            vec![(4096, 33), (8192, 33), (16384, 33)]
        );
        assert_eq!(one("4k/0.5:8k/99.5"), vec![(4096, 0), (8192, 99)]);
    }

    proptest::proptest! {
        /// fio's shares: blanks split what is left by integer division, so the total
        /// falls short of 100 by less than one share per blank.
        #[test]
        fn sums_to_100_but_for_the_blanks_rounding(pcts in proptest::collection::vec(proptest::option::of(0u32..40), 1..6)) {
            let text: Vec<String> = pcts.iter().enumerate()
                .map(|(i, p)| format!("{}k/{}", i + 1, p.map(|p| p.to_string()).unwrap_or_default()))
                .collect();
            let text = text.join(":");
            let given: u32 = pcts.iter().flatten().sum();
            let blanks = pcts.iter().any(Option::is_none);
            match parse_one(&text, 1024) {
                Ok(v) => {
                    let sum = v.iter().map(|e| e.1).sum::<u32>();
                    let blank_count = pcts.iter().filter(|p| p.is_none()).count() as u32;
                    proptest::prop_assert!(sum <= 100 && 100 - sum < blank_count.max(1));
                    proptest::prop_assert!(blanks || given == 100);
                }
                Err(_) => proptest::prop_assert!(given > 100 || (!blanks && given != 100)),
            }
        }
    }
}
