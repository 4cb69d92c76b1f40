//! The simulated device (`ioengine=sim`): its options, parsed and checked. The model
//! itself lives in the runner crate (`src/engine/sim/`); docs/sim.md describes both.

/// A service-time distribution, in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    /// Always this value.
    Fixed(f64),
    /// Uniform between the two values.
    Uniform(f64, f64),
    /// Normal with this mean and standard deviation (draws below 0 become 0).
    Normal(f64, f64),
    /// Log-normal with this mean and standard deviation (of the time itself, not of its log).
    Lognormal(f64, f64),
    /// Exponential with this mean.
    Exponential(f64),
    /// Piecewise-linear quantile function through (percentile, value) points,
    /// percentiles strictly increasing from 0 to 100, values non-decreasing.
    Empirical(Vec<(f64, f64)>),
}

impl Dist {
    /// The distribution's mean (ns).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Fixed(v) => *v,
            Dist::Uniform(a, b) => (a + b) / 2.0,
            Dist::Normal(m, _) | Dist::Lognormal(m, _) => *m,
            Dist::Exponential(m) => *m,
            Dist::Empirical(pts) => pts
                .windows(2)
                .map(|w| (w[1].0 - w[0].0) / 100.0 * (w[0].1 + w[1].1) / 2.0)
                .sum(),
        }
    }
}

/// The simulated device's parameters. Each job thread (each numjobs clone) gets a
/// device of its own built from these.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    /// Service time per command for reads, writes and trims (sim_lat=).
    pub lat: [Dist; 3],
    /// Commands the device serves at once (sim_channels=); more wait in a FIFO queue.
    pub channels: u32,
    /// Bandwidth ceiling of the host link in bytes/s, 0 = none (sim_bw=).
    pub bw: u64,
    /// Seed of the service-time draws (sim_seed=).
    pub seed: u64,
    /// The flash wear / garbage-collection model is on (sim_ssd=1).
    pub ssd: bool,
    /// Logical capacity in bytes; 0 = the job's offset + size (sim_capacity=).
    pub capacity: u64,
    /// Spare area as a percentage of the capacity (sim_spare=).
    pub spare_pct: f64,
    /// Percentage of the capacity written sequentially before the job starts (sim_prefill=).
    pub prefill_pct: f64,
    /// Rate at which one channel copies still-valid data during garbage collection,
    /// bytes/s (sim_gc_bw=).
    pub gc_bw: u64,
    /// The zoned geometry (sim_zonesize= ...; docs/zones.md).
    pub zoned: crate::ext::zones::SimZoneSpec,
    /// A stall (sim_stall=AT:FOR): from AT ns after the start, for FOR ns, the device
    /// starts serving nothing; what would start then waits for the end (None: never).
    pub stall: Option<(u64, u64)>,
    /// A delay device on top (sim_delay=TIME[:PCT]): every command in the first PCT %
    /// of the capacity completes TIME ns after the device served it (None: none).
    pub delay: Option<(u64, f64)>,
    /// Data buffers in the target's shared pool (sim_buffers=; 0: unlimited).
    pub buffers: u32,
    /// Buffers each channel keeps in a cache of its own (sim_buf_cache=).
    pub buf_cache: u32,
}

/// Defaults, as the option table documents them.
pub const DEFAULT_LAT: &str = "fixed:80us,fixed:20us,fixed:10us";
pub const DEFAULT_CHANNELS: u32 = 16;
pub const DEFAULT_BW: u64 = 3 << 30;
pub const DEFAULT_SEED: u64 = 1;
pub const DEFAULT_SPARE_PCT: f64 = 7.0;
pub const DEFAULT_GC_BW: u64 = 160 << 20;

impl Default for SimSpec {
    fn default() -> SimSpec {
        SimSpec {
            lat: [
                Dist::Fixed(80_000.0),
                Dist::Fixed(20_000.0),
                Dist::Fixed(10_000.0),
            ],
            channels: DEFAULT_CHANNELS,
            bw: DEFAULT_BW,
            seed: DEFAULT_SEED,
            ssd: false,
            capacity: 0,
            spare_pct: DEFAULT_SPARE_PCT,
            prefill_pct: 0.0,
            gc_bw: DEFAULT_GC_BW,
            zoned: Default::default(),
            stall: None,
            delay: None,
            buffers: 0,
            buf_cache: 0,
        }
    }
}

/// A duration with an optional unit (ns, us, ms, s; µs when none), fractions allowed: `12.5us`.
pub fn parse_duration_ns(text: &str) -> Result<f64, String> {
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("malformed time '{s}' (e.g. 100us, 1.5ms)"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "ns" | "nsec" => 1.0,
        "" | "us" | "usec" | "µs" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        other => {
            return Err(format!(
                "unknown time unit '{other}' in '{s}' (ns, us, ms, s)"
            ))
        }
    };
    let ns = v * scale;
    if !ns.is_finite() || ns > 1e15 {
        return Err(format!("time '{s}' is too large"));
    }
    Ok(ns)
}

/// sim_delay=TIME[:PCT]: a duration (µs by default) and the share of the capacity
/// it delays (100 % when not given).
pub fn parse_delay(text: &str) -> Result<(u64, f64), String> {
    let (time, pct) = match text.split_once(':') {
        Some((t, p)) => (t, parse_percent(p, 0.0, 100.0)?),
        None => (text, 100.0),
    };
    let ns = parse_duration_ns(time)?;
    if ns < 1.0 || pct <= 0.0 {
        return Err(format!(
            "sim_delay takes TIME[:PCT] with TIME of at least 1ns and PCT above 0 (e.g. 1ms or 1ms:33), not '{text}'"
        ));
    }
    Ok((ns.round() as u64, pct))
}

/// sim_stall=AT:FOR: two durations (µs by default), FOR above 0.
pub fn parse_stall(text: &str) -> Result<(u64, u64), String> {
    let (at, dur) = text
        .split_once(':')
        .ok_or_else(|| format!("sim_stall takes AT:FOR (e.g. 1s:20ms), not '{text}'"))?;
    let (at, dur) = (parse_duration_ns(at)?, parse_duration_ns(dur)?);
    if dur < 1.0 {
        return Err(format!(
            "sim_stall: the stall must last at least 1ns ('{text}')"
        ));
    }
    Ok((at.round() as u64, dur.round() as u64))
}

/// One distribution: `fixed:T` (or just `T`), `uniform:LO:HI`, `normal:MEAN:SD`,
/// `lognormal:MEAN:SD`, `exponential:MEAN`, `empirical:P=T:P=T:...`.
pub fn parse_dist(text: &str) -> Result<Dist, String> {
    let s = text.trim();
    let mut parts = s.split(':');
    let head = parts.next().unwrap_or("");
    let args: Vec<&str> = parts.collect();
    let want = |n: usize| -> Result<Vec<f64>, String> {
        if args.len() != n {
            return Err(format!(
                "'{head}' takes {n} value{} ('{s}')",
                if n == 1 { "" } else { "s" }
            ));
        }
        args.iter().map(|a| parse_duration_ns(a)).collect()
    };
    let d = match head.to_ascii_lowercase().as_str() {
        "fixed" => Dist::Fixed(want(1)?[0]),
        "uniform" => {
            let v = want(2)?;
            if v[1] < v[0] {
                return Err(format!("uniform: high is below low ('{s}')"));
            }
            Dist::Uniform(v[0], v[1])
        }
        "normal" => {
            let v = want(2)?;
            Dist::Normal(v[0], v[1])
        }
        "lognormal" => {
            let v = want(2)?;
            if v[0] <= 0.0 {
                return Err(format!("lognormal: the mean must be > 0 ('{s}')"));
            }
            Dist::Lognormal(v[0], v[1])
        }
        "exponential" | "exp" => {
            let v = want(1)?;
            if v[0] <= 0.0 {
                return Err(format!("exponential: the mean must be > 0 ('{s}')"));
            }
            Dist::Exponential(v[0])
        }
        "empirical" => Dist::Empirical(parse_empirical(&args, s)?),
        _ if args.is_empty() && head.starts_with(|c: char| c.is_ascii_digit()) => {
            Dist::Fixed(parse_duration_ns(head)?)
        }
        other => {
            return Err(format!(
                "unknown distribution '{other}' (fixed, uniform, normal, lognormal, exponential, empirical)"
            ))
        }
    };
    Ok(d)
}

fn parse_empirical(args: &[&str], s: &str) -> Result<Vec<(f64, f64)>, String> {
    if args.is_empty() {
        return Err(format!("empirical: give percentile=time points ('{s}')"));
    }
    let mut pts: Vec<(f64, f64)> = Vec::with_capacity(args.len() + 2);
    for a in args {
        let (p, t) = a
            .split_once('=')
            .ok_or_else(|| format!("empirical: '{a}' is not percentile=time"))?;
        let p: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("empirical: bad percentile '{p}'"))?;
        if !(0.0..=100.0).contains(&p) {
            return Err(format!("empirical: percentile {p} is outside 0..100"));
        }
        let t = parse_duration_ns(t)?;
        if let Some(&(lp, lt)) = pts.last() {
            if p <= lp {
                return Err(format!(
                    "empirical: percentiles must increase ({lp} then {p})"
                ));
            }
            if t < lt {
                return Err(format!("empirical: times must not decrease (at {p}th)"));
            }
        }
        pts.push((p, t));
    }
    // The first value is also the minimum, the last also the maximum.
    if pts[0].0 > 0.0 {
        pts.insert(0, (0.0, pts[0].1));
    }
    let last = pts[pts.len() - 1];
    if last.0 < 100.0 {
        pts.push((100.0, last.1));
    }
    Ok(pts)
}

/// `sim_lat=`: one distribution per direction, comma-separated (read,write,trim);
/// missing trailing entries repeat the last one given.
pub fn parse_lat(text: &str) -> Result<[Dist; 3], String> {
    let items: Vec<&str> = text.split(',').collect();
    if items.len() > 3 {
        return Err("at most three distributions (read,write,trim)".into());
    }
    let mut out: Vec<Dist> = Vec::with_capacity(3);
    for it in &items {
        if it.trim().is_empty() {
            return Err("empty distribution".into());
        }
        out.push(parse_dist(it)?);
    }
    while out.len() < 3 {
        let last = out[out.len() - 1].clone();
        out.push(last);
    }
    Ok([out[0].clone(), out[1].clone(), out[2].clone()])
}

/// A percentage, `7`, `7.5` or `7%`, within `lo..=hi`.
pub fn parse_percent(text: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let s = text.trim();
    let s = s.strip_suffix('%').unwrap_or(s).trim();
    let v: f64 = s
        .parse()
        .map_err(|_| format!("malformed percentage '{text}'"))?;
    if !(lo..=hi).contains(&v) {
        return Err(format!("{v} is outside {lo}..{hi}"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("100").unwrap(), 100_000.0);
        assert_eq!(parse_duration_ns("12.5us").unwrap(), 12_500.0);
        assert_eq!(parse_duration_ns("250ns").unwrap(), 250.0);
        assert_eq!(parse_duration_ns("2ms").unwrap(), 2e6);
        assert_eq!(parse_duration_ns("1s").unwrap(), 1e9);
        assert!(parse_duration_ns("1h").is_err());
        assert!(parse_duration_ns("x").is_err());
        assert!(parse_duration_ns("").is_err());
        assert!(parse_duration_ns("-3us").is_err());
    }

    #[test]
    fn distributions() {
        assert_eq!(parse_dist("fixed:80us").unwrap(), Dist::Fixed(80_000.0));
        assert_eq!(parse_dist("80us").unwrap(), Dist::Fixed(80_000.0));
        assert_eq!(
            parse_dist("uniform:50us:150us").unwrap(),
            Dist::Uniform(50_000.0, 150_000.0)
        );
        assert_eq!(
            parse_dist("lognormal:100us:30us").unwrap(),
            Dist::Lognormal(100_000.0, 30_000.0)
        );
        assert_eq!(parse_dist("exp:1ms").unwrap(), Dist::Exponential(1e6));
        assert_eq!(
            parse_dist("empirical:50=80us:99=1ms").unwrap(),
            Dist::Empirical(vec![
                (0.0, 80_000.0),
                (50.0, 80_000.0),
                (99.0, 1e6),
                (100.0, 1e6)
            ])
        );
        for bad in [
            "uniform:2us:1us",
            "fixed",
            "fixed:1:2",
            "gamma:1us",
            "empirical:",
            "empirical:50=2us:40=3us",
            "empirical:50=2us:60=1us",
            "empirical:150=2us",
            "exponential:0",
        ] {
            assert!(parse_dist(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn per_direction_lists_and_default() {
        assert_eq!(parse_lat(DEFAULT_LAT).unwrap(), SimSpec::default().lat);
        let l = parse_lat("fixed:1us,fixed:2us").unwrap();
        assert_eq!(l[2], Dist::Fixed(2000.0));
        assert!(parse_lat("1us,,2us").is_err());
        assert!(parse_lat("1us,1us,1us,1us").is_err());
    }

    #[test]
    fn means() {
        assert_eq!(Dist::Uniform(1.0, 3.0).mean(), 2.0);
        let e = parse_dist("empirical:0=0us:100=2us").unwrap();
        assert!((e.mean() - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn times_up_to_1e15_ns_are_accepted() {
        assert_eq!(parse_duration_ns("1000000s").unwrap(), 1e15);
        assert!(parse_duration_ns("1000001s")
            .unwrap_err()
            .contains("too large"));
    }
}
