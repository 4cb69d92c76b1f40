//! `ioengine=libpmem`: fio's libpmem engine without PMDK. Each file is mapped whole,
//! from its start, at the job's size per file (the file is set to that length, as
//! libpmem's pmem_map_file with PMEM_FILE_CREATE does); reads are a memcpy from the
//! mapping, writes libpmem's pmem_memcpy: temporal stores then cache-line flushes, or
//! non-temporal stores with direct=1, and a drain (SFENCE) after each write with
//! sync=1. fsync, fdatasync and sync_file_range are a drain; trims fail with EINVAL.
//! A synchronous engine: every `queue` completes.
//!
//! As with fio 3.33, a file that is not on persistent memory (no MAP_SYNC: not on a
//! DAX filesystem) is refused with EOPNOTSUPP unless libpmem's own
//! `PMEM_IS_PMEM_FORCE=1` says to treat it as persistent memory. Character and block
//! devices (device DAX, /dev/daxN.M) are refused: there is none here to test with.

#[cfg(target_arch = "x86_64")]
mod persist;

use super::{EngineOptions, IoEngine};

/// Build one thread's engine (x86-64 only: the flush instructions are x86's).
pub fn create(opts: &EngineOptions) -> Result<Box<dyn IoEngine>, String> {
    #[cfg(target_arch = "x86_64")]
    {
        Ok(Box::new(imp::LibpmemEngine::new(opts)?))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = opts;
        Err("ioengine=libpmem: ferrio implements persistent-memory flushes for x86-64 only".into())
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::persist::{Flush, Persist};
    use crate::engine::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
    use ferrio_report::extra::ExtraStat;
    use std::fs::File;
    use std::io;
    use std::ops::Range;
    use std::os::fd::{AsRawFd, RawFd};
    use std::path::PathBuf;

    /// Linux's MAP_SYNC (uapi asm-generic/mman-common.h): the mapping's stores are
    /// durable once flushed, which only a DAX filesystem grants.
    const MAP_SYNC: libc::c_int = 0x80000;

    struct Mapping {
        /// The job's descriptor for this file (how units name it).
        fd: RawFd,
        /// A read-write descriptor of our own when the job's is not (libpmem always
        /// maps read-write, as fio's engine opens its files).
        _rw: Option<File>,
        addr: *mut u8,
        len: usize,
    }

    pub struct LibpmemEngine {
        job: String,
        /// direct=1: non-temporal stores (fio's PMEM_F_MEM_NONTEMPORAL).
        nontemporal: bool,
        /// sync=1: drain after every write (fio: no PMEM_F_MEM_NODRAIN).
        drain_each: bool,
        regions: Vec<Range<u64>>,
        paths: Vec<PathBuf>,
        maps: Vec<Mapping>,
        persist: Persist,
        /// PMEM_IS_PMEM_FORCE=1 or =0: libpmem's override of its pmem detection.
        force: Option<bool>,
    }

    // SAFETY: the mappings are owned by this engine and used by one thread at a time.
    unsafe impl Send for LibpmemEngine {}

    fn errno() -> i32 {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    }

    impl LibpmemEngine {
        pub fn new(opts: &EngineOptions) -> Result<LibpmemEngine, String> {
            if let Some(r) = opts.regions.iter().find(|r| r.start != 0) {
                return Err(format!(
                    "ioengine=libpmem maps each file from its start, so a region starting at {} \
                     (offset=, offset_increment=) cannot be used (fio 3.33's libpmem does no I/O for such a job)",
                    r.start
                ));
            }
            Self::with_env(opts, &|name| std::env::var(name).ok())
        }

        fn with_env(
            opts: &EngineOptions,
            env: &dyn Fn(&str) -> Option<String>,
        ) -> Result<LibpmemEngine, String> {
            let force = match env("PMEM_IS_PMEM_FORCE").as_deref().map(str::trim) {
                Some("1") => Some(true),
                Some("0") => Some(false),
                _ => None,
            };
            Ok(LibpmemEngine {
                job: opts.job.clone(),
                nontemporal: opts.direct,
                drain_each: opts.sync,
                regions: opts.regions.clone(),
                paths: opts.paths.clone(),
                maps: Vec::new(),
                persist: Persist::detect(env),
                force,
            })
        }

        fn name(&self, i: usize) -> String {
            self.paths
                .get(i)
                .map_or_else(|| format!("file {i}"), |p| p.display().to_string())
        }

        fn refuse(&self, i: usize, kind: io::ErrorKind, why: &str) -> io::Error {
            io::Error::new(
                kind,
                format!("job '{}': '{}' {why}", self.job, self.name(i)),
            )
        }

        /// pmem_map_file: size file `i` to its region and map it read-write.
        fn map(&mut self, i: usize) -> io::Result<()> {
            let fd = self.maps[i].fd;
            // SAFETY: fstat writes one struct stat we own.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            if unsafe { libc::fstat(fd, &mut st) } != 0 {
                return Err(io::Error::last_os_error());
            }
            match st.st_mode & libc::S_IFMT {
                libc::S_IFREG => {}
                libc::S_IFCHR => {
                    return Err(self.refuse(
                        i,
                        io::ErrorKind::Unsupported,
                        "is a character device: ferrio's libpmem maps regular files on a DAX \
                         filesystem; device DAX (/dev/daxN.M) is not supported (no such device \
                         to test it with)",
                    ))
                }
                _ => {
                    return Err(self.refuse(
                        i,
                        io::ErrorKind::Unsupported,
                        "is not a regular file: libpmem maps regular files on a DAX filesystem",
                    ))
                }
            }
            let len = self.regions.get(i).map_or(st.st_size as u64, |r| r.end);
            if len == 0 {
                return Err(self.refuse(
                    i,
                    io::ErrorKind::InvalidInput,
                    "has no size to map (size=)",
                ));
            }
            // SAFETY: fcntl(F_GETFL) only reads our descriptor's flags.
            let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
            if flags < 0 {
                return Err(io::Error::last_os_error());
            }
            let rw = if flags & libc::O_ACCMODE == libc::O_RDWR {
                None
            } else {
                // The same open file, read-write (a read job's descriptor is read-only).
                let f = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(format!("/proc/self/fd/{fd}"))
                    .map_err(|e| {
                        self.refuse(i, e.kind(), &format!("cannot be opened read-write: {e}"))
                    })?;
                Some(f)
            };
            let wfd = rw.as_ref().map_or(fd, |f| f.as_raw_fd());
            // As pmem_map_file with PMEM_FILE_CREATE: the file takes the mapped length
            // (grown or cut), allocated.
            if st.st_size as u64 != len {
                // SAFETY: ftruncate on a descriptor we hold.
                if unsafe { libc::ftruncate(wfd, len as libc::off_t) } != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            // SAFETY: posix_fallocate on a descriptor we hold; it returns the error.
            let r = unsafe { libc::posix_fallocate(wfd, 0, len as libc::off_t) };
            if r != 0 {
                return Err(io::Error::from_raw_os_error(r));
            }
            let prot = libc::PROT_READ | libc::PROT_WRITE;
            // SAFETY: a fresh mapping of our descriptor; the kernel picks the address.
            let mut p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len as usize,
                    prot,
                    libc::MAP_SHARED_VALIDATE | MAP_SYNC,
                    wfd,
                    0,
                )
            };
            let mut is_pmem = p != libc::MAP_FAILED;
            if !is_pmem {
                let e = errno();
                if e != libc::EOPNOTSUPP && e != libc::EINVAL {
                    return Err(io::Error::from_raw_os_error(e));
                }
                // SAFETY: as above, without MAP_SYNC (not a DAX filesystem).
                p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len as usize,
                        prot,
                        libc::MAP_SHARED,
                        wfd,
                        0,
                    )
                };
                if p == libc::MAP_FAILED {
                    let e = io::Error::last_os_error();
                    return Err(self.refuse(i, e.kind(), &format!("cannot be mapped: {e}")));
                }
            }
            is_pmem = self.force.unwrap_or(is_pmem);
            if !is_pmem {
                // SAFETY: unmapping the mapping just made.
                unsafe { libc::munmap(p, len as usize) };
                return Err(self.refuse(
                    i,
                    io::ErrorKind::Unsupported,
                    "is not on persistent memory (it cannot be mapped with MAP_SYNC: not a DAX \
                     filesystem), which fio's libpmem refuses too; PMEM_IS_PMEM_FORCE=1 treats it \
                     as persistent memory, as libpmem does",
                ));
            }
            let m = &mut self.maps[i];
            m._rw = rw;
            m.addr = p.cast();
            m.len = len as usize;
            Ok(())
        }

        fn unmap(&mut self, i: usize) {
            let m = &mut self.maps[i];
            if !m.addr.is_null() {
                // SAFETY: addr/len is a mapping we created; no I/O uses it any more.
                unsafe { libc::munmap(m.addr.cast(), m.len) };
            }
            m.addr = std::ptr::null_mut();
            m.len = 0;
            m._rw = None;
        }

        fn file_index(&self, u: &IoUnit) -> Option<usize> {
            if u.file < self.maps.len() && self.maps[u.file].fd == u.fd {
                Some(u.file)
            } else {
                self.maps.iter().position(|m| m.fd == u.fd)
            }
        }
    }

    impl Drop for LibpmemEngine {
        fn drop(&mut self) {
            for i in 0..self.maps.len() {
                self.unmap(i);
            }
        }
    }

    impl IoEngine for LibpmemEngine {
        fn setup(&mut self, fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
            self.maps = fds
                .iter()
                .map(|&fd| Mapping {
                    fd,
                    _rw: None,
                    addr: std::ptr::null_mut(),
                    len: 0,
                })
                .collect();
            for (i, &fd) in fds.iter().enumerate() {
                // (A file not open yet (openfiles) is mapped when it is opened.)
                if fd >= 0 {
                    self.map(i)?;
                }
            }
            Ok(())
        }

        fn file_changed(&mut self, file: usize, fd: RawFd) -> io::Result<()> {
            if file >= self.maps.len() {
                return Ok(());
            }
            self.unmap(file);
            self.maps[file].fd = fd;
            if fd >= 0 {
                self.map(file)?;
            }
            Ok(())
        }

        #[inline]
        fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
            let Some(i) = self.file_index(u) else {
                u.result = -(libc::EBADF as i64);
                return Queued::Completed;
            };
            let (addr, len) = (self.maps[i].addr, self.maps[i].len);
            let off = u.offset as usize;
            let in_map = !addr.is_null() && off.checked_add(u.len).is_some_and(|e| e <= len);
            u.result = match u.op {
                // fio's libpmem fails an I/O outside the mapped file with EIO.
                IoOp::Read | IoOp::Write if !in_map => -(libc::EIO as i64),
                IoOp::Read => {
                    // SAFETY: [off, off+len) lies inside the mapping; the unit's buffer holds len bytes.
                    unsafe { std::ptr::copy_nonoverlapping(addr.add(off), u.buf, u.len) };
                    u.len as i64
                }
                IoOp::Write => {
                    // SAFETY: [off, off+len) lies inside the read-write mapping; the
                    // buffer holds len bytes and is not part of the mapping.
                    unsafe {
                        self.persist.memcpy(
                            addr.add(off),
                            u.buf,
                            u.len,
                            self.nontemporal,
                            self.drain_each,
                        )
                    };
                    u.len as i64
                }
                IoOp::Trim => -(libc::EINVAL as i64),
                // fio's libpmem answers every sync kind with pmem_drain.
                IoOp::Fsync | IoOp::Fdatasync | IoOp::SyncFileRange { .. } => {
                    self.persist.drain();
                    0
                }
            };
            Queued::Completed
        }

        fn extra_stats(&self) -> Vec<ExtraStat> {
            let c = self.persist.counters;
            let flush = match self.persist.flush {
                Flush::None => "lines flushed (none: PMEM_NO_FLUSH)".to_string(),
                f => format!("lines flushed ({})", f.name()),
            };
            vec![
                ExtraStat::new("libpmem_flushed_lines", "libpmem", &flush, c.lines as f64),
                ExtraStat::new("libpmem_drains", "libpmem", "drains", c.drains as f64),
                ExtraStat::new(
                    "libpmem_nt_bytes",
                    "libpmem",
                    "non-temporal bytes",
                    c.nt_bytes as f64,
                ),
            ]
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::os::unix::fs::FileExt;

        fn engine(len: u64, path: PathBuf, force: Option<&'static str>) -> LibpmemEngine {
            let opts = EngineOptions {
                job: "t".into(),
                regions: std::iter::once(0..len).collect(),
                paths: vec![path],
                ..Default::default()
            };
            LibpmemEngine::with_env(&opts, &move |n| {
                (n == "PMEM_IS_PMEM_FORCE").then_some(force?.to_string())
            })
            .unwrap()
        }

        #[test]
        fn a_file_off_pmem_is_refused_unless_forced_and_is_then_sized_to_its_region() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            std::fs::write(&path, vec![7u8; 3 * 4096]).unwrap();
            let f = File::options().read(true).write(true).open(&path).unwrap();
            // A temporary directory is no DAX filesystem.
            let mut e = engine(8192, path.clone(), None);
            let err = e.setup(&[f.as_raw_fd()], &[]).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::Unsupported);
            assert!(
                err.to_string().contains("not on persistent memory"),
                "{err}"
            );
            assert!(err.to_string().contains("PMEM_IS_PMEM_FORCE=1"), "{err}");
            let mut e = engine(8192, path.clone(), Some("0"));
            assert!(e.setup(&[f.as_raw_fd()], &[]).is_err());

            let mut e = engine(8192, path.clone(), Some("1"));
            e.setup(&[f.as_raw_fd()], &[]).unwrap();
            // Cut to the region, as pmem_map_file with PMEM_FILE_CREATE.
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 8192);
            let mut data = vec![0x5au8; 4096];
            let mut w = IoUnit::for_test(IoOp::Write, f.as_raw_fd(), 4096, 4096);
            w.buf = data.as_mut_ptr();
            assert_eq!(e.queue(0, &mut w), Queued::Completed);
            assert_eq!(w.result, 4096);
            let mut back = vec![0u8; 4096];
            f.read_exact_at(&mut back, 4096).unwrap();
            assert_eq!(back, data);
            // Past the mapped file: EIO; a trim: EINVAL; an fsync: a drain.
            let mut past = IoUnit::for_test(IoOp::Read, f.as_raw_fd(), 8192, 4096);
            past.buf = back.as_mut_ptr();
            e.queue(0, &mut past);
            assert_eq!(past.result, -(libc::EIO as i64));
            let mut trim = IoUnit::for_test(IoOp::Trim, f.as_raw_fd(), 0, 4096);
            e.queue(0, &mut trim);
            assert_eq!(trim.result, -(libc::EINVAL as i64));
            let drains = e.persist.counters.drains;
            let mut sync = IoUnit::for_test(IoOp::Fsync, f.as_raw_fd(), 0, 0);
            e.queue(0, &mut sync);
            assert_eq!((sync.result, e.persist.counters.drains), (0, drains + 1));
            assert!(e.persist.flush == Flush::None || e.persist.counters.lines >= 64);
        }

        #[test]
        fn a_region_not_at_the_start_of_the_file_is_refused() {
            let opts = EngineOptions {
                regions: std::iter::once(4096..8192).collect(),
                ..Default::default()
            };
            let err = LibpmemEngine::new(&opts).err().unwrap();
            assert!(err.contains("offset=") && err.contains("4096"), "{err}");
        }
    }
}
