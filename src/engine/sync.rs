//! The synchronous engines: sync, psync, vsync, pvsync, pvsync2. Each `queue` call
//! performs the I/O with one system call and completes it.

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
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
    /// RWF_* flags for pvsync2 (RWF_HIPRI with hipri, RWF_NOWAIT with nowait,
    /// RWF_DONTCACHE with uncached).
    rwf_flags: i32,
    /// RWF_ATOMIC for pvsync2's writes with atomic=1 (fio 3.4x).
    write_flags: i32,
    /// hipri_percentage below 100: the share of I/Os that get RWF_HIPRI.
    hipri_pct: u64,
    rng: u64,
}

impl SyncEngine {
    pub fn new(flavor: Flavor, opts: &EngineOptions) -> Self {
        let mut rwf_flags = if opts.hipri { libc::RWF_HIPRI } else { 0 };
        if opts.tuning.nowait {
            rwf_flags |= libc::RWF_NOWAIT;
        }
        if opts.uncached && !opts.direct {
            rwf_flags |= super::io_uring::RWF_DONTCACHE; // uncached=1, buffered only
        }
        let hipri_pct = if opts.hipri {
            opts.tuning.hipri_percentage as u64
        } else {
            100
        };
        SyncEngine {
            flavor,
            rwf_flags,
            write_flags: if opts.atomic { libc::RWF_ATOMIC } else { 0 },
            hipri_pct,
            rng: 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// pvsync2 flags for one I/O: RWF_HIPRI on hipri_percentage of them.
    #[inline]
    fn flags(&mut self) -> i32 {
        if self.hipri_pct >= 100 {
            return self.rwf_flags;
        }
        // xorshift64: cheap, and only used to spread RWF_HIPRI over the I/Os.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        if ((self.rng >> 32) * 100) >> 32 < self.hipri_pct {
            self.rwf_flags
        } else {
            self.rwf_flags & !libc::RWF_HIPRI
        }
    }
}

impl IoEngine for SyncEngine {
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
                    Flavor::Pvsync2 => {
                        let flags = self.flags() | if write { self.write_flags } else { 0 };
                        io::vectored(u.fd, u.buf, u.len, u.offset, write, true, Some(flags))
                    }
                }
            }
            IoOp::Trim => io::punch_hole(u.fd, u.offset, u.len),
            IoOp::Fsync => io::sync(u.fd, false),
            IoOp::Fdatasync => io::sync(u.fd, true),
            IoOp::SyncFileRange { flags } => io::sync_range(u.fd, u.offset, u.len as u64, flags),
        };
        Queued::Completed
    }
}
