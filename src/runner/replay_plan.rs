//! read_iolog in the plan: a job's logs, read and parsed before the run, each
//! making the job its own (directions, block sizes, a blktrace's depth). A log that
//! does not exist yet but an earlier job of the run writes (`write_iolog` of the same
//! name: record, then replay after a stonewall) is read when the replaying job
//! starts, as fio reads a job's iolog then; so is any missing log under
//! --parse-only, where, as in fio, only the run can say. Any other missing log is an
//! error before the run.

use super::plan::ThreadPlan;
use super::replay::IoLog;
use ferrio_config::JobSpec;
use std::path::Path;
use std::sync::Arc;

/// Whether the job's logs are read at its start: one of them is missing, and an
/// earlier job writes it (or this is --parse-only).
pub(super) fn at_start(jobs: &[JobSpec], job_index: usize, spec: &JobSpec, check: bool) -> bool {
    let Some(list) = &spec.logs.read_iolog else {
        return false;
    };
    if spec.logs.merge.file.is_some() {
        return false;
    }
    list.split(':')
        .filter(|p| !p.is_empty() && !Path::new(p).exists())
        .any(|missing| {
            check
                || jobs[..job_index].iter().any(|earlier| {
                    earlier
                        .logs
                        .write_iolog
                        .as_deref()
                        .is_some_and(|w| Path::new(w) == Path::new(missing))
                })
        })
}

/// At the job's start: read its logs and make each thread the job its log makes (as
/// the planner does for a log that exists before the run). An error is the job's: a
/// log still missing, or one that does not parse.
pub(super) fn resolve(t: &mut ThreadPlan) -> Result<(), String> {
    let logs = replay_logs(&t.spec)?;
    let log = logs[t.subjob() as usize % logs.len()].clone();
    let spec = with_log(&t.spec, &log);
    t.caps = crate::engine::capabilities_for_job(&spec)?;
    let files = log.planned_files();
    // The plan's safety check, on the files the log names: no write to a block
    // device the system uses.
    super::device_guard::check_devices_free(&spec, &files, &mut Default::default())?;
    t.files = files;
    t.pass_bytes = log.bytes();
    t.spec = Arc::new(spec);
    t.replay = Some(log);
    t.replay_at_start = false;
    Ok(())
}

/// read_iolog's logs, parsed (their timing is replayed unless replay_no_stall=1):
/// one per name of its ':'-separated list, each read once (fio gives the job's
/// clones the names in turn); with merge_blktrace_file the list is the traces to
/// merge, into one log. None without read_iolog.
pub(super) fn replay_logs(spec: &JobSpec) -> Result<Vec<Arc<IoLog>>, String> {
    let Some(list) = &spec.logs.read_iolog else {
        if let Some(m) = &spec.logs.merge.file {
            return Err(format!(
                "job '{}': merge_blktrace_file={m} needs read_iolog=TRACE1:TRACE2:... (the traces to merge)",
                spec.name
            ));
        }
        return Ok(Vec::new());
    };
    let paths: Vec<&str> = match spec.logs.merge.file {
        Some(_) => vec![list.as_str()],
        None => list.split(':').filter(|p| !p.is_empty()).collect(),
    };
    let mut logs = Vec::with_capacity(paths.len());
    for path in paths {
        let mut log = super::replay::load(path, &spec.logs)?;
        log.job_bs = Some((
            std::array::from_fn(|d| (spec.bs[d].min, spec.bs[d].max)),
            spec.iodepth,
        ));
        let trace = spec.logs.merge.file.is_some()
            || super::replay::blktrace::detect(std::path::Path::new(path)).is_some();
        if trace && super::debug_hooks::on(spec, ferrio_config::DebugCategory::Blktrace) {
            for e in &log.entries {
                super::debug_hooks::blktrace_stored(&super::replay::blktrace::debug_store(e));
            }
        }
        logs.push(Arc::new(log));
    }
    Ok(logs)
}

/// The job as its log makes it: its directions, block sizes and (for a blktrace)
/// depth become the log's, as in fio.
pub(super) fn with_log(spec: &JobSpec, log: &IoLog) -> JobSpec {
    let mut spec = spec.clone();
    spec.rw.kind = log.rw_kind();
    // fio runs a blktrace at the trace's own queue depth unless iodepth is given.
    if let Some(depth) = log.depth.filter(|_| !spec.iodepth_set) {
        spec.iodepth = depth;
    }
    // Buffers are sized from the block sizes: make them the log's, direction by
    // direction (a trim's length needs no buffer: see resources::buffer_stride).
    for (bs, (min, max)) in spec.bs.iter_mut().zip(log.len_ranges()) {
        *bs = ferrio_config::BlockSize {
            min,
            max,
            split: Vec::new(),
        };
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, read: Option<&str>, write: Option<&str>) -> JobSpec {
        let mut j = JobSpec::with_defaults(name, "");
        j.logs.read_iolog = read.map(str::to_string);
        j.logs.write_iolog = write.map(str::to_string);
        j
    }

    #[test]
    fn a_missing_log_waits_for_the_start_only_when_an_earlier_job_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("rec.log");
        let log = log.to_str().unwrap();
        let w = job("w", None, Some(log));
        let r = job("r", Some(log), None);
        assert!(at_start(&[w.clone(), r.clone()], 1, &r, false));
        // Nobody writes it before: an error before the run (not deferred)...
        assert!(!at_start(&[r.clone(), w.clone()], 0, &r, false));
        // ...except under --parse-only, where only the run can say.
        assert!(at_start(std::slice::from_ref(&r), 0, &r, true));
        // A log that exists is read before the run.
        std::fs::write(log, "fio version 2 iolog\n").unwrap();
        assert!(!at_start(&[w, r.clone()], 1, &r, false));
    }
}
