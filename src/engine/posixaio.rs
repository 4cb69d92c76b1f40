//! `ioengine=posixaio`: POSIX asynchronous I/O (aio_read/aio_write/aio_fsync, reaped
//! with aio_error/aio_return and aio_suspend), as fio's engine of the same name does.
//! On Linux, glibc runs these requests on its own helper threads, so this engine
//! measures glibc's AIO emulation; `io_uring` and `libaio` are the kernel's interfaces.
//! Trims are done synchronously (a hole punch).

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use crate::sys::io as sysio;
use std::io;
use std::os::fd::RawFd;

pub struct PosixAioEngine {
    /// One control block per unit (stable: allocated once in setup).
    cbs: Vec<libc::aiocb>,
    /// Units submitted and not yet reaped.
    inflight: Vec<usize>,
    /// Scratch list for aio_suspend.
    list: Vec<*const libc::aiocb>,
    depth: usize,
}

// SAFETY: the control blocks point at the worker's buffers and are used by the
// worker's thread only.
unsafe impl Send for PosixAioEngine {}

impl PosixAioEngine {
    pub fn new(opts: &EngineOptions) -> PosixAioEngine {
        PosixAioEngine {
            cbs: Vec::new(),
            inflight: Vec::new(),
            list: Vec::new(),
            depth: opts.iodepth.max(1) as usize,
        }
    }
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

impl Drop for PosixAioEngine {
    fn drop(&mut self) {
        // Requests still running use our control blocks and the worker's buffers:
        // cancel them and wait until none is in progress.
        for &idx in &self.inflight {
            let cb: *mut libc::aiocb = &mut self.cbs[idx];
            // SAFETY: cb is one of our submitted control blocks.
            unsafe { libc::aio_cancel(self.cbs[idx].aio_fildes, cb) };
        }
        for &idx in &self.inflight {
            let cb: *const libc::aiocb = &self.cbs[idx];
            // SAFETY: waiting on our own control block.
            while unsafe { libc::aio_error(cb) } == libc::EINPROGRESS {
                let list = [cb];
                unsafe { libc::aio_suspend(list.as_ptr(), 1, std::ptr::null()) };
            }
        }
    }
}

impl IoEngine for PosixAioEngine {
    fn setup(&mut self, _fds: &[RawFd], buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        let n = self.depth.max(buffers.len()).max(1);
        // SAFETY: aiocb is a plain C struct; all-zero is its documented initial state.
        self.cbs = (0..n).map(|_| unsafe { std::mem::zeroed() }).collect();
        self.inflight = Vec::with_capacity(n);
        self.list = Vec::with_capacity(n);
        Ok(())
    }

    fn queue(&mut self, index: usize, u: &mut IoUnit) -> Queued {
        if u.op == IoOp::Trim {
            u.result = sysio::punch_hole(u.fd, u.offset, u.len);
            return Queued::Completed;
        }
        let cb = &mut self.cbs[index];
        // SAFETY: as in setup; the previous request on this block has been reaped.
        *cb = unsafe { std::mem::zeroed() };
        cb.aio_fildes = u.fd;
        cb.aio_buf = u.buf.cast();
        cb.aio_nbytes = u.len;
        cb.aio_offset = u.offset as libc::off_t;
        cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: the control block and the unit's buffer stay valid and untouched until
        // the request is reaped (or cancelled and waited for in Drop).
        let r = unsafe {
            match u.op {
                IoOp::Read => libc::aio_read(cb),
                IoOp::Write => libc::aio_write(cb),
                // fio's posixaio sends sync_file_range as aio_fsync(O_SYNC) too
                IoOp::Fsync | IoOp::SyncFileRange { .. } => libc::aio_fsync(libc::O_SYNC, cb),
                IoOp::Fdatasync => libc::aio_fsync(libc::O_DSYNC, cb),
                IoOp::Trim => unreachable!(),
            }
        };
        if r != 0 {
            let e = errno();
            if e == libc::EAGAIN && !self.inflight.is_empty() {
                return Queued::Busy;
            }
            u.result = -(e as i64);
            return Queued::Completed;
        }
        self.inflight.push(index);
        Queued::Queued
    }

    fn reap(
        &mut self,
        units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        let max = max.max(1);
        let min = min.min(max);
        let mut got = 0;
        loop {
            let mut i = 0;
            while i < self.inflight.len() && got < max {
                let idx = self.inflight[i];
                let cb: *mut libc::aiocb = &mut self.cbs[idx];
                // SAFETY: cb is a submitted control block of ours.
                let e = unsafe { libc::aio_error(cb) };
                if e == libc::EINPROGRESS {
                    i += 1;
                    continue;
                }
                // SAFETY: the request is done; aio_return is called once for it.
                let r = unsafe { libc::aio_return(cb) };
                units[idx].result = if r < 0 { -(e.max(1) as i64) } else { r as i64 };
                done.push(idx);
                self.inflight.swap_remove(i);
                got += 1;
            }
            if got >= min || self.inflight.is_empty() {
                return Ok(());
            }
            self.list.clear();
            self.list.extend(
                self.inflight
                    .iter()
                    .map(|&i| &self.cbs[i] as *const libc::aiocb),
            );
            // SAFETY: every pointer is a submitted control block of ours.
            let r = unsafe {
                libc::aio_suspend(self.list.as_ptr(), self.list.len() as i32, std::ptr::null())
            };
            if r != 0 {
                let e = errno();
                if e != libc::EINTR && e != libc::EAGAIN {
                    return Err(io::Error::from_raw_os_error(e));
                }
            }
        }
    }
}
