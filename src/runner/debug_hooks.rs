//! `--debug=` lines written outside the per-thread observers (debug_trace): one
//! function per event, each called behind a flag the caller cached (a bool in its
//! own state, or the job's [`ferrio_config::DebugSet`]), so a category that is off
//! costs one predictable branch and never a lookup per I/O.
//!
//! What each category writes, and where ferrio's words differ from fio 3.33's, is in
//! docs/dropin.md ("--debug categories"). `profile` and `blktrace` have no event in
//! ferrio yet: [`profile_loaded`] and [`blktrace_stored`] are for the code that adds
//! them to call.

use super::debug_line::line;
use crate::sys::affinity::thread_id;
use ferrio_config::{DebugCategory, JobSpec};
use std::fmt::Arguments;
use std::sync::Arc;

/// Write one line of category `c` for the calling thread, in fio's shape.
pub fn say(c: DebugCategory, msg: Arguments) {
    line(c.name(), thread_id(), msg);
}

/// Whether the job's threads write lines of category `c` (for a caller to cache).
#[inline]
pub fn on(spec: &JobSpec, c: DebugCategory) -> bool {
    spec.compat.debug.has(c)
}

/// The spec thread number `number` (fio's, from 1) runs: with `--debug=job:N`
/// every other thread gets a copy that writes no lines; otherwise the spec itself.
pub fn for_thread(spec: &Arc<JobSpec>, number: u64) -> Arc<JobSpec> {
    let d = spec.compat.debug;
    if d.for_thread(number) == d {
        return spec.clone();
    }
    let mut s = (**spec).clone();
    s.compat.debug = d.for_thread(number);
    Arc::new(s)
}

/// `--debug=parse`: the parse lines the configuration made (main's thread).
pub fn parse_lines(msgs: &[String]) {
    for m in msgs {
        say(DebugCategory::Parse, format_args!("{m}"));
    }
}

/// `--debug=profile`: a built-in profile (fio's `profile=`) was loaded. ferrio has
/// no profiles yet: the code that adds `profile=` calls this, behind
/// `on(spec, DebugCategory::Profile)`, with fio's wording.
pub fn profile_loaded(name: &str) {
    say(
        DebugCategory::Profile,
        format_args!("loading profile '{name}'"),
    );
}

/// `--debug=blktrace`: one blktrace entry turned into an I/O to replay (fio's
/// `store ddir=D, off=O, len=L, delay=U`, delay in microseconds). ferrio replays no
/// blktrace yet: the replay code calls this behind `on(spec, DebugCategory::Blktrace)`.
pub fn blktrace_stored(ddir: u32, offset: u64, len: u64, delay_us: u64) {
    say(
        DebugCategory::Blktrace,
        format_args!("store ddir={ddir}, off={offset}, len={len}, delay={delay_us}"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::worker::tests::plan_of;
    use ferrio_config::DebugSet;

    fn spec_with(set: DebugSet) -> Arc<JobSpec> {
        let mut spec = (*plan_of("size=64k", true).spec).clone();
        spec.compat.debug = set;
        Arc::new(spec)
    }

    #[test]
    fn job_n_leaves_other_threads_silent_and_shares_the_spec_otherwise() {
        let spec = spec_with(DebugSet::of(&[DebugCategory::Io], Some(2)));
        assert!(Arc::ptr_eq(&for_thread(&spec, 2), &spec));
        let other = for_thread(&spec, 1);
        assert!(!on(&other, DebugCategory::Io) && on(&spec, DebugCategory::Io));
        let all = spec_with(DebugSet::of(&[DebugCategory::Io], None));
        assert!(Arc::ptr_eq(&for_thread(&all, 5), &all));
    }
}
