//! Option: `profile=` in a job (fio's job option of that name). The profiles'
//! jobs come from the `--profile=NAME` flag (`cli/profile.rs`); as a job option
//! fio only attaches a profile's I/O hooks to the job: tiobench has none, act
//! its hourly latency pass/fail report, which ferrio does not have.

use super::{opt, Category as C, Kind as K, OptSpec};

pub const PROFILE: &[OptSpec] = &[opt("profile", K::Choice, C::Jobs, "A built-in profile's per-job hooks (fio): tiobench has none; act's latency report is not available (use --profile=act for its jobs)", |_, c, v| {
    match c.choice(v)? {
        "tiobench" => Ok(()),
        _ => Err("act's per-job latency report is not available in ferrio; --profile=act (the command-line flag) writes ACT's jobs".into()),
    }
})
.vals(&[("tiobench", "tiotest/tiobench benchmark"), ("act", "ACT Aerospike like benchmark")])];
