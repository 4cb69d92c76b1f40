//! The memory behind a thread's I/O buffers (fio's `mem=` / `iomem=`): heap,
//! System V shared memory (optionally on huge pages), or mmap (anonymous, file-backed,
//! shared, or huge pages). One region per thread, carved into per-unit buffers by the
//! runner.

use ferrio_config::ext::engine::MemType;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

enum Backing {
    Heap(std::alloc::Layout),
    Shm,
    Mmap(usize),
}

/// One contiguous, zeroed region, at least `len` bytes, starting at an address that is a
/// multiple of the requested alignment.
pub struct IoMemory {
    base: *mut u8,
    /// The start of the aligned part (>= base).
    start: *mut u8,
    len: usize,
    backing: Backing,
}

// SAFETY: the region is plain memory exclusively owned by this value.
unsafe impl Send for IoMemory {}

fn huge_page_size() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("Hugepagesize:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
        })
        .map(|kib| kib * 1024)
        .unwrap_or(2 << 20)
}

fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

impl IoMemory {
    /// Allocate `len` bytes aligned to `align` (a power of two) from `kind`; `path` is the
    /// file for file-backed mmap kinds; the huge-page kinds round the region up to
    /// `huge_page` bytes (fio's hugepage-size; 0 = the system's huge page size).
    pub fn new(
        kind: MemType,
        path: Option<&Path>,
        len: usize,
        align: usize,
        huge_page: usize,
    ) -> io::Result<IoMemory> {
        let len = len.max(1);
        let align = align.max(1);
        let page = || match huge_page {
            0 => huge_page_size(),
            n => n,
        };
        match kind {
            MemType::Malloc => {
                let layout = std::alloc::Layout::from_size_align(len, align)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
                // SAFETY: the layout has a non-zero size.
                let p = unsafe { std::alloc::alloc_zeroed(layout) };
                if p.is_null() {
                    return Err(io::Error::from_raw_os_error(libc::ENOMEM));
                }
                Ok(IoMemory {
                    base: p,
                    start: p,
                    len,
                    backing: Backing::Heap(layout),
                })
            }
            MemType::Shm | MemType::ShmHuge => {
                let huge = kind == MemType::ShmHuge;
                let total = if huge {
                    round_up(len + align, page())
                } else {
                    len + align
                };
                let mut flags = libc::IPC_CREAT | 0o600;
                if huge {
                    flags |= libc::SHM_HUGETLB;
                }
                // SAFETY: shmget takes only integers.
                let id = unsafe { libc::shmget(libc::IPC_PRIVATE, total, flags) };
                if id < 0 {
                    let e = io::Error::last_os_error();
                    return Err(io::Error::new(
                        e.kind(),
                        format!(
                            "mem={}: shmget of {total} bytes failed: {e}{}",
                            if huge { "shmhuge" } else { "shm" },
                            if huge {
                                " (are huge pages reserved in /proc/sys/vm/nr_hugepages?)"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                // SAFETY: attaching the segment we just created at an address the kernel picks.
                let p = unsafe { libc::shmat(id, std::ptr::null(), 0) };
                // Mark for removal now: it goes away when detached (also on a crash).
                // SAFETY: IPC_RMID on our own segment id.
                unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
                if p as isize == -1 {
                    return Err(io::Error::last_os_error());
                }
                let base = p as *mut u8;
                let start = round_up(base as usize, align) as *mut u8;
                Ok(IoMemory {
                    base,
                    start,
                    len,
                    backing: Backing::Shm,
                })
            }
            MemType::Mmap | MemType::MmapShared | MemType::MmapHuge => {
                let huge = kind == MemType::MmapHuge;
                let total = if huge {
                    round_up(len + align, page())
                } else {
                    len + align
                };
                let prot = libc::PROT_READ | libc::PROT_WRITE;
                let shared = kind == MemType::MmapShared || (huge && path.is_some());
                let mut flags = if shared {
                    libc::MAP_SHARED
                } else {
                    libc::MAP_PRIVATE
                };
                let file = match path {
                    Some(p) => {
                        let f = std::fs::OpenOptions::new()
                            .read(true)
                            .write(true)
                            .create(true)
                            .truncate(false)
                            .open(p)
                            .map_err(|e| {
                                io::Error::new(
                                    e.kind(),
                                    format!("mem=mmap file '{}': {e}", p.display()),
                                )
                            })?;
                        f.set_len(total as u64)?;
                        Some(f)
                    }
                    None => {
                        flags |= libc::MAP_ANONYMOUS;
                        if huge {
                            flags |= libc::MAP_HUGETLB;
                        }
                        None
                    }
                };
                let fd = file.as_ref().map(|f| f.as_raw_fd()).unwrap_or(-1);
                // SAFETY: a fresh mapping at a kernel-chosen address.
                let p = unsafe { libc::mmap(std::ptr::null_mut(), total, prot, flags, fd, 0) };
                if p == libc::MAP_FAILED {
                    let e = io::Error::last_os_error();
                    return Err(io::Error::new(
                        e.kind(),
                        format!(
                            "mem=mmap of {total} bytes failed: {e}{}",
                            if huge {
                                " (are huge pages reserved in /proc/sys/vm/nr_hugepages?)"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                let base = p as *mut u8;
                let start = round_up(base as usize, align) as *mut u8;
                Ok(IoMemory {
                    base,
                    start,
                    len,
                    backing: Backing::Mmap(total),
                })
            }
        }
    }

    /// The aligned start of the region.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.start
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Start of buffer `i` when the region is cut into buffers of `stride` bytes.
    pub fn buffer(&mut self, i: usize, stride: usize) -> *mut u8 {
        assert!(
            (i + 1) * stride <= self.len,
            "buffer {i} outside the I/O region"
        );
        self.start.wrapping_add(i * stride)
    }

    /// Bytes `[offset, offset + len)` of the region, to fill a buffer that is not in
    /// flight (the I/O loop owns the region; engines only see a buffer while its unit
    /// is queued).
    pub fn bytes_mut(&mut self, offset: usize, len: usize) -> &mut [u8] {
        assert!(offset + len <= self.len, "bytes outside the I/O region");
        // SAFETY: the range lies inside the region this value owns, and `&mut self`
        // makes the borrow exclusive for the slice's lifetime.
        unsafe { std::slice::from_raw_parts_mut(self.start.add(offset), len) }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for IoMemory {
    fn drop(&mut self) {
        // SAFETY: each branch releases exactly what `new` obtained, once.
        unsafe {
            match self.backing {
                Backing::Heap(layout) => std::alloc::dealloc(self.base, layout),
                Backing::Shm => {
                    libc::shmdt(self.base as *const libc::c_void);
                }
                Backing::Mmap(total) => {
                    libc::munmap(self.base.cast(), total);
                }
            }
        }
    }
}

/// The logical block size and buffer alignment O_DIRECT needs for `file`:
/// (offset/length granularity, memory alignment). Block devices: BLKSSZGET; files:
/// statx(STATX_DIOALIGN) where the kernel has it. None when unknown (or when the file
/// system does not support O_DIRECT at all: both 0 from statx).
pub fn direct_io_alignment(file: &std::fs::File, block_device: bool) -> Option<(u64, u64)> {
    let fd = file.as_raw_fd();
    if block_device {
        let mut sz: libc::c_int = 0;
        // SAFETY: BLKSSZGET writes one int we own.
        let r = unsafe { libc::ioctl(fd, libc::BLKSSZGET as _, &mut sz) };
        if r == 0 && sz > 0 {
            return Some((sz as u64, sz as u64));
        }
        return None;
    }
    const STATX_DIOALIGN: u32 = 0x2000;
    // SAFETY: statx writes one struct statx we own; the empty path with AT_EMPTY_PATH
    // names the descriptor itself.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let r = unsafe {
        libc::statx(
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            STATX_DIOALIGN,
            &mut st,
        )
    };
    if r == 0 && st.stx_mask & STATX_DIOALIGN != 0 && st.stx_dio_offset_align > 0 {
        return Some((
            st.stx_dio_offset_align as u64,
            st.stx_dio_mem_align.max(1) as u64,
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_without_huge_pages_is_aligned_and_zeroed() {
        for kind in [
            MemType::Malloc,
            MemType::Shm,
            MemType::Mmap,
            MemType::MmapShared,
        ] {
            let mut m = IoMemory::new(kind, None, 3 * 4096 + 5, 4096, 0).expect("allocate");
            let p = m.as_mut_ptr();
            assert_eq!(p as usize % 4096, 0, "{kind:?}");
            // SAFETY: the region holds len bytes.
            let s = unsafe { std::slice::from_raw_parts_mut(p, m.len()) };
            assert!(s.iter().all(|&b| b == 0));
            s.fill(7);
        }
    }

    #[test]
    fn file_backed_mmap() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("buf");
        let mut m = IoMemory::new(MemType::Mmap, Some(&path), 8192, 4096, 0).unwrap();
        assert_eq!(m.as_mut_ptr() as usize % 4096, 0);
        assert!(path.exists());
    }
}
