//! SPRandom SSD preconditioning (fio 3.4x `sprandom=`, `spr_op=`, `spr_num_regions=`,
//! `spr_cs=`): a random-write pass that leaves the drive's regions with the validity
//! spread a steady-state SSD has (docs/random.md). This holds the options and fio's
//! cross-option rules; the model and offset sequence live in the runner.

/// The job's sprandom options.
#[derive(Clone, Debug, PartialEq)]
pub struct SprandomSpec {
    /// sprandom=1: precondition with the SPRandom offset sequence.
    pub enabled: bool,
    /// spr_op=: the drive's over-provisioning ratio (0 <= op < 5/3).
    pub op: f64,
    /// spr_num_regions=: how many equal regions the model splits the drive into.
    pub num_regions: u32,
    /// spr_cs=: the drive's write cache in bytes (0: none); invalidations are held back
    /// one region so that they do not land in the cache.
    pub cache_size: u64,
    /// random_generator= was given (fio refuses a non-lfsr one only when it was set).
    pub generator_set: bool,
    /// norandommap= was given.
    pub norandommap_set: bool,
}

impl Default for SprandomSpec {
    fn default() -> Self {
        SprandomSpec {
            enabled: false,
            op: 0.15,
            num_regions: 100,
            cache_size: 0,
            generator_set: false,
            norandommap_set: false,
        }
    }
}

const ALLOWED: &str = "allowed: 0 <= spr_op < 1.667, a write amplification above 1";

/// spr_op=: a single ratio from 0 up to (not including) 5/3, where fio's write
/// amplification estimate `0.5/op + 0.7` reaches 1 and its model asserts.
pub fn parse_op(v: &str) -> Result<f64, String> {
    if v.contains(':') {
        return Err("takes a single ratio (e.g. 0.15), not a list".into());
    }
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("malformed number '{v}' ({ALLOWED})"))?;
    if !(0.0..5.0 / 3.0).contains(&x) {
        return Err(format!("{x} is out of range ({ALLOWED})"));
    }
    Ok(x)
}

/// fio's rules (init.c): sprandom needs random writes, and sets lfsr and norandommap
/// unless they were given otherwise. `writes_randomly` is the job's rw; the two
/// values are the job's generator-is-lfsr and norandommap. Returns the fixed-up
/// (lfsr, norandommap) or the error.
pub fn check(
    spec: &SprandomSpec,
    writes_randomly: bool,
    lfsr: bool,
    norandommap: bool,
) -> Result<(bool, bool), String> {
    if !writes_randomly {
        return Err("sprandom=1 needs random writes (rw=randwrite or randrw); it also needs random_generator=lfsr and norandommap=1".into());
    }
    if spec.generator_set && !lfsr {
        return Err("sprandom=1 needs random_generator=lfsr".into());
    }
    if spec.norandommap_set && !norandommap {
        return Err("sprandom=1 needs norandommap=1".into());
    }
    Ok((true, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_must_keep_the_write_amplification_above_one() {
        assert_eq!(parse_op("0.15"), Ok(0.15));
        assert_eq!(parse_op("0"), Ok(0.0));
        assert_eq!(parse_op("1.2"), Ok(1.2));
        for bad in ["1.67", "2", "-0.1", "x", "0.1:0.2", "nan"] {
            assert!(parse_op(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rules_follow_fio_init() {
        let on = SprandomSpec {
            enabled: true,
            ..Default::default()
        };
        assert_eq!(check(&on, true, false, false), Ok((true, true)));
        assert!(check(&on, false, true, true)
            .unwrap_err()
            .contains("random writes"));
        let rg = SprandomSpec {
            generator_set: true,
            ..on.clone()
        };
        assert!(check(&rg, true, false, true).unwrap_err().contains("lfsr"));
        let nm = SprandomSpec {
            norandommap_set: true,
            ..on
        };
        assert!(check(&nm, true, true, false)
            .unwrap_err()
            .contains("norandommap=1"));
        assert_eq!(check(&nm, true, true, true), Ok((true, true)));
    }
}
