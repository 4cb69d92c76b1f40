//! Where a thread does I/O: the region of a file, a planned file with its region, and
//! one generated I/O. A leaf of the runner (it imports none of its modules), so the
//! planner, the pattern, the zones and the iolog replay share these types without
//! importing one another.

use crate::engine::IoOp;
use std::path::PathBuf;

/// The part of a file a job does I/O to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// First byte (fio's file offset).
    pub start: u64,
    /// Length in bytes (fio's io_size per file).
    pub len: u64,
}

/// One file a thread does I/O on.
#[derive(Clone, Debug)]
pub struct PlannedFile {
    pub path: PathBuf,
    pub region: Region,
    /// Bytes after the region that the file has (a size not a multiple of the block
    /// size): laid out, never the start of an I/O.
    pub tail: u64,
    /// Bytes of the file past the tail as the thread sees it once set up (a file or
    /// device longer than the region): fio issues a sequential pass's last block
    /// whole when it ends there (io_u fits the file, not the region).
    pub beyond: u64,
    /// Whether the path is a block device.
    pub block_device: bool,
    /// Whether the path is a block or character device (/dev/null, /dev/zero): never
    /// created, extended, truncated or unlinked.
    pub device: bool,
}

/// One generated I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextIo {
    pub op: IoOp,
    pub file: usize,
    pub offset: u64,
    pub len: u64,
    /// The write half of a trimwrite pair: it does not count toward the pass's bytes
    /// (fio trims io_size bytes and also writes io_size bytes).
    pub follow_up: bool,
}
