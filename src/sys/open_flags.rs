//! How a job file is opened: the flags [`super::file`] and [`super::confine`] share
//! (a leaf, so that neither imports the other for them).

/// How to open a job file.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenFlags {
    pub read: bool,
    pub write: bool,
    /// O_CREAT: create a missing file (empty), also for a file opened only to read
    /// (fio's create_on_open).
    pub create: bool,
    pub direct: bool,
    pub sync: bool,
    /// With `sync`: O_DSYNC instead of O_SYNC (sync=dsync).
    pub dsync: bool,
    /// A file this open creates is its owner's alone (0600), as fio's job open
    /// (file_lookup_open) makes it; the layout's files are 0644, as fio's.
    pub private: bool,
    /// O_NONBLOCK: an open that must not wait (a FIFO with no writer would block a
    /// read-only open until one came).
    pub nonblock: bool,
}

impl OpenFlags {
    /// The mode a file this open creates gets (before the umask).
    pub fn create_mode(&self) -> u32 {
        if self.private {
            0o600
        } else {
            0o644
        }
    }

    /// The open(2) flags these ask for (what [`super::file::open`] passes; openat2 takes them too).
    pub fn open_flags(&self) -> i32 {
        let mut flags = match (self.read || !self.write, self.write) {
            (true, true) => libc::O_RDWR,
            (false, true) => libc::O_WRONLY,
            _ => libc::O_RDONLY,
        };
        if self.create {
            flags |= libc::O_CREAT;
        }
        if self.direct {
            flags |= libc::O_DIRECT;
        }
        if self.nonblock {
            flags |= libc::O_NONBLOCK;
        }
        flags | self.sync_flag()
    }

    /// O_SYNC, O_DSYNC or nothing, as `sync` and `dsync` say.
    pub fn sync_flag(&self) -> i32 {
        match (self.sync, self.dsync) {
            (false, _) => 0,
            (true, false) => libc::O_SYNC,
            (true, true) => libc::O_DSYNC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::OpenFlags;

    #[test]
    fn sync_and_dsync_pick_their_flag() {
        let f = |sync, dsync| OpenFlags {
            write: true,
            sync,
            dsync,
            ..Default::default()
        };
        assert_eq!(f(false, false).open_flags(), libc::O_WRONLY);
        assert_eq!(f(false, true).sync_flag(), 0, "dsync alone is nothing");
        assert_eq!(f(true, false).open_flags(), libc::O_WRONLY | libc::O_SYNC);
        assert_eq!(f(true, true).open_flags(), libc::O_WRONLY | libc::O_DSYNC);
        // create_on_open: a file opened only to read is created too.
        let read_create = OpenFlags {
            read: true,
            create: true,
            ..Default::default()
        };
        assert_eq!(read_create.open_flags(), libc::O_RDONLY | libc::O_CREAT);
        // O_SYNC includes O_DSYNC's bit: the two differ only in O_SYNC's own.
        assert_ne!(libc::O_SYNC, libc::O_DSYNC);
    }
}
