//! The sizes fio's serial file setup leaves: fio sets up each create_serialize job's
//! files before the next job's (run_threads → setup_files), so a later job sized from
//! a file, or appending to it, sees what the earlier setups made of it. Here the
//! planner keeps that per path, job after job, without touching the files.

use super::region::PlannedFile;
use crate::engine::Capabilities;
use crate::sys::confine::Confine;
use crate::sys::file;
use ferrio_config::{Fallocate, JobSpec};
use std::collections::HashMap;
use std::path::PathBuf;

/// Files' sizes after the setup of the threads planned so far (path → length).
pub(super) type LaidOut = HashMap<PathBuf, u64>;

/// fio's new_layout (extend_file): a job that reads, or overwrites without
/// file_append, or writes with an engine that cannot grow a file (mmap) has a short
/// file written whole to its region's end; any other job only has it fallocated.
pub(super) fn writes_whole(spec: &JobSpec, caps: Capabilities) -> bool {
    spec.rw.kind.directions()[0]
        || (spec.writes() && spec.overwrite && !spec.dropin.file_append)
        || (spec.writes() && caps.no_extend)
}

/// Note what a planned thread's setup does to its files, as fio's extend_file does
/// it, for the threads planned after it. Only a file shorter than the region's end
/// is touched. A job that [`writes_whole`] lays the file out anew to that end; any
/// other job only opens it, after unlinking it if it writes without overwrite or
/// file_append, and then fallocates it: native, posix and truncate make it the
/// region's end long, none and keep leave it as it was (empty when unlinked).
pub(super) fn note(
    laid_out: &mut LaidOut,
    spec: &JobSpec,
    caps: Capabilities,
    files: &[PlannedFile],
    confine: Option<&Confine>,
) {
    if caps.diskless || spec.create_on_open || !spec.local.create_serialize || spec.fill_device {
        return;
    }
    let new_layout = writes_whole(spec, caps);
    let unlinks = spec.writes() && !spec.overwrite && !spec.dropin.file_append;
    let allocates = matches!(
        spec.fallocate,
        Fallocate::Native | Fallocate::Posix | Fallocate::Truncate
    );
    for f in files.iter().filter(|f| !f.device) {
        let end = f.region.start + f.region.len + f.tail;
        let before = laid_out
            .get(&f.path)
            .copied()
            .or_else(|| file::existing_size(confine, &f.path));
        if before.is_some_and(|b| b >= end) {
            continue;
        }
        let after = if new_layout || allocates {
            end
        } else if unlinks {
            0
        } else {
            before.unwrap_or(0)
        };
        laid_out.insert(f.path.clone(), after);
    }
}

/// A file's size as a thread planned now sees it: what the earlier setups left, or
/// its size before the run. A file missing before the run that no earlier setup
/// makes stays missing here: a job that needs its size is sized at its start
/// (late_sizes.rs).
pub(super) fn seen(existing: Option<u64>, laid: Option<u64>) -> Option<u64> {
    laid.or(existing)
}
