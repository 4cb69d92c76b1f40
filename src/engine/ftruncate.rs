//! `ioengine=ftruncate`: each write truncates the file to the write's offset
//! (fio's ftruncate engine: the block size only sets how far offsets step); reads
//! and trims fail with EINVAL. The I/O counts its length.

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};

pub struct FtruncateEngine;

impl FtruncateEngine {
    pub fn new(_o: &EngineOptions) -> Self {
        FtruncateEngine
    }
}

impl IoEngine for FtruncateEngine {
    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        u.result = match u.op {
            IoOp::Write => {
                // SAFETY: ftruncate on the job's open descriptor; no memory passed.
                if unsafe { libc::ftruncate(u.fd, u.offset as i64) } == 0 {
                    u.len as i64
                } else {
                    -(std::io::Error::last_os_error()
                        .raw_os_error()
                        .unwrap_or(libc::EIO) as i64)
                }
            }
            IoOp::Fsync | IoOp::Fdatasync => crate::sys::io::sync(u.fd, u.op == IoOp::Fdatasync),
            IoOp::SyncFileRange { flags } => {
                crate::sys::io::sync_range(u.fd, u.offset, u.len as u64, flags)
            }
            IoOp::Read | IoOp::Trim => -(libc::EINVAL as i64),
        };
        Queued::Completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_write_truncates_to_its_offset_and_a_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("f")).unwrap();
        let mut u = IoUnit::for_test(IoOp::Write, f.as_raw_fd(), 12288, 4096);
        FtruncateEngine.queue(0, &mut u);
        assert_eq!(u.result, 4096);
        assert_eq!(f.metadata().unwrap().len(), 12288);
        u.op = IoOp::Read;
        FtruncateEngine.queue(0, &mut u);
        assert_eq!(u.result, -(libc::EINVAL as i64));
    }
}
