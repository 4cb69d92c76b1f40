//! The synchronous engines: sync, psync, vsync, pvsync, pvsync2. Each `queue` call
//! performs the I/O with one system call and completes it.

use super::{Capabilities, EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use crate::sys::io;

/// Which system-call family an engine uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// lseek + read/write
    Sync,
    /// pread/pwrite
    Psync,
    /// lseek + readv/writev
    Vsync,
    /// preadv/pwritev
    Pvsync,
    /// preadv2/pwritev2
    Pvsync2,
}

pub struct SyncEngine {
    flavor: Flavor,
    /// RWF_* flags for pvsync2.
    rwf_flags: i32,
}

impl SyncEngine {
    pub fn new(flavor: Flavor, opts: &EngineOptions) -> Self {
        let rwf_flags = if opts.hipri { libc::RWF_HIPRI } else { 0 };
        SyncEngine { flavor, rwf_flags }
    }
}

impl IoEngine for SyncEngine {
    fn name(&self) -> &'static str {
        match self.flavor {
            Flavor::Sync => "sync",
            Flavor::Psync => "psync",
            Flavor::Vsync => "vsync",
            Flavor::Pvsync => "pvsync",
            Flavor::Pvsync2 => "pvsync2",
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            synchronous: true,
            diskless: false,
        }
    }

    #[inline]
    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        u.result = match u.op {
            IoOp::Read | IoOp::Write => {
                let write = u.op == IoOp::Write;
                match self.flavor {
                    Flavor::Psync if write => io::pwrite(u.fd, u.buf, u.len, u.offset),
                    Flavor::Psync => io::pread(u.fd, u.buf, u.len, u.offset),
                    Flavor::Sync => io::seek_rw(u.fd, u.buf, u.len, u.offset, write),
                    Flavor::Vsync => io::vectored(u.fd, u.buf, u.len, u.offset, write, false, None),
                    Flavor::Pvsync => io::vectored(u.fd, u.buf, u.len, u.offset, write, true, None),
                    Flavor::Pvsync2 => io::vectored(
                        u.fd,
                        u.buf,
                        u.len,
                        u.offset,
                        write,
                        true,
                        Some(self.rwf_flags),
                    ),
                }
            }
            IoOp::Trim => io::punch_hole(u.fd, u.offset, u.len),
            IoOp::Fsync => io::sync(u.fd, false),
            IoOp::Fdatasync => io::sync(u.fd, true),
        };
        Queued::Completed
    }
}
