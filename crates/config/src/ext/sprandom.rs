//! SPRandom SSD preconditioning (fio 3.4x `sprandom=`, `spr_op=`, `spr_num_regions=`,
//! `spr_cs=`): a random-write pass that leaves the drive's regions with the validity
//! spread a steady-state SSD has (docs/random.md). This holds the options and fio's
//! cross-option rules; the model and offset sequence live in the runner.

/// The job's sprandom options.
#[derive(Clone, Debug, PartialEq)]
pub struct SprandomSpec {
    /// sprandom=1: precondition with the SPRandom offset sequence.
    pub enabled: bool,
    /// spr_op=: the drive's over-provisioning ratio (0 < op < 1).
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

/// spr_op=: a single ratio strictly between 0 and 1 (fio's model divides by it and
/// needs a write amplification above 1).
pub fn parse_op(v: &str) -> Result<f64, String> {
    if v.contains(':') {
        return Err("takes a single ratio (e.g. 0.15), not a list".into());
    }
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("malformed number '{v}' (allowed: 0 < spr_op < 1)"))?;
    if !(x > 0.0 && x < 1.0) {
        return Err(format!("{x} is out of range (allowed: 0 < spr_op < 1)"));
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
    fn op_must_be_a_ratio_strictly_inside_zero_one() {
        assert_eq!(parse_op("0.15"), Ok(0.15));
        for bad in ["0", "1", "1.5", "-0.1", "x", "0.1:0.2", "nan"] {
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
