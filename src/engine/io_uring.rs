//! `ioengine=io_uring`, on the `io-uring` crate.
//!
//! `queue` writes one submission entry (user_data = the unit's index; a read's or a
//! write's is built by `uring_sqe`, every other by the crate's builders); `commit`
//! submits everything queued with one io_uring_enter(2) (with GETEVENTS on a ring with
//! deferred task work, as fio's, so the completions ready by then are posted; none
//! with sqthread_poll, unless the poller sleeps); `reap` takes completions from the
//! completion ring and enters the kernel only when it must wait (or poll, with hipri).
//!
//! Options: fixedbufs (buffers registered once: READ_FIXED/WRITE_FIXED),
//! registerfiles (IOSQE_FIXED_FILE), sqthread_poll and sqthread_poll_cpu
//! (IORING_SETUP_SQPOLL), hipri (IORING_SETUP_IOPOLL: polled completions, O_DIRECT
//! only), nonvectored (READ/WRITE instead of READV/WRITEV; -1 picks READ/WRITE when the
//! kernel has them), force_async (IOSQE_ASYNC on every Nth I/O) and nowait
//! (RWF_NOWAIT). Trims are IORING_OP_FALLOCATE hole punches, queued like reads and
//! writes. The ring is created in `setup`, where the kernel is probed for every
//! operation the job needs; a missing one is a clear error, never a silent fallback.
//! As fio 3.33 does, the ring asks for cooperative task running, a single issuer and
//! deferred task work, dropping each where the kernel refuses it: completions are then
//! run by the worker when it asks for them, instead of an io-wq thread waking it for
//! each (that wake-up cost buffered writes two thirds of their IOPS).

use super::uring_sqe::{self, Buffer, ReadWrite};
use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use ferrio_config::ext::EngineTuning;
use io_uring::{opcode, squeue, types, IoUring, Probe};
use std::io;
use std::os::fd::RawFd;

pub struct IoUringEngine {
    depth: u32,
    tuning: EngineTuning,
    hipri: bool,
    direct: bool,
    uses_trim: bool,
    ring: Option<IoUring>,
    /// Per unit: the iovec READV/WRITEV point at (stable: allocated once in setup).
    iovecs: Vec<libc::iovec>,
    nonvectored: bool,
    fixed_files: bool,
    fixed_bufs: bool,
    rw_flags: i32,
    /// RWF_ATOMIC on writes with atomic=1 (fio 3.4x).
    write_flags: i32,
    /// Per unit: the I/O priority its reads and writes carry (cmdprio, prio=);
    /// empty: 0, the kernel's "none" (the submitter's own priority).
    ioprio: Vec<u16>,
    /// I/Os queued since the ring was last told; for force_async.
    issued: u32,
    /// Submission entries written but not yet submitted.
    unsubmitted: usize,
    /// The ring defers completion work (IORING_SETUP_DEFER_TASKRUN): completions reach
    /// the completion ring only when this thread enters the kernel with GETEVENTS.
    deferred: bool,
}

// SAFETY: the iovecs point at the worker's buffers, used by the worker's thread only;
// the ring is owned by this engine.
unsafe impl Send for IoUringEngine {}

/// io_uring_enter(2)'s flag to process completions (the crate keeps its own private).
const IORING_ENTER_GETEVENTS: u32 = 1;

fn err(msg: String) -> io::Error {
    io::Error::other(msg)
}

/// RWF_DONTCACHE (Linux 6.14): buffered I/O that drops its pages once done. fio 3.33
/// sends 0x40 for uncached=1, which is RWF_ATOMIC on today's kernels (docs/engines.md).
pub const RWF_DONTCACHE: i32 = 0x80;

/// The rw_flags of every read and write: nowait, and uncached on buffered I/O.
fn rw_flags(nowait: bool, uncached: bool) -> i32 {
    let mut f = if nowait { libc::RWF_NOWAIT } else { 0 };
    if uncached {
        f |= RWF_DONTCACHE;
    }
    f
}

impl IoUringEngine {
    pub fn new(opts: &EngineOptions) -> IoUringEngine {
        let tuning = opts.tuning.clone();
        IoUringEngine {
            depth: opts.iodepth.max(1),
            hipri: opts.hipri,
            direct: opts.direct,
            uses_trim: opts.directions[2],
            rw_flags: rw_flags(tuning.nowait, opts.uncached && !opts.direct),
            write_flags: if opts.atomic { libc::RWF_ATOMIC } else { 0 },
            ioprio: Vec::new(),
            tuning,
            ring: None,
            iovecs: Vec::new(),
            nonvectored: false,
            fixed_files: false,
            fixed_bufs: false,
            issued: 0,
            unsubmitted: 0,
            deferred: false,
        }
    }

    /// The ring with the cheapest completion delivery the kernel accepts, as fio 3.33
    /// does: cooperative task running (no IPI to interrupt the worker), one issuer and
    /// deferred task work (completions run when the worker asks for them, not in an
    /// io-wq thread's wake-up of the worker). Each is dropped in turn where the kernel
    /// rejects it (EINVAL: older than 6.1 / 5.19, or with sqthread_poll). Returns the
    /// ring and whether completions are deferred.
    fn build_ring(&self, entries: u32) -> io::Result<(IoUring, bool)> {
        let mut last = None;
        for level in [2u8, 1, 0] {
            match self.build_ring_with(entries, level) {
                Ok(ring) => return Ok((ring, level == 2)),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) && level > 0 => last = Some(e),
                Err(e) => return Err(self.setup_error(entries, e)),
            }
        }
        Err(self.setup_error(
            entries,
            last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EINVAL)),
        ))
    }

    /// `level`: 2 = cooperative + single issuer + deferred task work, 1 = cooperative,
    /// 0 = none of them.
    fn build_ring_with(&self, entries: u32, level: u8) -> io::Result<IoUring> {
        let mut b = IoUring::builder();
        if level >= 1 {
            b.setup_coop_taskrun();
        }
        if level >= 2 {
            b.setup_single_issuer();
            b.setup_defer_taskrun();
        }
        // Depths beyond the kernel's ring limit get the largest ring it allows; the
        // loop then sees Busy when the ring is full, as fio does.
        b.setup_clamp();
        b.setup_cqsize(entries * 2);
        if self.tuning.sqthread_poll {
            b.setup_sqpoll(1000);
            if let Some(cpu) = self.tuning.sqthread_poll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        if self.hipri {
            b.setup_iopoll();
        }
        b.build(entries)
    }

    fn setup_error(&self, entries: u32, e: io::Error) -> io::Error {
        {
            let why = match e.raw_os_error() {
                Some(libc::ENOSYS) => " (this kernel has no io_uring)".to_string(),
                Some(libc::EPERM) => {
                    let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
                        .map(|s| s.trim().to_string())
                        .unwrap_or_default();
                    if self.tuning.sqthread_poll {
                        " (sqthread_poll may need privileges on this kernel)".to_string()
                    } else {
                        format!(" (kernel.io_uring_disabled = {disabled})")
                    }
                }
                Some(libc::EINVAL) if self.tuning.sqthread_poll || self.hipri => {
                    " (the kernel rejected sqthread_poll/hipri settings)".to_string()
                }
                _ => String::new(),
            };
            err(format!("io_uring_setup({entries}) failed: {e}{why}"))
        }
    }
}

impl IoEngine for IoUringEngine {
    fn setup(&mut self, fds: &[RawFd], buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        if self.hipri && !self.direct {
            return Err(err(
                "io_uring hipri (polled completions) needs direct=1: the page cache cannot be polled"
                    .into(),
            ));
        }
        let entries = self
            .depth
            .max(buffers.len() as u32)
            .max(1)
            .next_power_of_two();
        let (ring, deferred) = self.build_ring(entries)?;
        self.deferred = deferred;
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let mut probe = Probe::new();
        let probed = ring.submitter().register_probe(&mut probe).is_ok();
        let has = |code: u8| probed && probe.is_supported(code);
        let need = |code: u8, what: &str| -> io::Result<()> {
            // Without the probe (kernels before 5.6) only the 5.1 operations are known to exist.
            let known_old = matches!(
                code,
                opcode::Readv::CODE
                    | opcode::Writev::CODE
                    | opcode::ReadFixed::CODE
                    | opcode::WriteFixed::CODE
                    | opcode::Fsync::CODE
            );
            if has(code) || (!probed && known_old) {
                Ok(())
            } else {
                Err(err(format!(
                    "kernel {kernel} lacks {what}, which this job needs"
                )))
            }
        };
        self.fixed_bufs = self.tuning.fixedbufs;
        self.nonvectored = match self.tuning.nonvectored {
            1 => true,
            0 => false,
            _ => has(opcode::Read::CODE) && has(opcode::Write::CODE),
        };
        if self.fixed_bufs {
            need(opcode::ReadFixed::CODE, "IORING_OP_READ_FIXED (fixedbufs)")?;
            need(
                opcode::WriteFixed::CODE,
                "IORING_OP_WRITE_FIXED (fixedbufs)",
            )?;
        } else if self.nonvectored {
            need(opcode::Read::CODE, "IORING_OP_READ (nonvectored=1)")?;
            need(opcode::Write::CODE, "IORING_OP_WRITE (nonvectored=1)")?;
        } else {
            need(opcode::Readv::CODE, "IORING_OP_READV")?;
            need(opcode::Writev::CODE, "IORING_OP_WRITEV")?;
        }
        if self.uses_trim {
            need(opcode::Fallocate::CODE, "IORING_OP_FALLOCATE (trims)")?;
        }
        self.fixed_files = self.tuning.registerfiles
            || (self.tuning.sqthread_poll && !ring.params().is_feature_sqpoll_nonfixed());
        if self.fixed_files && !fds.is_empty() {
            ring.submitter().register_files(fds).map_err(|e| {
                err(format!(
                    "io_uring: registering {} files failed: {e}",
                    fds.len()
                ))
            })?;
        }
        self.iovecs = buffers
            .iter()
            .map(|&(p, l)| libc::iovec {
                iov_base: p.cast(),
                iov_len: l,
            })
            .collect();
        if self.fixed_bufs {
            // SAFETY: the buffers stay allocated and unmoved for the engine's lifetime (the
            // worker drops its engine before its buffers); the ring is dropped with the engine.
            unsafe { ring.submitter().register_buffers(&self.iovecs) }.map_err(|e| {
                let hint = if e.raw_os_error() == Some(libc::ENOMEM) {
                    " (RLIMIT_MEMLOCK too low for the buffers?)"
                } else {
                    ""
                };
                err(format!(
                    "io_uring: registering buffers (fixedbufs) failed: {e}{hint}"
                ))
            })?;
        }
        self.ring = Some(ring);
        Ok(())
    }

    #[inline]
    fn set_ioprio(&mut self, index: usize, ioprio: u16, _chosen: bool) {
        // fio sets sqe->ioprio on every read and write: the submission may run in
        // the kernel's poller thread, which has no ioprio_set of its own.
        if self.ioprio.len() <= index {
            self.ioprio.resize(index + 1, 0);
        }
        self.ioprio[index] = ioprio;
    }

    fn queue(&mut self, index: usize, u: &mut IoUnit) -> Queued {
        let Some(ring) = self.ring.as_mut() else {
            u.result = -(libc::EBADFD as i64);
            return Queued::Completed;
        };
        macro_rules! with_fd {
            ($build:expr) => {
                if self.fixed_files {
                    let fd = types::Fixed(u.file as u32);
                    $build(fd)
                } else {
                    let fd = types::Fd(u.fd);
                    $build(fd)
                }
            };
        }
        let off = u.offset;
        let len = u.len as u32;
        let flags = self.rw_flags
            | if u.op == IoOp::Write {
                self.write_flags
            } else {
                0
            };
        let prio = self.ioprio.get(index).copied().unwrap_or(0);
        let entry = match u.op {
            IoOp::Read | IoOp::Write => {
                let buffer = if self.fixed_bufs {
                    Buffer::Fixed(index as u16)
                } else if self.nonvectored {
                    Buffer::Plain
                } else {
                    Buffer::Vectored
                };
                let addr = if buffer == Buffer::Vectored {
                    let iov = &mut self.iovecs[index];
                    iov.iov_base = u.buf.cast();
                    iov.iov_len = u.len;
                    iov as *const libc::iovec as u64
                } else {
                    u.buf as u64
                };
                let fd = if self.fixed_files {
                    u.file as i32
                } else {
                    u.fd
                };
                uring_sqe::read_write(ReadWrite {
                    write: u.op == IoOp::Write,
                    buffer,
                    fd,
                    fixed_file: self.fixed_files,
                    addr,
                    len,
                    off,
                    rw_flags: flags,
                    ioprio: prio,
                })
            }
            IoOp::Trim => with_fd!(|fd| opcode::Fallocate::new(fd, u.len as u64)
                .offset(off)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build()),
            IoOp::Fsync => with_fd!(|fd| opcode::Fsync::new(fd).build()),
            IoOp::Fdatasync => with_fd!(|fd| opcode::Fsync::new(fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build()),
            // the range as fio sends it (a 32-bit length)
            IoOp::SyncFileRange { flags } => {
                with_fd!(|fd| opcode::SyncFileRange::new(fd, u.len as u32)
                    .offset(off)
                    .flags(flags)
                    .build())
            }
        };
        let mut entry = entry.user_data(index as u64);
        if self.tuning.force_async > 0 {
            self.issued += 1;
            if self.issued >= self.tuning.force_async {
                self.issued = 0;
                entry = entry.flags(squeue::Flags::ASYNC);
            }
        }
        // SAFETY: the entry points at the unit's buffer (and iovec), which stay valid and
        // untouched until the unit's completion is reaped.
        match unsafe { ring.submission().push(&entry) } {
            Ok(()) => {
                self.unsubmitted += 1;
                Queued::Queued
            }
            Err(_) => Queued::Busy,
        }
    }

    fn fio_commit_hook(&self) -> bool {
        true
    }

    fn commit(&mut self) -> io::Result<()> {
        let Some(ring) = self.ring.as_mut() else {
            return Ok(());
        };
        let deferred = self.deferred;
        while self.unsubmitted > 0 {
            // With deferred task work, submit with GETEVENTS as fio does: the kernel then
            // posts the completions that are ready (a cached buffered read completes in
            // the submit), so the next reap sees them without entering again, and the
            // completions fio sees at each reap (and with openfiles < nrfiles, its
            // order of opens and closes) are the same.
            let submitted = if deferred {
                let to_submit = ring.submission().len() as u32;
                // SAFETY: a plain io_uring_enter on this ring's own fd, with no argument
                // pointer; the queued entries were pushed with valid buffers (see queue).
                unsafe {
                    ring.submitter().enter::<libc::sigset_t>(
                        to_submit,
                        0,
                        IORING_ENTER_GETEVENTS,
                        None,
                    )
                }
            } else {
                ring.submit()
            };
            match submitted {
                Ok(n) => {
                    self.unsubmitted = self.unsubmitted.saturating_sub(n);
                    if n == 0 {
                        std::thread::yield_now();
                    }
                }
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)
                    ) =>
                {
                    std::thread::yield_now()
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn reap(
        &mut self,
        units: &mut [IoUnit],
        min: usize,
        max: usize,
        done: &mut Vec<usize>,
    ) -> io::Result<()> {
        let Some(ring) = self.ring.as_mut() else {
            return Ok(());
        };
        let max = max.max(1);
        let min = min.min(max);
        let mut got = 0;
        let mut entered = false;
        loop {
            {
                let cq = ring.completion();
                for cqe in cq.take(max - got) {
                    let idx = cqe.user_data() as usize;
                    let u = &mut units[idx];
                    let res = cqe.result() as i64;
                    // A hole punch returns 0 on success; count it as the trimmed length.
                    u.result = if u.op == IoOp::Trim && res == 0 {
                        u.len as i64
                    } else {
                        res
                    };
                    done.push(idx);
                    got += 1;
                }
            }
            // Polled rings (hipri) complete only when asked, and a ring with deferred task
            // work posts completions only when asked: ask once even for min = 0.
            if got >= min && (got > 0 || entered || !(self.hipri || self.deferred)) {
                return Ok(());
            }
            entered = true;
            let want = min.saturating_sub(got);
            let entered_kernel = if want == 0 && self.deferred {
                // submit_and_wait(0) would enter without GETEVENTS, which leaves deferred
                // completions unposted.
                let to_submit = ring.submission().len() as u32;
                // SAFETY: a plain io_uring_enter on this ring's own fd, with no argument
                // pointer; the queued entries were pushed with valid buffers (see queue).
                unsafe {
                    ring.submitter().enter::<libc::sigset_t>(
                        to_submit,
                        0,
                        IORING_ENTER_GETEVENTS,
                        None,
                    )
                }
            } else {
                ring.submit_and_wait(want)
            };
            match entered_kernel {
                Ok(n) => self.unsubmitted = self.unsubmitted.saturating_sub(n),
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EBUSY)) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// A loop that only ever reaps with min = 0 (iodepth_batch_complete_min=0) must
    /// still see its completions on a ring with deferred task work, where they are
    /// posted only when the worker enters the kernel asking for them.
    #[test]
    fn a_zero_minimum_reap_posts_deferred_completions() {
        let file = tempfile::tempfile().unwrap();
        let mut buf = vec![7u8; 4096];
        let mut e = IoUringEngine::new(&EngineOptions {
            iodepth: 4,
            directions: [false, true, false],
            ..Default::default()
        });
        if let Err(err) = e.setup(&[file.as_raw_fd()], &[(buf.as_mut_ptr(), buf.len())]) {
            // A sandbox may forbid io_uring: say so rather than pass silently, and fail
            // under CI, where it must run.
            assert!(
                std::env::var_os("CI").is_none(),
                "io_uring unavailable: {err}"
            );
            eprintln!("SKIP: io_uring unavailable here: {err}");
            return;
        }
        let mut units = vec![IoUnit {
            buf: buf.as_mut_ptr(),
            ..IoUnit::for_test(IoOp::Write, file.as_raw_fd(), 0, 4096)
        }];
        let mut unit = units.pop().unwrap();
        assert_eq!(e.queue(0, &mut unit), Queued::Queued);
        units.push(unit);
        e.commit().unwrap();
        let mut done = Vec::new();
        for _ in 0..10_000 {
            e.reap(&mut units, 0, 4, &mut done).unwrap();
            if !done.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        assert_eq!(done, vec![0], "the write's completion never arrived");
        assert_eq!(units[0].result, 4096);
    }
    /// fio's io_uring engine submits with GETEVENTS, which posts the completions that
    /// deferred task work holds; its reaps (and with openfiles < nrfiles, its order of
    /// opens and closes) see them one reap earlier than a plain submit would. A read
    /// of an empty pipe completes asynchronously: once the pipe has data, the next
    /// commit must leave its completion in the ring without another enter.
    #[test]
    fn a_commit_posts_completions_that_deferred_task_work_holds() {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) writes two descriptors into the array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let file = tempfile::tempfile().unwrap();
        let mut rbuf = vec![0u8; 8];
        let mut wbuf = vec![7u8; 4096];
        let mut e = IoUringEngine::new(&EngineOptions {
            iodepth: 4,
            directions: [true, true, false],
            ..Default::default()
        });
        let bufs = [(rbuf.as_mut_ptr(), 8), (wbuf.as_mut_ptr(), 4096)];
        let set_up = e.setup(&[fds[0], file.as_raw_fd()], &bufs);
        if let Err(err) = &set_up {
            assert!(
                std::env::var_os("CI").is_none(),
                "io_uring unavailable: {err}"
            );
        }
        if set_up.is_err() || !e.deferred {
            // SAFETY: closing the pipe this test opened.
            unsafe { (libc::close(fds[0]), libc::close(fds[1])) };
            eprintln!("SKIP: no io_uring with deferred task work here");
            return;
        }
        let mut units = [
            IoUnit {
                buf: rbuf.as_mut_ptr(),
                ..IoUnit::for_test(IoOp::Read, fds[0], 0, 8)
            },
            IoUnit {
                buf: wbuf.as_mut_ptr(),
                ..IoUnit::for_test(IoOp::Write, file.as_raw_fd(), 0, 4096)
            },
        ];
        assert_eq!(e.queue(0, &mut units[0]), Queued::Queued);
        e.commit().unwrap();
        // The read waits for data; writing it queues the read's completion as task
        // work on this thread, to run when it next enters with GETEVENTS.
        // SAFETY: writing 8 bytes from a live buffer into the pipe this test opened.
        assert_eq!(unsafe { libc::write(fds[1], wbuf.as_ptr().cast(), 8) }, 8);
        assert_eq!(e.queue(1, &mut units[1]), Queued::Queued);
        e.commit().unwrap();
        let posted: Vec<u64> = e
            .ring
            .as_mut()
            .unwrap()
            .completion()
            .map(|c| c.user_data())
            .collect();
        // SAFETY: closing the pipe this test opened.
        unsafe { (libc::close(fds[0]), libc::close(fds[1])) };
        assert!(
            posted.contains(&0),
            "the pipe read's completion was not posted by the commit: {posted:?}"
        );
    }
}
