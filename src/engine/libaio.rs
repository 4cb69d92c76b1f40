//! `ioengine=libaio`: Linux native AIO through raw system calls (`crate::sys::aio`).
//!
//! `queue` fills the unit's iocb and adds it to the pending batch; `commit` hands
//! the batch to io_submit(2); `reap` takes completions with io_getevents(2), or, with
//! userspace_reap and a non-waiting reap, straight from the kernel's ring. Trims are
//! done synchronously (fio does the same), by punching a hole, as are syncs, each once
//! nothing is queued but unsubmitted (I/Os in flight stay in flight, as in fio). Buffered I/O is
//! accepted but, as with fio, the kernel completes it inside io_submit. With
//! `libaio_vectored=1` (fio 3.39) reads and writes go as PREADV/PWRITEV, each
//! pointing at its unit's one iovec.

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use crate::sys::aio::{self, AioContext, IoEvent, Iocb};
use crate::sys::io as sysio;
use std::io;

pub struct LibaioEngine {
    depth: usize,
    ctx: Option<AioContext>,
    /// One iocb per unit (stable addresses: never reallocated after setup).
    iocbs: Vec<Iocb>,
    /// Pointers to the iocbs of queued, not yet submitted units.
    pending: Vec<*mut Iocb>,
    /// Submitted and not yet reaped.
    in_flight: usize,
    events: Vec<IoEvent>,
    rw_flags: i32,
    /// RWF_ATOMIC on writes with atomic=1 (fio 3.4x).
    write_flags: i32,
    /// Per unit: the priority cmdprio chose for its I/O (0: none, the thread's own).
    ioprio: Vec<u16>,
    userspace_reap: bool,
    /// libaio_vectored: one iovec per unit (stable addresses, as the iocbs), and
    /// reads and writes go as PREADV/PWRITEV pointing at it.
    iovecs: Option<Vec<libc::iovec>>,
    /// iodepth_batch_complete_min=0: never block in io_getevents; spin on
    /// non-blocking reaps until the loop's minimum is met (fio's libaio does this).
    poll: bool,
}

// SAFETY: the raw pointers refer to this engine's own iocbs; the engine and its units
// are used by one thread at a time.
unsafe impl Send for LibaioEngine {}

impl LibaioEngine {
    pub fn new(opts: &EngineOptions) -> LibaioEngine {
        let tuning = &opts.tuning;
        LibaioEngine {
            depth: opts.iodepth.max(1) as usize,
            ctx: None,
            iocbs: Vec::new(),
            pending: Vec::new(),
            in_flight: 0,
            events: Vec::new(),
            rw_flags: if tuning.nowait { libc::RWF_NOWAIT } else { 0 },
            write_flags: if opts.atomic { libc::RWF_ATOMIC } else { 0 },
            ioprio: Vec::new(),
            userspace_reap: tuning.userspace_reap,
            iovecs: tuning.libaio_vectored.then(Vec::new),
            poll: tuning.iodepth_batch_complete_min == 0,
        }
    }
}

impl Drop for LibaioEngine {
    fn drop(&mut self) {
        if let Some(ctx) = self.ctx.take() {
            aio::destroy(ctx);
        }
    }
}

impl IoEngine for LibaioEngine {
    fn setup(&mut self, _fds: &[i32], buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        let depth = self.depth.max(buffers.len()).max(1);
        let ctx = aio::setup(depth as u32).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("io_setup({depth}) failed: {e} (see /proc/sys/fs/aio-max-nr and aio-nr)"),
            )
        })?;
        self.ctx = Some(ctx);
        if self.userspace_reap && !aio::ring_usable(ctx) {
            self.userspace_reap = false;
        }
        self.iocbs = vec![Iocb::default(); depth];
        if let Some(v) = &mut self.iovecs {
            *v = vec![
                libc::iovec {
                    iov_base: std::ptr::null_mut(),
                    iov_len: 0,
                };
                depth
            ];
        }
        self.pending = Vec::with_capacity(depth);
        self.events = vec![IoEvent::default(); depth];
        Ok(())
    }

    fn set_ioprio(&mut self, index: usize, ioprio: u16, chosen: bool) {
        if self.ioprio.len() <= index {
            self.ioprio.resize(index + 1, 0);
        }
        self.ioprio[index] = if chosen { ioprio } else { 0 };
    }

    #[inline]
    fn queue(&mut self, index: usize, u: &mut IoUnit) -> Queued {
        let opcode = match u.op {
            IoOp::Read => aio::IOCB_CMD_PREAD,
            IoOp::Write => aio::IOCB_CMD_PWRITE,
            IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => {
                // Most filesystems reject IOCB_CMD_FSYNC (EINVAL); like fio's libaio, wait
                // until nothing is queued and not yet submitted (I/Os in flight may stay
                // in flight: fio 3.33 checks its unsubmitted count only), then sync
                // synchronously. Waiting for the in-flight ones too emptied the queue
                // before every sync, so the depth map differed from fio's.
                if !self.pending.is_empty() {
                    return Queued::Busy;
                }
                u.result = match u.op {
                    IoOp::SyncFileRange { flags } => {
                        sysio::sync_range(u.fd, u.offset, u.len as u64, flags)
                    }
                    op => sysio::sync(u.fd, op == IoOp::Fdatasync),
                };
                return Queued::Completed;
            }
            IoOp::Trim => {
                // Synchronous too, after what is queued and not yet submitted (fio's).
                if !self.pending.is_empty() {
                    return Queued::Busy;
                }
                u.result = sysio::punch_hole(u.fd, u.offset, u.len);
                return Queued::Completed;
            }
        };
        if self.pending.len() >= self.iocbs.len() {
            return Queued::Busy;
        }
        // libaio_vectored: the same transfer described by the unit's one iovec.
        let (opcode, buf, nbytes) = match &mut self.iovecs {
            None => (opcode, u.buf as u64, u.len as u64),
            Some(v) => {
                v[index] = libc::iovec {
                    iov_base: u.buf.cast(),
                    iov_len: u.len,
                };
                let vectored = match u.op {
                    IoOp::Read => aio::IOCB_CMD_PREADV,
                    _ => aio::IOCB_CMD_PWRITEV,
                };
                (vectored, &v[index] as *const libc::iovec as u64, 1)
            }
        };
        // cmdprio: IOCB_FLAG_IOPRIO only on the I/Os it chose, as fio.
        let prio = self.ioprio.get(index).copied().unwrap_or(0);
        let cb = &mut self.iocbs[index];
        *cb = Iocb {
            aio_reqprio: prio as i16,
            aio_flags: if prio != 0 { aio::IOCB_FLAG_IOPRIO } else { 0 },
            aio_data: index as u64,
            aio_rw_flags: match u.op {
                IoOp::Read => self.rw_flags,
                IoOp::Write => self.rw_flags | self.write_flags,
                _ => 0,
            },
            aio_lio_opcode: opcode,
            aio_fildes: u.fd as u32,
            aio_buf: buf,
            aio_nbytes: nbytes,
            aio_offset: u.offset as i64,
            ..Iocb::default()
        };
        self.pending.push(cb as *mut Iocb);
        Queued::Queued
    }

    fn fio_commit_hook(&self) -> bool {
        true
    }

    fn commit(&mut self) -> io::Result<()> {
        let Some(ctx) = self.ctx else {
            return Err(io::Error::other("libaio: engine used before setup"));
        };
        let mut done = 0;
        while done < self.pending.len() {
            // SAFETY: each pointer is one of our iocbs, filled by `queue` for a unit whose
            // buffer stays valid until its completion is reaped.
            match unsafe { aio::submit(ctx, &mut self.pending[done..]) } {
                Ok(0) => std::thread::yield_now(),
                Ok(n) => {
                    done += n;
                    self.in_flight += n;
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EAGAIN)) => {
                    std::thread::yield_now()
                }
                Err(e) => {
                    self.pending.clear();
                    return Err(e);
                }
            }
        }
        self.pending.clear();
        Ok(())
    }

    fn reap(
        &mut self,
        units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        let Some(ctx) = self.ctx else {
            return Ok(());
        };
        let max = max.clamp(1, self.events.len());
        let min = min.min(max);
        let mut got = 0;
        loop {
            let poll = self.poll || min == 0;
            let n = if self.userspace_reap && poll {
                aio::user_getevents(ctx, &mut self.events[got..max])
            } else {
                let want = if poll { 0 } else { min - got };
                match aio::getevents(ctx, want, &mut self.events[got..max]) {
                    Ok(n) => n,
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => 0,
                    Err(e) => return Err(e),
                }
            };
            for ev in &self.events[got..got + n] {
                let idx = ev.data as usize;
                units[idx].result = ev.res;
                done.push(idx);
            }
            got += n;
            self.in_flight -= n;
            if got >= min {
                return Ok(());
            }
        }
    }
}
