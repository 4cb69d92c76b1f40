//! The short, bounded version of `scripts/fuzz-vs-fio --counts` (docs/testing.md):
//! a fixed seed's first 40 random deterministic jobs (2 to 9 options each) run under
//! fio 3.33 and this build's ferrio (`fio_seeds=3.33`), which must accept the same
//! jobs, never panic or hang, and move the same I/Os and bytes per direction; then 30
//! pairs of jobs on one file (`--two`). The long runs (other seeds, hundreds of jobs)
//! stay in the script.
//!
//! Skipped (with a message) without fio 3.33, unless FERRIO_REQUIRE_FIO or CI is set:
//! other fio versions seed differently.

mod common;
use common::*;
use std::process::Command;

#[test]
fn a_fixed_seeds_random_jobs_move_what_fio_333_moves() {
    if !have_fio() {
        return;
    }
    let version = Command::new("fio").arg("--version").output().unwrap();
    if !String::from_utf8_lossy(&version.stdout).starts_with("fio-3.33") {
        skip::skip("the counts are fio 3.33's (its seeding); another fio is installed");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/fuzz-vs-fio");
    // One job per run, then (--two) a second job on the first one's file.
    for (extra, seed, jobs) in [(None, "81", "40"), (Some("--two"), "82", "30")] {
        let o = Command::new("python3")
            .arg(script)
            .args(["--counts", "--seed", seed, "--jobs", jobs])
            .args(extra)
            .args(["--ferrio", env!("CARGO_BIN_EXE_ferrio")])
            .current_dir(scratch_cwd())
            .output()
            .expect("run python3 scripts/fuzz-vs-fio");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success()
                && out.contains(&format!("{jobs} jobs (seed {seed}"))
                && out.contains(", 0 reported"),
            "{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
