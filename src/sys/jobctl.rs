//! Per-thread credentials and pinned memory (fio's uid=, gid= and lockmem=), and
//! replacing an open file under its descriptor number (unlink_each_loop).
//! Linux keeps credentials per thread: the raw setuid/setgid system calls change
//! only the calling thread (glibc's wrappers would change every thread of the
//! process), so one job's uid= never reaches another job's thread.

/// Switch the calling thread to `gid` then `uid` (either may be None).
pub fn set_thread_ids(uid: Option<u32>, gid: Option<u32>) -> Result<(), (i32, String)> {
    if let Some(gid) = gid {
        // SAFETY: integers only; the raw call changes the calling thread alone.
        if unsafe { libc::syscall(libc::SYS_setgid, gid as libc::c_long) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err((
                e.raw_os_error().unwrap_or(libc::EPERM),
                format!("setgid({gid}): {e}"),
            ));
        }
    }
    if let Some(uid) = uid {
        // SAFETY: as above.
        if unsafe { libc::syscall(libc::SYS_setuid, uid as libc::c_long) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err((
                e.raw_os_error().unwrap_or(libc::EPERM),
                format!("setuid({uid}): {e}"),
            ));
        }
    }
    Ok(())
}

/// set_mempolicy(2) for the calling thread: `mode` is MPOL_* (0 default, 1
/// preferred, 2 bind, 3 interleave, 4 local), `nodes` the node mask's bits.
pub fn set_mempolicy(mode: i32, nodes: &[usize]) -> std::io::Result<()> {
    let mut mask = [0u64; 16]; // 1024 nodes
    for &n in nodes {
        if n < mask.len() * 64 {
            mask[n / 64] |= 1 << (n % 64);
        }
    }
    let maxnode = if nodes.is_empty() {
        0
    } else {
        mask.len() * 64 + 1
    };
    let ptr = if nodes.is_empty() {
        std::ptr::null()
    } else {
        mask.as_ptr()
    };
    // SAFETY: ptr is null or `mask`, which holds maxnode - 1 bits and outlives the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_set_mempolicy,
            mode as libc::c_long,
            ptr,
            maxnode as libc::c_ulong,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Anonymous memory locked with mlock(2) until dropped.
pub struct Pinned {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone and never read or written.
unsafe impl Send for Pinned {}

impl Pinned {
    /// Map and lock `len` bytes.
    pub fn new(len: usize) -> std::io::Result<Pinned> {
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: ptr..ptr+len is the mapping just made.
        if unsafe { libc::mlock(ptr, len) } != 0 {
            let e = std::io::Error::last_os_error();
            // SAFETY: unmapping the mapping made above, which nothing else uses.
            unsafe { libc::munmap(ptr, len) };
            return Err(e);
        }
        Ok(Pinned { ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`; munmap also unlocks it.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

/// Make `old`'s descriptor refer to `new`'s file (dup2), then close `new`: engines
/// that kept the descriptor number see the new file.
pub fn replace_fd(old: &std::fs::File, new: std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: both descriptors are open and owned by live Files; dup2 closes old's
    // file and makes its number refer to new's, which `new` then closes (its own number).
    if unsafe { libc::dup2(new.as_raw_fd(), old.as_raw_fd()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Bytes of physical memory (MemTotal), if it can be read.
pub fn phys_mem() -> Option<u64> {
    let t = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_memory_is_locked_while_held() {
        let locked = || -> u64 {
            let s = std::fs::read_to_string("/proc/self/status").unwrap();
            let l = s.lines().find(|l| l.starts_with("VmLck:")).unwrap();
            l.split_whitespace().nth(1).unwrap().parse().unwrap()
        };
        let before = locked();
        match Pinned::new(1 << 20) {
            Ok(p) => {
                assert_eq!(p.len(), 1 << 20);
                assert!(locked() >= before + 1024, "VmLck did not grow");
            }
            // Without CAP_IPC_LOCK and a small RLIMIT_MEMLOCK mlock may be refused.
            Err(e) => assert!(
                matches!(e.raw_os_error(), Some(libc::EPERM | libc::ENOMEM)),
                "{e}"
            ),
        }
        assert!(phys_mem().is_some_and(|m| m > 0));
    }
}
