//! unlink=1: the job's files are removed when its thread ends, however it ends (its
//! run's end, or a setup that failed after the layout made them), as fio's
//! close_and_free_files removes them on every path.

use crate::engine::Accounting as Counts;
use crate::runner::plan::ThreadPlan;
use crate::sys::file;

/// Remove the thread's files (not devices). Engines that work on names (the metadata
/// engines) made them even when diskless; a directory engine's names are directories.
pub fn unlink_files(plan: &ThreadPlan) {
    if !plan.spec.unlink {
        return;
    }
    let named = plan.caps.accounting == Counts::FileOps;
    for f in &plan.files {
        if !f.device && (named || !plan.caps.diskless) {
            let confine = plan.confine.as_deref();
            let gone = file::remove_in(confine, &f.path, false);
            if named && gone.is_err() && f.path.is_dir() {
                let _ = file::remove_in(confine, &f.path, true);
            }
        }
    }
}
