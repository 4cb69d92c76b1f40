//! fio's number and unit formatting rules, shared by the human and terse printers.
//!
//! * [`num2str`]: fio's `num2str()` — shorten a number to at most `maxlen` characters
//!   (digits plus the decimal point) with an SI (`k`, `M`...) or IEC (`Ki`, `Mi`...) prefix,
//!   including fio's truncating "carry rounding error".
//! * [`LatUnit::choose`]: the nsec/usec/msec choice of the `clat (usec): min=...` lines.
//! * [`PercentileScale::choose`]: the nsec/usec/msec choice of percentile tables.
//! * [`cfmt`]: C `printf("%W.Pf")` for the few values that may not be finite.

/// fio's `enum n2s_unit`: the unit written after the prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum N2sUnit {
    /// No unit (IOPS, latencies).
    None,
    /// "/s".
    PerSec,
    /// "B".
    Byte,
    /// "bit" (the number is multiplied by 8).
    Bit,
    /// "B/s".
    BytePerSec,
    /// "bit/s" (the number is multiplied by 8).
    BitPerSec,
}

impl N2sUnit {
    fn suffix(self) -> &'static str {
        match self {
            N2sUnit::None => "",
            N2sUnit::PerSec => "/s",
            N2sUnit::Byte => "B",
            N2sUnit::Bit => "bit",
            N2sUnit::BytePerSec => "B/s",
            N2sUnit::BitPerSec => "bit/s",
        }
    }

    /// The rate unit for a job's `unit_base` option as given (fio: 1 = bits, 8 or 0 = bytes).
    pub fn rate_for_unit_base(unit_base: u32) -> N2sUnit {
        if unit_base == 1 {
            N2sUnit::BitPerSec
        } else {
            N2sUnit::BytePerSec
        }
    }
}

/// fio's default `sig_figs` (maximum characters of a shortened number, the point included).
pub const SIG_FIGS: usize = 4;

/// A report's `sig_figs` (fio's significant_figures) as num2str's `maxlen`; 0, the
/// value of a report built without one, is fio's default.
pub fn sig_figs(v: u32) -> usize {
    if v == 0 {
        SIG_FIGS
    } else {
        v as usize
    }
}

/// Whether `kb_base` selects IEC (power of two) prefixes. `kb_base` 0 counts as 1024.
pub fn is_pow2_base(kb_base: u32) -> bool {
    kb_base == 0 || kb_base.is_power_of_two()
}

/// fio's `num2str(num, maxlen, base, pow2, units)`.
///
/// `base` is the multiplier already applied to `num` (1 for plain values, 1024 when `num`
/// counts KiB). The number is divided by 1000 (or 1024 with `pow2`) until it fits in
/// `maxlen` digits; the remainder then fills the room left with decimals, truncated as
/// fio truncates them.
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, unit: N2sUnit) -> String {
    const SI: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    const IEC: [&str; 6] = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let prefixes = if pow2 { &IEC } else { &SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };

    let mut post_index = 0usize;
    let mut b = base;
    while b > 1 {
        b /= thousand;
        post_index += 1;
    }

    let mut num = match unit {
        N2sUnit::Bit | N2sUnit::BitPerSec => num.wrapping_mul(8),
        _ => num,
    };

    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post_index < SI.len() {
        if decimal_len(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post_index += 1;
    }

    let done = |num: u64, post_index: usize| {
        let p = if post_index >= SI.len() {
            0
        } else {
            post_index
        };
        format!("{num}{}{}", prefixes[p], unit.suffix())
    };

    let Some(modulo) = modulo else {
        return done(num, post_index);
    };

    let len = decimal_len(num);
    if maxlen as i64 - len as i64 <= 1 {
        if carry {
            num += 1;
        }
        return done(num, post_index);
    }

    let decimals = maxlen - len - 1;
    let frac = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    // "0.xyz" (or "1.00" when it rounded up: fio keeps only the digits after the point).
    format!(
        "{num}.{}{}{}",
        &frac[2..],
        prefixes[post_index],
        unit.suffix()
    )
}

/// Number of decimal digits of `n` (`strlen(sprintf("%llu"))`).
pub fn decimal_len(n: u64) -> usize {
    let mut len = 1;
    let mut n = n / 10;
    while n > 0 {
        len += 1;
        n /= 10;
    }
    len
}

/// The unit of a `slat/clat/lat/sync (unit): min=..` line (fio's nsec_to_usec/nsec_to_msec).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatUnit {
    Nsec,
    Usec,
    Msec,
}

impl LatUnit {
    /// msec when min > 2 ms, max > ~100 ms and stdev > 1 ms; usec when min > 2 us,
    /// max > ~100 us and stdev > 1 us; else nsec.
    pub fn choose(min: u64, max: u64, dev: f64) -> LatUnit {
        if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
            LatUnit::Msec
        } else if min > 2000 && max > 99_999 && dev > 1000.0 {
            LatUnit::Usec
        } else {
            LatUnit::Nsec
        }
    }

    pub fn divisor(self) -> u64 {
        match self {
            LatUnit::Nsec => 1,
            LatUnit::Usec => 1000,
            LatUnit::Msec => 1_000_000,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LatUnit::Nsec => "nsec",
            LatUnit::Usec => "usec",
            LatUnit::Msec => "msec",
        }
    }
}

/// The unit of a percentile table: chosen from the smallest and largest percentile value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PercentileScale {
    pub unit: LatUnit,
    /// How many times values are divided by 1000, rounding up.
    pub steps: u32,
}

impl PercentileScale {
    /// msec when minv > 2 ms and maxv > ~100 ms; usec when minv > 2 us and maxv > ~100 us.
    pub fn choose(minv: u64, maxv: u64) -> PercentileScale {
        if minv > 2_000_000 && maxv > 99_999_999 {
            PercentileScale {
                unit: LatUnit::Msec,
                steps: 2,
            }
        } else if minv > 2000 && maxv > 99_999 {
            PercentileScale {
                unit: LatUnit::Usec,
                steps: 1,
            }
        } else {
            PercentileScale {
                unit: LatUnit::Nsec,
                steps: 0,
            }
        }
    }

    /// A value in ns scaled as fio prints it: divided by 1000 per step, rounding up.
    pub fn scale(self, mut v: u64) -> u64 {
        for _ in 0..self.steps {
            v = v.div_ceil(1000);
        }
        v
    }

    /// Width of the value column: at least 5, else the digits of maxv / divisor
    /// (fio computes `log10(maxv / divisor) + 1`, truncated).
    pub fn width(self, maxv: u64) -> usize {
        let v = maxv / self.unit.divisor();
        let w = ((v as f64).log10() + 1.0) as i64;
        w.max(5) as usize
    }
}

/// C's `printf("%W.Pf", x)`: Rust formatting for finite values, glibc's spelling otherwise.
pub fn cfmt(x: f64, width: usize, prec: usize) -> String {
    if x.is_finite() {
        format!("{:width$.prec$}", x)
    } else {
        let s = if x.is_nan() {
            if x.is_sign_negative() {
                "-nan"
            } else {
                "nan"
            }
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        format!("{:>width$}", s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: u64) -> String {
        num2str(n, SIG_FIGS, 1, true, N2sUnit::Byte)
    }

    // All expected strings below were read off fio 3.33's own output (Debian build).
    #[test]
    fn block_sizes_like_the_job_header() {
        // `bs=(R) 4096B-4096B`, `64.0KiB`, `1024KiB`, `2048B`, `1536B`
        assert_eq!(bytes(4096), "4096B");
        assert_eq!(bytes(65536), "64.0KiB");
        assert_eq!(bytes(1 << 20), "1024KiB");
        assert_eq!(bytes(2048), "2048B");
        assert_eq!(bytes(1536), "1536B");
        // kb_base=1000, bsrange=4k-64k: `bs=(R) 4096B-65.5kB`
        assert_eq!(num2str(65536, 4, 1, false, N2sUnit::Byte), "65.5kB");
    }

    #[test]
    fn io_sizes() {
        // `(528KiB/10msec)`, `io=528KiB (541kB)`, `io=1024MiB (1074MB)`, `io=4000KiB (4096kB)`
        assert_eq!(bytes(528 * 1024), "528KiB");
        assert_eq!(num2str(528 * 1024, 4, 1, false, N2sUnit::Byte), "541kB");
        assert_eq!(bytes(1 << 30), "1024MiB");
        assert_eq!(num2str(1 << 30, 4, 1, false, N2sUnit::Byte), "1074MB");
        assert_eq!(num2str(4000 * 1024, 4, 1, false, N2sUnit::Byte), "4096kB");
        // kb_base=1000: `(1049kB/3msec)`, `io=1049kB (1024KiB)`
        assert_eq!(num2str(1 << 20, 4, 1, false, N2sUnit::Byte), "1049kB");
        // `io=256KiB (262kB)`
        assert_eq!(num2str(256 * 1024, 4, 1, false, N2sUnit::Byte), "262kB");
    }

    #[test]
    fn bandwidths() {
        let bps = |n| num2str(n, 4, 1, true, N2sUnit::BytePerSec);
        let si = |n| num2str(n, 4, 1, false, N2sUnit::BytePerSec);
        // 528KiB in 9 ms: `BW=57.3MiB/s (60.1MB/s)`
        let bw = 528 * 1024 * 1000 / 9;
        assert_eq!(bps(bw), "57.3MiB/s");
        assert_eq!(si(bw), "60.1MB/s");
        // 4000KiB in 2001 ms: `BW=1999KiB/s (2047kB/s)`
        let bw = 4000 * 1024 * 1000 / 2001;
        assert_eq!(bps(bw), "1999KiB/s");
        assert_eq!(si(bw), "2047kB/s");
        // 1 GiB in 3 ms: `BW=333GiB/s (358GB/s)`
        let bw = (1u64 << 30) * 1000 / 3;
        assert_eq!(bps(bw), "333GiB/s");
        assert_eq!(si(bw), "358GB/s");
        // 1 MiB in 1 ms: `1000MiB/s (1049MB/s)`
        assert_eq!(bps((1 << 20) * 1000), "1000MiB/s");
        assert_eq!(si((1 << 20) * 1000), "1049MB/s");
        // 256KiB in 9 ms: `BW=27.8MiB/s (29.1MB/s)`
        assert_eq!(bps(256 * 1024 * 1000 / 9), "27.8MiB/s");
        assert_eq!(si(256 * 1024 * 1000 / 9), "29.1MB/s");
    }

    #[test]
    fn bit_rates() {
        // unit_base=1, 1 MiB in 2 ms: `BW=4000Mibit/s (4194Mbit/s)`
        let bw = (1u64 << 20) * 1000 / 2;
        assert_eq!(num2str(bw, 4, 1, true, N2sUnit::BitPerSec), "4000Mibit/s");
        assert_eq!(num2str(bw, 4, 1, false, N2sUnit::BitPerSec), "4194Mbit/s");
    }

    #[test]
    fn iops_values() {
        let iops = |n| num2str(n, 4, 1, false, N2sUnit::None);
        // `IOPS=14.7k`, `IOPS=5461k`, `IOPS=7111`, `IOPS=499`, `IOPS=128k`, `IOPS=1024k`
        assert_eq!(iops(132 * 1000 / 9), "14.7k");
        assert_eq!(iops(16384 * 1000 / 3), "5461k");
        assert_eq!(iops(64 * 1000 / 9), "7111");
        assert_eq!(iops(499), "499");
        assert_eq!(iops(256 * 1000 / 2), "128k");
        assert_eq!(iops(1024 * 1000), "1024k");
        // 256 I/Os in 3 ms: `IOPS=85.3k`
        assert_eq!(iops(256 * 1000 / 3), "85.3k");
    }

    #[test]
    fn latency_min_max_fields() {
        let n6 = |n| num2str(n, 6, 1, false, N2sUnit::None);
        assert_eq!(n6(390192), "390192");
        // seven digits: one division leaves room for one decimal (printf-rounded)
        assert_eq!(n6(1234567), "1234.6k");
        assert_eq!(n6(1234599), "1234.6k");
        assert_eq!(n6(1234949), "1234.9k");
        // eight digits: no room for decimals -> rounded integer with prefix
        assert_eq!(n6(12345678), "12346k");
    }

    #[test]
    fn carry_rounding_error_is_kept() {
        // 19990 -> 19 rem 990 -> "%.1f" of 0.99 is "1.0" -> fio prints "19.0k".
        assert_eq!(num2str(19990, 4, 1, false, N2sUnit::None), "19.0k");
        // 99999 -> 99 rem 999, carry on "no room" path is not taken (one decimal fits).
        assert_eq!(num2str(99999, 4, 1, false, N2sUnit::None), "99.0k");
        // 999999 -> 999 rem 999 -> no room for decimals -> carry -> "1000k"
        assert_eq!(num2str(999_999, 4, 1, false, N2sUnit::None), "1000k");
    }

    #[test]
    fn base_sets_the_starting_prefix() {
        assert_eq!(num2str(528, 4, 1024, true, N2sUnit::Byte), "528KiB");
        assert_eq!(num2str(5280, 4, 1024, true, N2sUnit::Byte), "5280KiB");
        assert_eq!(num2str(52800, 4, 1024, true, N2sUnit::Byte), "51.6MiB");
    }

    #[test]
    fn lat_unit_rules() {
        // `clat (usec): min=51, max=254, avg=60.50, stdev=18.85`
        assert_eq!(LatUnit::choose(51_000, 254_000, 18_850.0), LatUnit::Usec);
        // `clat (nsec): min=2263, max=12628` (max too small)
        assert_eq!(LatUnit::choose(2263, 12628, 1369.55), LatUnit::Nsec);
        // `clat (nsec): min=1242, max=390192, ... stdev=41653.82` (min too small)
        assert_eq!(LatUnit::choose(1242, 390_192, 41_653.82), LatUnit::Nsec);
        // stdev must also exceed the unit
        assert_eq!(LatUnit::choose(5000, 200_000, 999.0), LatUnit::Nsec);
        assert_eq!(
            LatUnit::choose(3_000_000, 100_000_000, 1_000_001.0),
            LatUnit::Msec
        );
        assert_eq!(
            LatUnit::choose(3_000_000, 99_999_999, 1_000_001.0),
            LatUnit::Usec
        );
    }

    #[test]
    fn percentile_scale_rules() {
        // write percentiles of the 2 s randrw run: 4 us .. 176 us shown in usec
        let s = PercentileScale::choose(3952, 175_104);
        assert_eq!(s.unit, LatUnit::Usec);
        assert_eq!(s.scale(175_104), 176);
        assert_eq!(s.scale(3952), 4);
        assert_eq!(s.scale(4001), 5);
        assert_eq!(s.width(175_104), 5);
        // kb_base=1000 run: 644 ns .. 358400 ns stays nsec, 6 wide
        let s = PercentileScale::choose(644, 358_400);
        assert_eq!(s.unit, LatUnit::Nsec);
        assert_eq!(s.width(358_400), 6);
        assert_eq!(s.width(0), 5);
        let s = PercentileScale::choose(2_500_000, 150_000_000);
        assert_eq!(s.unit, LatUnit::Msec);
        assert_eq!(s.scale(2_500_000), 3);
        assert_eq!(s.width(150_000_000), 5);
    }

    #[test]
    fn c_float_formatting() {
        assert_eq!(cfmt(4.62, 5, 2), " 4.62");
        assert_eq!(cfmt(2002.666, 5, 2), "2002.67");
        assert_eq!(cfmt(0.125, 0, 2), "0.12");
        assert_eq!(cfmt(f64::NAN.copysign(-1.0), 3, 2), "-nan");
        assert_eq!(cfmt(f64::INFINITY, 5, 2), "  inf");
    }

    #[test]
    fn unit_base_and_kb_base() {
        assert_eq!(N2sUnit::rate_for_unit_base(1), N2sUnit::BitPerSec);
        assert_eq!(N2sUnit::rate_for_unit_base(8), N2sUnit::BytePerSec);
        assert_eq!(N2sUnit::rate_for_unit_base(0), N2sUnit::BytePerSec);
        assert!(is_pow2_base(1024));
        assert!(!is_pow2_base(1000));
        assert!(is_pow2_base(0));
    }
}
