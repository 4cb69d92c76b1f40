//! Jobs whose file sizes are known only when they start (and jobs whose read_iolog
//! log an earlier job writes: replay_plan.rs). fio sizes a job's files at
//! its start when they do not exist yet at the run's start (its create_serialize=0
//! jobs, as in fio's `surface-scan.fio`: a write phase creates the file, a stonewalled
//! read phase without size= reads what it holds). The planner defers such a job
//! (`ThreadPlan::sized_at_start`, planner.rs's `sized_later`) only when a file it cannot
//! size is missing and an earlier job names it; every other sizing error stays a
//! plan-time error. The runner sizes and lays out the deferred job here, once the jobs
//! it waits for have finished.

use super::plan::ThreadPlan;
use super::planner;
use std::sync::atomic::AtomicBool;

/// Size and lay out a deferred job's threads (`clones`: all of them) at its start, with
/// the plan-time checks that needed the sizes. Threads sized at plan time are left as
/// they are. Ok(false): the run was stopped first, and the job does not start (its
/// file may never have been written). An error is the job's: it does not start.
pub(super) fn resolve(clones: &mut [ThreadPlan], stop: &AtomicBool) -> Result<bool, String> {
    if !clones.iter().any(|t| t.sized_at_start || t.replay_at_start) {
        return Ok(true);
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(false);
    }
    for t in clones.iter_mut().filter(|t| t.replay_at_start) {
        super::replay_plan::resolve(t)?;
    }
    for t in clones.iter_mut().filter(|t| t.sized_at_start) {
        let target = crate::engine::registry::target_size(&t.spec).transpose()?;
        let files = planner::plan_files(
            &t.spec,
            t.subjob(),
            t.caps,
            t.confine.as_deref(),
            target,
            &t.seeds,
            // (The files exist by now: their sizes are on disk.)
            &Default::default(),
        )?;
        let pass_bytes = super::work_size::pass_bytes(&t.spec, &files);
        planner::check_work(&t.spec, pass_bytes)?;
        t.files = files;
        t.pass_bytes = pass_bytes;
        t.sized_at_start = false;
        // The generator note the run's start printed for the jobs it could size
        // (app.rs): on stderr, as the report has started.
        if t.clone == 0 {
            if let Some(note) = super::pattern::limits::note_for(t) {
                eprintln!("ferrio: job '{}': {note}", t.spec.name);
            }
        }
    }
    // The files exist by now (they were sized from them): this only checks them, and
    // writes no layout lines (the report has started).
    let failed = super::layout::lay_out(clones, &mut std::io::sink(), stop)?;
    super::layout::mark_failed(clones, failed);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrio_config::values::size::SizeOrPercent;
    use ferrio_config::JobSpec;
    use std::path::Path;

    /// A job on `file`; a size makes it the writer, none the reader.
    fn job(name: &str, file: &Path, size: Option<u64>, stonewall: bool) -> JobSpec {
        let mut j = JobSpec::with_defaults(name, "");
        j.filenames = vec![file.display().to_string()];
        j.size = size.map(SizeOrPercent::Bytes);
        j.stonewall = stonewall;
        j
    }

    #[test]
    fn a_missing_file_an_earlier_job_names_waits_for_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("data");
        // (create_serialize=0: w lays its file out in its own thread as it starts, so
        // no setup before r's makes it; with the default, r is sized from w's layout
        // at plan time, as fio sizes it after w's setup.)
        let mut w = job("w", &f, Some(64 << 10), false);
        w.local.create_serialize = false;
        let jobs = [w, job("r", &f, None, true)];
        let mut threads = planner::plan(&jobs).unwrap();
        assert!(!threads[0].sized_at_start);
        assert!(threads[1].sized_at_start);
        assert_eq!(threads[1].pass_bytes, 0);
        // Still missing at the start: the job's error names the file.
        let stop = AtomicBool::new(false);
        let e = resolve(&mut threads[1..], &stop).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        std::fs::write(&f, vec![0u8; 96 << 10]).unwrap();
        let stopped = AtomicBool::new(true);
        assert_eq!(resolve(&mut threads[1..], &stopped), Ok(false));
        assert!(threads[1].sized_at_start);
        assert_eq!(resolve(&mut threads[1..], &stop), Ok(true));
        assert_eq!(threads[1].pass_bytes, 96 << 10);
        assert_eq!(threads[1].files[0].region.len, 96 << 10);
    }

    #[test]
    fn a_missing_file_an_earlier_setup_lays_out_is_sized_from_that_layout() {
        // fio sets w's file up (64 KiB) before r's, and sizes r then: r needs no
        // waiting, and a file w unlinks at its end cannot leave r without a size.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("data");
        let jobs = [
            job("w", &f, Some(64 << 10), false),
            job("r", &f, None, true),
        ];
        let threads = planner::plan(&jobs).unwrap();
        assert!(!threads[1].sized_at_start);
        assert_eq!(threads[1].pass_bytes, 64 << 10);
    }

    #[test]
    fn a_missing_file_no_earlier_job_names_is_still_refused_at_plan_time() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let jobs = [
            job("w", &a, Some(64 << 10), false),
            job("r", &b, None, true),
        ];
        let e = planner::plan(&jobs).unwrap_err();
        assert!(e.contains("size= is not set"), "{e}");
        // A later job never makes an earlier one wait.
        let jobs = [
            job("r", &a, None, false),
            job("w", &a, Some(64 << 10), true),
        ];
        let e = planner::plan(&jobs).unwrap_err();
        assert!(e.contains("size= is not set"), "{e}");
    }
}
