//! The plan's guard for block devices the system uses: no job writes or trims a
//! mounted device, one holding a mounted partition, one held by dm/md, or active
//! swap, unless allow_mounted_write=1 (fio's rule). The planner checks each job's
//! files; a replay read at its job's start (replay_plan.rs) is checked then.

use super::region::PlannedFile;
use crate::sys::mounts;
use ferrio_config::JobSpec;
use std::path::PathBuf;

/// Refuse to write or trim a block device that the system uses (mounted, holding a
/// mounted partition, held by dm/md, or swap) unless allow_mounted_write=1: one such
/// write destroys a file system the user did not name. `checked` skips repeated paths.
pub(super) fn check_devices_free(
    spec: &JobSpec,
    files: &[PlannedFile],
    checked: &mut std::collections::HashSet<PathBuf>,
) -> Result<(), String> {
    if !spec.writes() || spec.allow_mounted_write {
        return Ok(());
    }
    for f in files.iter().filter(|f| f.block_device) {
        if !checked.insert(f.path.clone()) {
            continue;
        }
        if let Some(why) = mounts::device_in_use(&f.path) {
            return Err(format!(
                "job '{}': {why}, and 'allow_mounted_write' isn't set. Aborting.",
                spec.name
            ));
        }
    }
    Ok(())
}
