//! Option: `profile=` in a job (fio's job option of that name). The profiles'
//! jobs come from the `--profile=NAME` flag (`cli/profile.rs`); as a job option
//! fio only attaches a profile's I/O hooks to the job: tiobench has none, act
//! its hourly latency pass/fail report (`ext/compat.rs`, `src/runner/act.rs`).

use super::{opt, Category as C, Kind as K, OptSpec};

pub const PROFILE: &[OptSpec] = &[opt("profile", K::Choice, C::Jobs, "A built-in profile's per-job hooks (fio): tiobench has none; act counts the job's I/Os over 1, 8 and 64 ms per hour and prints ACT's table and PASSED/FAILED verdict before the jobs' reports (--profile=act writes ACT's jobs and attaches it to every job)", |j, c, v| {
    j.compat.act_report = (c.choice(v)? == "act").then_some(0);
    Ok(())
})
.vals(&[("tiobench", "tiotest/tiobench benchmark"), ("act", "ACT Aerospike like benchmark")])];
