//! `ioengine=e4defrag`: ext4 online defragmentation, as fio's e4defrag engine.
//! Each write moves the blocks under its range from a donor file into the job's
//! file with EXT4_IOC_MOVE_EXT (the data stays, its layout changes). The donor,
//! `donorname` in the job's directory, is allocated whole before the run
//! (inplace=0) or just for each I/O and truncated after it (inplace=1). Reads and
//! trims fail with EINVAL; a file system other than ext4 fails the first I/O
//! (the ioctl is refused).

use super::{EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;

/// struct move_extent of linux/ext4.h.
#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// EXT4_IOC_MOVE_EXT: _IOWR('f', 15, struct move_extent).
const EXT4_IOC_MOVE_EXT: libc::c_ulong = (3 << 30)
    | ((std::mem::size_of::<MoveExtent>() as libc::c_ulong) << 16)
    | ((b'f' as libc::c_ulong) << 8)
    | 15;

pub struct E4defragEngine {
    donor_path: Option<PathBuf>,
    inplace: bool,
    /// The end of the furthest region: how much of the donor to allocate.
    extent: u64,
    donor: Option<File>,
    /// The donor's block size (st_blksize).
    bsz: u64,
    confine: Option<std::sync::Arc<crate::sys::confine::Confine>>,
}

impl E4defragEngine {
    pub fn new(o: &EngineOptions) -> Result<Self, String> {
        let donor_path = o.local.donorname.as_ref().map(|n| match &o.directory {
            Some(d) => d.join(n),
            None => PathBuf::from(n),
        });
        Ok(E4defragEngine {
            donor_path,
            inplace: o.local.inplace,
            extent: o.regions.iter().map(|r| r.end).max().unwrap_or(0),
            donor: None,
            bsz: 4096,
            confine: o.confine.clone(),
        })
    }

    fn defrag(&self, u: &IoUnit) -> i64 {
        let donor = self.donor.as_ref().expect("set up");
        let dfd = donor.as_raw_fd();
        if self.inplace {
            // SAFETY: fallocate on the donor descriptor we own; no memory passed.
            if unsafe { libc::fallocate(dfd, 0, u.offset as i64, u.len as i64) } != 0 {
                return neg_errno();
            }
        }
        let start = u.offset / self.bsz;
        let mut me = MoveExtent {
            donor_fd: dfd as u32,
            orig_start: start,
            donor_start: start,
            len: (u.offset + u.len as u64).div_ceil(self.bsz) - start,
            ..Default::default()
        };
        // SAFETY: EXT4_IOC_MOVE_EXT reads and writes one struct move_extent, which
        // `me` is (repr(C), same layout), alive for the call.
        let ret = unsafe { libc::ioctl(u.fd, EXT4_IOC_MOVE_EXT as _, &mut me as *mut MoveExtent) };
        let err = (ret != 0).then(neg_errno);
        if self.inplace {
            // SAFETY: as above.
            unsafe { libc::ftruncate(dfd, 0) };
        }
        if let Some(e) = err {
            return e;
        }
        match (me.moved_len * self.bsz).min(u.len as u64) {
            0 => -(libc::EINVAL as i64), // beyond the end of the file
            moved => moved as i64,
        }
    }
}

fn neg_errno() -> i64 {
    -(io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO) as i64)
}

impl IoEngine for E4defragEngine {
    fn setup(&mut self, _fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        let path = self.donor_path.as_ref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "e4defrag needs donorname= (the donor file)",
            )
        })?;
        // On a server the donor is created beneath the allowed directories (openat2),
        // as the data files are: a symlink swapped in after admission leads nowhere.
        let donor = match &self.confine {
            Some(c) => c
                .open_raw(path, libc::O_WRONLY | libc::O_CREAT, 0o644)
                .map(File::from),
            None => std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o644)
                .open(path),
        }
        .map_err(|e| io::Error::new(e.kind(), format!("donor file '{}': {e}", path.display())))?;
        if !self.inplace && self.extent > 0 {
            // SAFETY: fallocate on the donor we just opened; no memory passed.
            if unsafe { libc::fallocate(donor.as_raw_fd(), 0, 0, self.extent as i64) } != 0 {
                let e = io::Error::last_os_error();
                return Err(io::Error::new(
                    e.kind(),
                    format!("donor file '{}': fallocate: {e}", path.display()),
                ));
            }
        }
        self.bsz = donor.metadata()?.blksize().max(1);
        self.donor = Some(donor);
        Ok(())
    }

    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        u.result = match u.op {
            IoOp::Write => self.defrag(u),
            IoOp::Fsync | IoOp::Fdatasync => crate::sys::io::sync(u.fd, u.op == IoOp::Fdatasync),
            IoOp::SyncFileRange { flags } => {
                crate::sys::io::sync_range(u.fd, u.offset, u.len as u64, flags)
            }
            IoOp::Read | IoOp::Trim => -(libc::EINVAL as i64),
        };
        Queued::Completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ioctl_number_is_ext4s() {
        assert_eq!(std::mem::size_of::<MoveExtent>(), 40);
        assert_eq!(EXT4_IOC_MOVE_EXT, 0xC028_660F);
    }

    #[test]
    fn without_a_donor_setup_fails_naming_the_option() {
        let mut e = E4defragEngine::new(&EngineOptions::default()).unwrap();
        let err = e.setup(&[], &[]).unwrap_err();
        assert!(err.to_string().contains("donorname"), "{err}");
    }
}
