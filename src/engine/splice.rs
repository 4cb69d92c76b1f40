//! `ioengine=splice`: moves data between the file and the I/O buffer through a
//! pipe, as fio's splice engine: a read splices file pages into the pipe and
//! reads them out into the buffer; a write vmsplices the buffer into the pipe and
//! splices the pipe into the file. Trims punch holes and syncs sync, as psync's.

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// At most this much per splice (fio's SPLICE_DEF_SIZE, the default pipe size).
const CHUNK: usize = 64 << 10;

pub struct SpliceEngine {
    /// (read end, write end); made in setup.
    pipe: Option<(OwnedFd, OwnedFd)>,
}

impl SpliceEngine {
    pub fn new(_o: &EngineOptions) -> Self {
        SpliceEngine { pipe: None }
    }
}

fn errno() -> i64 {
    -(io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO) as i64)
}

/// File → pipe → buffer. Returns bytes read (short at the end of the file) or -errno.
fn read(fd: RawFd, r: RawFd, w: RawFd, buf: *mut u8, len: usize, offset: u64) -> i64 {
    let mut off = offset as libc::loff_t;
    let mut done = 0usize;
    while done < len {
        let want = (len - done).min(CHUNK);
        // SAFETY: splice between two descriptors we own; `off` is a valid loff_t.
        let n = unsafe {
            libc::splice(
                fd,
                &mut off,
                w,
                std::ptr::null_mut(),
                want,
                libc::SPLICE_F_MORE,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error().raw_os_error();
            if e == Some(libc::EAGAIN) || e == Some(libc::EINTR) {
                continue;
            }
            return errno();
        }
        if n == 0 {
            break; // end of file
        }
        let mut left = n as usize;
        while left > 0 {
            // SAFETY: `buf + done` has `len - done >= left` writable bytes (the
            // unit's buffer holds `len`).
            let m = unsafe { libc::read(r, buf.add(done).cast(), left) };
            if m <= 0 {
                return if m == 0 { -(libc::EIO as i64) } else { errno() };
            }
            left -= m as usize;
            done += m as usize;
        }
    }
    done as i64
}

/// Buffer → pipe (vmsplice) → file. Returns bytes written or -errno.
fn write(fd: RawFd, r: RawFd, w: RawFd, buf: *mut u8, len: usize, offset: u64) -> i64 {
    let mut off = offset as libc::loff_t;
    let mut done = 0usize;
    while done < len {
        let iov = libc::iovec {
            // SAFETY: within the unit's buffer of `len` bytes.
            iov_base: unsafe { buf.add(done) }.cast(),
            iov_len: (len - done).min(CHUNK),
        };
        // SAFETY: the iovec points at initialised buffer memory that stays alive
        // until the pipe is drained below.
        let n = unsafe { libc::vmsplice(w, &iov, 1, 0) };
        if n < 0 {
            return errno();
        }
        let mut left = n as usize;
        while left > 0 {
            // SAFETY: splice between descriptors we own; `off` is a valid loff_t.
            let m = unsafe { libc::splice(r, std::ptr::null_mut(), fd, &mut off, left, 0) };
            if m <= 0 {
                return if m == 0 { -(libc::EIO as i64) } else { errno() };
            }
            left -= m as usize;
        }
        done += n as usize;
    }
    done as i64
}

impl IoEngine for SpliceEngine {
    fn setup(&mut self, _fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        let mut p = [0; 2];
        // SAFETY: pipe2 writes two descriptors into `p`.
        if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned by nobody else.
        self.pipe = Some(unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) });
        Ok(())
    }

    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        let Some((r, w)) = &self.pipe else {
            u.result = -(libc::EBADF as i64);
            return Queued::Completed;
        };
        let (r, w) = (r.as_raw_fd(), w.as_raw_fd());
        u.result = match u.op {
            IoOp::Read => read(u.fd, r, w, u.buf, u.len, u.offset),
            IoOp::Write => write(u.fd, r, w, u.buf, u.len, u.offset),
            IoOp::Trim => crate::sys::io::punch_hole(u.fd, u.offset, u.len),
            IoOp::Fsync => crate::sys::io::sync(u.fd, false),
            IoOp::Fdatasync => crate::sys::io::sync(u.fd, true),
            IoOp::SyncFileRange { flags } => {
                crate::sys::io::sync_range(u.fd, u.offset, u.len as u64, flags)
            }
        };
        Queued::Completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    #[test]
    fn writes_and_reads_go_through_the_pipe_at_their_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.path().join("f"))
            .unwrap();
        let mut e = SpliceEngine::new(&EngineOptions::default());
        e.setup(&[], &[]).unwrap();
        let len = 200_000; // more than one pipe's worth
        let mut data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let mut u = IoUnit {
            buf: data.as_mut_ptr(),
            ..IoUnit::for_test(IoOp::Write, f.as_raw_fd(), 4096, len)
        };
        e.queue(0, &mut u);
        assert_eq!(u.result, len as i64);
        let mut back = vec![0u8; len];
        f.read_exact_at(&mut back, 4096).unwrap();
        assert_eq!(back, data);
        let mut out = vec![0u8; len];
        u.op = IoOp::Read;
        u.buf = out.as_mut_ptr();
        e.queue(0, &mut u);
        assert_eq!(u.result, len as i64);
        assert_eq!(out, data);
        u.offset = 4096 + len as u64 - 10;
        e.queue(0, &mut u);
        assert_eq!(u.result, 10, "short at the end of the file");
    }
}
