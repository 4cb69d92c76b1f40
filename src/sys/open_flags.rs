//! How a job file is opened: the flags [`super::file`] and [`super::confine`] share
//! (a leaf, so that neither imports the other for them).

/// How to open a job file.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenFlags {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    pub direct: bool,
    pub sync: bool,
}

impl OpenFlags {
    /// The open(2) flags these ask for (what [`super::file::open`] passes; openat2 takes them too).
    pub fn open_flags(&self) -> i32 {
        let mut flags = match (self.read || !self.write, self.write) {
            (true, true) => libc::O_RDWR,
            (false, true) => libc::O_WRONLY,
            _ => libc::O_RDONLY,
        };
        if self.create && self.write {
            flags |= libc::O_CREAT;
        }
        if self.direct {
            flags |= libc::O_DIRECT;
        }
        if self.sync {
            flags |= libc::O_SYNC;
        }
        flags
    }
}
