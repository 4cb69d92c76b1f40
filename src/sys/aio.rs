//! Linux native AIO through raw system calls (no libaio library): io_setup,
//! io_submit, io_getevents, io_destroy, and reading completions straight from the
//! AIO ring the kernel maps into the process (fio's userspace_reap).

use std::io;
use std::sync::atomic::{fence, AtomicU32, Ordering};

/// `aio_context_t`: the kernel hands back the address of the completion ring.
pub type AioContext = libc::c_ulong;

pub const IOCB_CMD_PREAD: u16 = 0;
pub const IOCB_CMD_PWRITE: u16 = 1;
pub const IOCB_CMD_FSYNC: u16 = 2;
pub const IOCB_CMD_FDSYNC: u16 = 3;
pub const IOCB_CMD_PREADV: u16 = 7;
pub const IOCB_CMD_PWRITEV: u16 = 8;
/// `aio_flags`: `aio_reqprio` holds the I/O's priority (linux/aio_abi.h).
pub const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct iocb` (linux/aio_abi.h), little-endian layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Iocb {
    pub aio_data: u64,
    pub aio_key: u32,
    pub aio_rw_flags: i32,
    pub aio_lio_opcode: u16,
    pub aio_reqprio: i16,
    pub aio_fildes: u32,
    pub aio_buf: u64,
    pub aio_nbytes: u64,
    pub aio_offset: i64,
    pub aio_reserved2: u64,
    pub aio_flags: u32,
    pub aio_resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IoEvent {
    pub data: u64,
    pub obj: u64,
    pub res: i64,
    pub res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

/// Header of the completion ring at the context's address (fs/aio.c `struct aio_ring`).
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    head: AtomicU32,
    tail: AtomicU32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

fn check(r: libc::c_long) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// io_setup(2): a context for `nr` in-flight requests.
pub fn setup(nr: u32) -> io::Result<AioContext> {
    let mut ctx: AioContext = 0;
    // SAFETY: io_setup writes one aio_context_t into `ctx`, which must start at 0.
    check(unsafe { libc::syscall(libc::SYS_io_setup, nr as libc::c_long, &mut ctx) })?;
    Ok(ctx)
}

/// io_destroy(2). Waits for (or cancels) outstanding requests.
pub fn destroy(ctx: AioContext) {
    // SAFETY: ctx came from io_setup and is destroyed once by its owner.
    unsafe {
        libc::syscall(libc::SYS_io_destroy, ctx);
    }
}

/// io_submit(2); returns how many of `iocbs` the kernel accepted.
///
/// # Safety
/// Every pointer in `iocbs` must point at a valid `Iocb` whose buffer stays valid and
/// unmoved until its completion is reaped.
pub unsafe fn submit(ctx: AioContext, iocbs: &mut [*mut Iocb]) -> io::Result<usize> {
    check(libc::syscall(
        libc::SYS_io_submit,
        ctx,
        iocbs.len() as libc::c_long,
        iocbs.as_mut_ptr(),
    ))
}

/// io_getevents(2): wait for at least `min` completions (none with `min == 0`), take at
/// most `events.len()`.
pub fn getevents(ctx: AioContext, min: usize, events: &mut [IoEvent]) -> io::Result<usize> {
    let zero = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let timeout: *const libc::timespec = if min == 0 { &zero } else { std::ptr::null() };
    // SAFETY: the kernel writes at most events.len() io_events into the slice.
    check(unsafe {
        libc::syscall(
            libc::SYS_io_getevents,
            ctx,
            min as libc::c_long,
            events.len() as libc::c_long,
            events.as_mut_ptr(),
            timeout,
        )
    })
}

/// Whether the context's completion ring can be read from user space.
pub fn ring_usable(ctx: AioContext) -> bool {
    // SAFETY: a context returned by io_setup is the address of the mapped ring header.
    let ring = unsafe { &*(ctx as *const AioRing) };
    ring.magic == AIO_RING_MAGIC && ring.incompat_features == 0
}

/// Take up to `events.len()` completions from the ring without a system call (the
/// context must be `ring_usable`).
pub fn user_getevents(ctx: AioContext, events: &mut [IoEvent]) -> usize {
    // SAFETY: the ring header is mapped for the context's lifetime; the kernel writes
    // `tail` and the events, we write `head` (single consumer: this thread).
    let ring = unsafe { &*(ctx as *const AioRing) };
    let nr = ring.nr;
    let mut head = ring.head.load(Ordering::Relaxed);
    let tail = ring.tail.load(Ordering::Acquire);
    let mut n = 0;
    let base = (ctx as usize + std::mem::size_of::<AioRing>()) as *const IoEvent;
    while head != tail && n < events.len() {
        // SAFETY: head < nr indexes the event array that follows the header.
        events[n] = unsafe { std::ptr::read_volatile(base.add(head as usize)) };
        n += 1;
        head += 1;
        if head == nr {
            head = 0;
        }
    }
    if n > 0 {
        fence(Ordering::Release);
        ring.head.store(head, Ordering::Release);
    }
    n
}
