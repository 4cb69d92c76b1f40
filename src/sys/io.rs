//! Data-path system calls. Each returns bytes transferred (>= 0) or `-errno`, the
//! convention the engines store in `IoUnit::result`.

use std::os::fd::RawFd;

#[inline]
fn ret(r: isize) -> i64 {
    if r < 0 {
        -(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        r as i64
    }
}

/// pread(2) into `buf[..len]`.
#[inline]
pub fn pread(fd: RawFd, buf: *mut u8, len: usize, offset: u64) -> i64 {
    // SAFETY: the caller's buffer holds at least `len` writable bytes (IoUnit contract).
    ret(unsafe { libc::pread(fd, buf.cast(), len, offset as libc::off_t) })
}

/// pwrite(2) from `buf[..len]`.
#[inline]
pub fn pwrite(fd: RawFd, buf: *const u8, len: usize, offset: u64) -> i64 {
    // SAFETY: the caller's buffer holds at least `len` readable bytes (IoUnit contract).
    ret(unsafe { libc::pwrite(fd, buf.cast(), len, offset as libc::off_t) })
}

/// lseek(2) to `offset`, then read(2) or write(2).
#[inline]
pub fn seek_rw(fd: RawFd, buf: *mut u8, len: usize, offset: u64, write: bool) -> i64 {
    // SAFETY: lseek only moves the file position of a descriptor we own.
    let r = unsafe { libc::lseek(fd, offset as libc::off_t, libc::SEEK_SET) };
    if r < 0 {
        return ret(-1);
    }
    if write {
        // SAFETY: buffer holds `len` readable bytes.
        ret(unsafe { libc::write(fd, buf.cast(), len) })
    } else {
        // SAFETY: buffer holds `len` writable bytes.
        ret(unsafe { libc::read(fd, buf.cast(), len) })
    }
}

/// Vectored I/O with one iovec: readv/writev after lseek (positioned = false),
/// preadv/pwritev (positioned = true, flags = None) or preadv2/pwritev2 (flags = Some).
#[inline]
pub fn vectored(
    fd: RawFd,
    buf: *mut u8,
    len: usize,
    offset: u64,
    write: bool,
    positioned: bool,
    flags: Option<i32>,
) -> i64 {
    let iov = libc::iovec {
        iov_base: buf.cast(),
        iov_len: len,
    };
    let off = offset as libc::off_t;
    // SAFETY: `iov` points at a buffer of `len` bytes valid for the whole call; the
    // kernel reads or writes only within it. lseek only moves our descriptor's position.
    let r = unsafe {
        match (positioned, flags, write) {
            (false, _, w) => {
                if libc::lseek(fd, off, libc::SEEK_SET) < 0 {
                    -1
                } else if w {
                    libc::writev(fd, &iov, 1)
                } else {
                    libc::readv(fd, &iov, 1)
                }
            }
            (true, None, true) => libc::pwritev(fd, &iov, 1, off),
            (true, None, false) => libc::preadv(fd, &iov, 1, off),
            (true, Some(f), true) => libc::pwritev2(fd, &iov, 1, off, f),
            (true, Some(f), false) => libc::preadv2(fd, &iov, 1, off, f),
        }
    };
    ret(r)
}

/// Trim a range of a regular file by punching a hole (what fio does for files);
/// returns `len` on success.
pub fn punch_hole(fd: RawFd, offset: u64, len: usize) -> i64 {
    // SAFETY: fallocate takes only integers and our descriptor.
    let r = unsafe {
        libc::fallocate(
            fd,
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset as libc::off_t,
            len as libc::off_t,
        )
    };
    if r < 0 {
        ret(-1)
    } else {
        len as i64
    }
}

/// fsync(2) (data_only = false) or fdatasync(2); returns 0 or -errno.
pub fn sync(fd: RawFd, data_only: bool) -> i64 {
    // SAFETY: only our descriptor is passed.
    let r = unsafe {
        if data_only {
            libc::fdatasync(fd)
        } else {
            libc::fsync(fd)
        }
    };
    if r < 0 {
        ret(-1)
    } else {
        0
    }
}

/// syncfs(2) of the file system holding `fd`; returns 0 or -errno.
pub fn syncfs(fd: RawFd) -> i64 {
    // SAFETY: only our descriptor is passed; no memory is shared with the kernel.
    let r = unsafe { libc::syncfs(fd) };
    if r < 0 {
        ret(-1)
    } else {
        0
    }
}

/// sync_file_range(2) of `len` bytes at `offset` with SYNC_FILE_RANGE_* `flags`;
/// returns 0 or -errno. An empty range makes no call (the kernel would read it as
/// "to the end of the file"), as fio does.
pub fn sync_range(fd: RawFd, offset: u64, len: u64, flags: u32) -> i64 {
    if len == 0 {
        return 0;
    }
    // SAFETY: only our descriptor is passed; no memory is shared with the kernel.
    let r = unsafe { libc::sync_file_range(fd, offset as i64, len as i64, flags) };
    if r < 0 {
        ret(-1)
    } else {
        0
    }
}
