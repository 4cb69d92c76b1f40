//! `ioengine=falloc`: fallocate(2) per I/O, as fio's falloc engine — a read
//! allocates without changing the size (FALLOC_FL_KEEP_SIZE), a write allocates
//! (and may extend), a trim punches a hole. Nothing is transferred; the I/O counts
//! its length.

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};

pub struct FallocEngine {
    /// The files again, read-write (fallocate needs a writable descriptor even
    /// for a job that only "reads", as fio opens them O_RDWR). With openfiles <
    /// nrfiles a file is reopened when the loop opens it and dropped when it closes.
    files: Vec<Option<File>>,
}

impl FallocEngine {
    pub fn new(_o: &EngineOptions) -> Self {
        FallocEngine { files: Vec::new() }
    }
}

/// Open `fd`'s file again read-write.
fn reopen_rw(fd: RawFd) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(format!("/proc/self/fd/{fd}"))
}

impl IoEngine for FallocEngine {
    fn setup(&mut self, fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        // (A file not open yet (openfiles) is reopened when it is opened.)
        self.files = fds
            .iter()
            .map(|&fd| (fd >= 0).then(|| reopen_rw(fd)).transpose())
            .collect::<io::Result<_>>()?;
        Ok(())
    }

    fn file_changed(&mut self, file: usize, fd: RawFd) -> io::Result<()> {
        if self.files.len() <= file {
            self.files.resize_with(file + 1, || None);
        }
        self.files[file] = if fd >= 0 { Some(reopen_rw(fd)?) } else { None };
        Ok(())
    }

    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        let fd = self
            .files
            .get(u.file)
            .and_then(Option::as_ref)
            .map_or(u.fd, |f| f.as_raw_fd());
        let mode = match u.op {
            IoOp::Read => libc::FALLOC_FL_KEEP_SIZE,
            IoOp::Write => 0,
            IoOp::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            IoOp::Fsync | IoOp::Fdatasync => {
                u.result = crate::sys::io::sync(fd, u.op == IoOp::Fdatasync);
                return Queued::Completed;
            }
            IoOp::SyncFileRange { flags } => {
                u.result = crate::sys::io::sync_range(fd, u.offset, u.len as u64, flags);
                return Queued::Completed;
            }
        };
        // SAFETY: fallocate on a descriptor this engine owns; no memory is passed.
        let ret = unsafe { libc::fallocate(fd, mode, u.offset as i64, u.len as i64) };
        u.result = if ret == 0 {
            u.len as i64
        } else {
            -(io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64)
        };
        Queued::Completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn unit(op: IoOp, fd: RawFd, offset: u64, len: usize) -> IoUnit {
        IoUnit::for_test(op, fd, offset, len)
    }

    #[test]
    fn reads_allocate_in_place_writes_extend_and_trims_punch_holes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = File::create(&path).unwrap();
        let ro = File::open(&path).unwrap();
        let mut e = FallocEngine::new(&EngineOptions::default());
        e.setup(&[ro.as_raw_fd()], &[]).unwrap();
        let mut u = unit(IoOp::Read, ro.as_raw_fd(), 0, 1 << 20);
        e.queue(0, &mut u);
        assert_eq!(
            u.result,
            1 << 20,
            "read: allocated through the read-write reopen"
        );
        let m = f.metadata().unwrap();
        assert_eq!(m.len(), 0, "KEEP_SIZE");
        assert!(m.blocks() * 512 >= 1 << 20);
        let mut u = unit(IoOp::Write, ro.as_raw_fd(), 1 << 20, 4096);
        e.queue(0, &mut u);
        assert_eq!(f.metadata().unwrap().len(), (1 << 20) + 4096);
        let before = f.metadata().unwrap().blocks();
        let mut u = unit(IoOp::Trim, ro.as_raw_fd(), 0, 1 << 20);
        e.queue(0, &mut u);
        assert_eq!(u.result, 1 << 20);
        assert!(f.metadata().unwrap().blocks() < before, "hole punched");
    }

    #[test]
    fn a_file_opened_during_the_run_is_reopened_read_write_and_dropped_at_close() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = File::create(&path).unwrap();
        let mut e = FallocEngine::new(&EngineOptions::default());
        e.setup(&[-1, -1], &[]).unwrap();
        let ro = File::open(&path).unwrap();
        e.file_changed(1, ro.as_raw_fd()).unwrap();
        let mut u = unit(IoOp::Write, ro.as_raw_fd(), 0, 4096);
        u.file = 1;
        e.queue(0, &mut u);
        assert_eq!(u.result, 4096, "written through the read-write reopen");
        assert_eq!(f.metadata().unwrap().len(), 4096);
        e.file_changed(1, -1).unwrap();
        assert!(e.files[1].is_none(), "closed with the loop's descriptor");
    }
}
