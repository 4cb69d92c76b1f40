//! fio options ferrio knows by name but does not implement. Using one is an error
//! ("option 'X' is not supported by ferrio yet") rather than "unknown option", and
//! never silently ignored. The few that cannot change what ferrio does or measures
//! are accepted as no-ops (marked `.noop(default)`: the value is still checked as a
//! boolean, then ignored; each help says why that is safe).

use super::{unsupported as u, OptSpec};

pub const UNSUPPORTED: &[OptSpec] = &[
    // Accepted no-ops.
    u("create_fsync", "fsync files after creating them (no-op: layout happens before timing starts)").noop("1"),
    u("softrandommap", "Continue without a random map if it cannot be allocated (no-op: ferrio always allocates the map)").noop("0"),
    // Not implemented: none today (options of fio's engines that ferrio cannot run
    // are checked by table/foreign.rs).
];
