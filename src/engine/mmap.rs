//! `ioengine=mmap`: each file is mapped once (MAP_SHARED, or MAP_PRIVATE with thp=1) and I/O is a memcpy to or
//! from the mapping. A synchronous engine: every `queue` completes. Reads past the end
//! of the file are short, as read(2) would be; a write past the end first extends the
//! file and the mapping. Trims punch a hole; fsync / fdatasync are msync(MS_SYNC).

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use crate::sys::io as sysio;
use std::io;
use std::os::fd::RawFd;

struct Mapping {
    fd: RawFd,
    addr: *mut u8,
    len: usize,
}

pub struct MmapEngine {
    writable: bool,
    /// thp=1: MAP_PRIVATE (writes never reach the file, as in fio) + MADV_HUGEPAGE.
    thp: bool,
    maps: Vec<Mapping>,
}

// SAFETY: the mappings are owned by this engine and used by one thread at a time.
unsafe impl Send for MmapEngine {}

impl MmapEngine {
    pub fn new(opts: &EngineOptions) -> MmapEngine {
        MmapEngine {
            // Shared and writable for any job that writes or trims.
            writable: opts.directions[1] || opts.directions[2],
            thp: opts.tuning.thp,
            maps: Vec::new(),
        }
    }

    /// (Re)map file `i` to cover its current size.
    fn remap(&mut self, i: usize) -> i64 {
        let m = &mut self.maps[i];
        // SAFETY: fstat writes one struct stat we own.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(m.fd, &mut st) } != 0 {
            return -(io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64);
        }
        let want = st.st_size as usize;
        if !m.addr.is_null() {
            // SAFETY: addr/len is a mapping we created and nothing borrows it across calls.
            unsafe { libc::munmap(m.addr.cast(), m.len) };
            m.addr = std::ptr::null_mut();
            m.len = 0;
        }
        if want == 0 {
            return 0;
        }
        let prot = if self.writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        let share = if self.thp {
            libc::MAP_PRIVATE
        } else {
            libc::MAP_SHARED
        };
        // SAFETY: a fresh mapping of our descriptor; the kernel picks the address.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), want, prot, share, m.fd, 0) };
        if p == libc::MAP_FAILED {
            return -(io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64);
        }
        if self.thp {
            // An advice, as in fio: its failure (no THP in this kernel) is ignored.
            // SAFETY: p/want is the mapping just created.
            unsafe { libc::madvise(p, want, libc::MADV_HUGEPAGE) };
        }
        m.addr = p.cast();
        m.len = want;
        0
    }

    fn file_index(&self, u: &IoUnit) -> Option<usize> {
        if u.file < self.maps.len() && self.maps[u.file].fd == u.fd {
            Some(u.file)
        } else {
            self.maps.iter().position(|m| m.fd == u.fd)
        }
    }
}

impl Drop for MmapEngine {
    fn drop(&mut self) {
        for m in &self.maps {
            if !m.addr.is_null() {
                // SAFETY: unmapping our own mapping once.
                unsafe { libc::munmap(m.addr.cast(), m.len) };
            }
        }
    }
}

impl IoEngine for MmapEngine {
    fn setup(&mut self, fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        self.maps = fds
            .iter()
            .map(|&fd| Mapping {
                fd,
                addr: std::ptr::null_mut(),
                len: 0,
            })
            .collect();
        for i in 0..self.maps.len() {
            // (A file not open yet (openfiles) is mapped when it is opened.)
            let r = if self.maps[i].fd >= 0 {
                self.remap(i)
            } else {
                0
            };
            if r < 0 {
                return Err(io::Error::from_raw_os_error(-r as i32));
            }
        }
        Ok(())
    }

    fn file_changed(&mut self, file: usize, fd: RawFd) -> io::Result<()> {
        let Some(m) = self.maps.get_mut(file) else {
            return Ok(());
        };
        if !m.addr.is_null() {
            // SAFETY: addr/len is a mapping we created; no I/O uses it any more.
            unsafe { libc::munmap(m.addr.cast(), m.len) };
            m.addr = std::ptr::null_mut();
            m.len = 0;
        }
        m.fd = fd;
        if fd < 0 {
            return Ok(());
        }
        match self.remap(file) {
            r if r < 0 => Err(io::Error::from_raw_os_error(-r as i32)),
            _ => Ok(()),
        }
    }

    #[inline]
    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        let Some(i) = self.file_index(u) else {
            u.result = -(libc::EBADF as i64);
            return Queued::Completed;
        };
        let off = u.offset as usize;
        let end = off + u.len;
        u.result = match u.op {
            IoOp::Read => {
                if end > self.maps[i].len {
                    let r = self.remap(i);
                    if r < 0 {
                        u.result = r;
                        return Queued::Completed;
                    }
                }
                let m = &self.maps[i];
                let n = m.len.saturating_sub(off).min(u.len);
                if n > 0 {
                    // SAFETY: [off, off+n) lies inside the mapping; the unit's buffer holds len >= n bytes.
                    unsafe { std::ptr::copy_nonoverlapping(m.addr.add(off), u.buf, n) };
                }
                n as i64
            }
            IoOp::Write => {
                if end > self.maps[i].len {
                    // SAFETY: ftruncate on our descriptor; it only grows the file here.
                    if unsafe { libc::ftruncate(u.fd, end as libc::off_t) } != 0 {
                        u.result = -(io::Error::last_os_error()
                            .raw_os_error()
                            .unwrap_or(libc::EIO) as i64);
                        return Queued::Completed;
                    }
                    let r = self.remap(i);
                    if r < 0 {
                        u.result = r;
                        return Queued::Completed;
                    }
                }
                let m = &self.maps[i];
                // SAFETY: [off, end) lies inside the writable mapping; the buffer holds len bytes.
                unsafe { std::ptr::copy_nonoverlapping(u.buf, m.addr.add(off), u.len) };
                u.len as i64
            }
            IoOp::Trim => sysio::punch_hole(u.fd, u.offset, u.len),
            // fio's mmap engine answers every sync kind with msync
            IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => {
                let m = &self.maps[i];
                if m.addr.is_null() {
                    0
                } else {
                    // SAFETY: msync of our own mapping.
                    let r = unsafe { libc::msync(m.addr.cast(), m.len, libc::MS_SYNC) };
                    if r != 0 {
                        -(io::Error::last_os_error()
                            .raw_os_error()
                            .unwrap_or(libc::EIO) as i64)
                    } else {
                        0
                    }
                }
            }
        };
        Queued::Completed
    }
}
