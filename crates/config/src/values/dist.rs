//! `random_distribution=`: random, zipf:θ, pareto:h, normal:dev[:center],
//! zoned:a/r:a/r[,..], zoned_abs:a/size:a/size[,..], sequence:b,b,... (fio 3.42).
//!
//! Checks follow fio: zipf θ must be positive and not 1.0, pareto h in (0, 1),
//! normal deviation in [0, 100] and center in [0, 1]; zoned access and range
//! percentages must each add up to 100, zoned_abs access percentages too; at most
//! 256 zones per direction.

use super::list::per_direction;
use super::size::parse_size;

#[derive(Clone, Debug, PartialEq)]
pub enum RandomDistribution {
    Random,
    /// zipf:<theta>[:center]; the centre (0..=1) replaces fio's random rotation.
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    /// pareto:<h>[:center]
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    /// normal:<stddev percent>[:center]
    Normal {
        dev_pct: f64,
        center: Option<f64>,
    },
    /// zoned: list of (access %, range %) per direction.
    Zoned([Vec<(u32, u32)>; 3]),
    /// zoned_abs: list of (access %, size in bytes) per direction.
    ZonedAbs([Vec<(u32, u64)>; 3]),
    /// sequence:b,b,...: fixed block indices visited in this order (fio 3.42), at
    /// most [`SEQUENCE_MAX`] of them.
    Sequence(Vec<u32>),
}

/// fio's FIO_SEQ_MAX: the longest `sequence:` list it takes.
pub const SEQUENCE_MAX: usize = 64;

/// `sequence:b,b,...`: comma-separated block indices, each a plain decimal number
/// (blanks around it allowed), 1 to 64 of them, as fio's parser takes them.
fn parse_sequence(rest: Option<&str>) -> Result<RandomDistribution, String> {
    let list = rest
        .map(str::trim)
        .ok_or("sequence needs block indices: sequence:2,0,1")?;
    let items: Vec<&str> = list.split(',').map(str::trim).collect();
    if items.len() > SEQUENCE_MAX {
        return Err(format!(
            "sequence takes at most {SEQUENCE_MAX} block indices, not {}",
            items.len()
        ));
    }
    let blocks = items
        .iter()
        .map(|t| {
            t.parse::<u32>()
                .ok()
                .filter(|_| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    format!("sequence block index '{t}' is not a non-negative whole number")
                })
        })
        .collect::<Result<Vec<u32>, String>>()?;
    Ok(RandomDistribution::Sequence(blocks))
}

fn float(s: &str, what: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("malformed {what} '{}'", s.trim()))
}

/// Parse a random_distribution value.
pub fn parse_distribution(text: &str, kb_base: u32) -> Result<RandomDistribution, String> {
    let s = text.trim();
    if s == "random" {
        return Ok(RandomDistribution::Random);
    }
    if let Some(rest) = s.strip_prefix("zoned_abs") {
        let rest = rest
            .strip_prefix([':', '='])
            .ok_or("zoned_abs needs zones: zoned_abs:60/20g:40/100g")?;
        let mut dirs: [Vec<(u32, u64)>; 3] = Default::default();
        let parts = per_direction(rest)?;
        for (d, p) in dirs.iter_mut().zip(parts) {
            let p = p
                .or(parts.iter().flatten().next().copied())
                .unwrap_or_default();
            *d = zones(p, |z| parse_size(z, kb_base))?;
            let acc: u32 = d.iter().map(|z| z.0).sum();
            if acc != 100 {
                return Err(format!(
                    "zoned_abs access percentages in '{p}' add up to {acc}, must be 100"
                ));
            }
        }
        return Ok(RandomDistribution::ZonedAbs(dirs));
    }
    if let Some(rest) = s.strip_prefix("zoned") {
        let rest = rest
            .strip_prefix([':', '='])
            .ok_or("zoned needs zones: zoned:60/10:40/90")?;
        let mut dirs: [Vec<(u32, u32)>; 3] = Default::default();
        let parts = per_direction(rest)?;
        for (d, p) in dirs.iter_mut().zip(parts) {
            let p = p
                .or(parts.iter().flatten().next().copied())
                .unwrap_or_default();
            // An empty range (`20/`) takes whatever the other zones left, as in fio.
            const REST: u32 = u32::MAX;
            *d = zones(p, |z| match z.trim() {
                "" => Ok(REST),
                t => t
                    .parse::<u32>()
                    .map_err(|_| format!("malformed zone range percentage '{z}'")),
            })?;
            let given: u32 = d.iter().filter(|z| z.1 != REST).map(|z| z.1).sum();
            let open = d.iter().filter(|z| z.1 == REST).count() as u32;
            if let Some(share) = 100u32.saturating_sub(given).checked_div(open) {
                for z in d.iter_mut().filter(|z| z.1 == REST) {
                    z.1 = share;
                }
            }
            let acc: u32 = d.iter().map(|z| z.0).sum();
            let range: u32 = d.iter().map(|z| z.1).sum();
            if acc != 100 || range != 100 {
                return Err(format!(
                    "zoned percentages in '{p}' add up to {acc} (access) and {range} (range), both must be 100"
                ));
            }
        }
        return Ok(RandomDistribution::Zoned(dirs));
    }
    let (kind, args) = s.split_once(':').unwrap_or((s, ""));
    if kind == "sequence" {
        return parse_sequence(s.split_once(':').map(|(_, l)| l));
    }
    let args: Vec<&str> = if args.is_empty() {
        vec![]
    } else {
        args.split(':').collect()
    };
    if !matches!(kind, "zipf" | "pareto" | "normal" | "gauss") {
        return Err(format!("unknown distribution '{kind}'"));
    }
    if args.len() > 2 {
        return Err(format!(
            "{kind} takes {kind}[:<value>[:<center 0..1>]], not {} values",
            args.len()
        ));
    }
    // As fio: a bare name takes the default value (zipf 1.1, pareto 0.2, normal 0);
    // the optional centre (0..=1) places the hot spot instead of a random rotation.
    let value = |what: &str, default: f64| match args.first() {
        None => Ok(default),
        Some(v) => float(v, what),
    };
    let center = match args.get(1) {
        None => None,
        Some(c) => {
            let c = float(c, &format!("{kind} center"))?;
            if !(0.0..=1.0).contains(&c) {
                return Err(format!("{kind} center {c} out of range [0, 1]"));
            }
            Some(c)
        }
    };
    match kind {
        "zipf" => {
            let theta = value("zipf theta", 1.1)?;
            if theta <= 0.0 || theta == 1.0 {
                return Err(format!(
                    "zipf theta {theta} out of range (must be > 0 and not 1.0)"
                ));
            }
            Ok(RandomDistribution::Zipf { theta, center })
        }
        "pareto" => {
            let h = value("pareto power", 0.2)?;
            if !(h > 0.0 && h < 1.0) {
                return Err(format!("pareto power {h} out of range (0, 1)"));
            }
            Ok(RandomDistribution::Pareto { h, center })
        }
        _ => {
            let dev = value("normal deviation", 0.0)?;
            if !(0.0..100.0).contains(&dev) {
                return Err(format!("normal deviation {dev} out of range [0, 100)"));
            }
            Ok(RandomDistribution::Normal {
                dev_pct: dev,
                center,
            })
        }
    }
}

fn zones<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<(u32, T)>, String> {
    let mut out = Vec::new();
    for z in text.split(':') {
        let (a, r) = z
            .split_once('/')
            .ok_or_else(|| format!("malformed zone '{z}' (expected access%/range)"))?;
        let a = a
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("malformed zone access percentage '{a}'"))?;
        out.push((a, parse(r)?));
    }
    if out.len() > 256 {
        return Err("too many zones (at most 256)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use RandomDistribution as D;

    fn d(s: &str) -> Result<D, String> {
        parse_distribution(s, 1024)
    }

    #[test]
    fn simple() {
        assert_eq!(d("random"), Ok(D::Random));
        let zipf = |theta, center| D::Zipf { theta, center };
        let pareto = |h, center| D::Pareto { h, center };
        assert_eq!(d("zipf:1.2"), Ok(zipf(1.2, None)));
        assert_eq!(d("pareto:0.9"), Ok(pareto(0.9, None)));
        // Centres (fio 3.33 takes them for all three) and fio's bare defaults.
        assert_eq!(d("zipf:1.2:0.3"), Ok(zipf(1.2, Some(0.3))));
        assert_eq!(d("pareto:0.9:1"), Ok(pareto(0.9, Some(1.0))));
        assert_eq!(d("zipf"), Ok(zipf(1.1, None)));
        assert_eq!(d("pareto"), Ok(pareto(0.2, None)));
        assert_eq!(
            d("normal"),
            Ok(D::Normal {
                dev_pct: 0.0,
                center: None
            })
        );
        assert!(d("zipf:1.2:1.5")
            .unwrap_err()
            .contains("zipf center 1.5 out of range"));
        assert!(d("pareto:0.5:-0.1").is_err());
        assert!(d("zipf:1").unwrap_err().contains("not 1.0"));
        assert!(d("normal:100")
            .unwrap_err()
            .contains("out of range [0, 100)"));
        assert!(d("zipf:1.2:0.5:3").is_err());
        assert_eq!(
            d("normal:20"),
            Ok(D::Normal {
                dev_pct: 20.0,
                center: None
            })
        );
        assert_eq!(
            d("normal:20:0.25"),
            Ok(D::Normal {
                dev_pct: 20.0,
                center: Some(0.25)
            })
        );
    }

    #[test]
    fn zoned() {
        let z = vec![(60, 10), (30, 20), (8, 30), (2, 40)];
        assert_eq!(
            d("zoned:60/10:30/20:8/30:2/40"),
            Ok(D::Zoned([z.clone(), z.clone(), z]))
        );
        let r = vec![(50, 50), (50, 50)];
        let w = vec![(100, 100)];
        assert_eq!(
            d("zoned:50/50:50/50,100/100"),
            Ok(D::Zoned([r, w.clone(), w]))
        );
        // fio's rand-zones.fio: an empty last range takes the rest (100 - 5 - 15).
        let rest = vec![(50, 5), (30, 15), (20, 80)];
        assert_eq!(
            d("zoned:50/5:30/15:20/"),
            Ok(D::Zoned([rest.clone(), rest.clone(), rest]))
        );
        let g = 1u64 << 30;
        let a = vec![(60, 20 * g), (40, 100 * g)];
        assert_eq!(
            d("zoned_abs:60/20g:40/100g"),
            Ok(D::ZonedAbs([a.clone(), a.clone(), a.clone()]))
        );
        assert_eq!(
            d("zoned_abs=60/20G:40/100G"),
            Ok(D::ZonedAbs([a.clone(), a.clone(), a]))
        );
    }

    #[test]
    fn sequence() {
        assert_eq!(d("sequence:2,0,1"), Ok(D::Sequence(vec![2, 0, 1])));
        // fio strips blanks around each index.
        assert_eq!(d("sequence: 7 , 3"), Ok(D::Sequence(vec![7, 3])));
        let max = vec!["1"; SEQUENCE_MAX].join(",");
        assert_eq!(
            d(&format!("sequence:{max}")),
            Ok(D::Sequence(vec![1; SEQUENCE_MAX]))
        );
        assert!(d(&format!("sequence:{max},1"))
            .unwrap_err()
            .contains("at most 64"));
    }

    #[test]
    fn errors() {
        // (Bare zipf/pareto/normal and centres are valid, as in fio: see `simple`.)
        for bad in [
            "zipf:1",
            "zipf:0",
            "zipf:x",
            "zipf:1.2:2",
            "zipf:1.2:0.5:1",
            "pareto:1",
            "pareto:0",
            "pareto:0.5:x",
            "normal:100",
            "normal:101",
            "normal:10:2",
            "zoned",
            "zoned:50/50",
            "zoned:60/10:30/20",
            "zoned:x/50:50/50",
            "zoned_abs:50/1g",
            "zoned_abs:100/1q",
            "uniform",
            "",
            "sequence",
            "sequence:",
            "sequence:1,,2",
            "sequence:1,-2",
            "sequence:1,x",
            "sequence:1.5",
            "sequence:4294967296",
        ] {
            assert!(d(bad).is_err(), "{bad}");
        }
    }
}
