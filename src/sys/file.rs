//! Opening, sizing and preparing the files a job does I/O on.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

pub use super::open_flags::OpenFlags;

pub fn open(path: &Path, f: OpenFlags) -> io::Result<File> {
    let mut custom = 0;
    if f.direct {
        custom |= libc::O_DIRECT;
    }
    custom |= f.sync_flag();
    if f.nonblock {
        custom |= libc::O_NONBLOCK;
    }
    if f.create && !f.write {
        // (std refuses create without write access; open(2) does not.)
        custom |= libc::O_CREAT;
    }
    OpenOptions::new()
        .read(f.read || !f.write)
        .write(f.write)
        .create(f.create && f.write)
        .custom_flags(custom)
        .mode(f.create_mode())
        .open(path)
}

/// [`open`], or, for a server's run, [`super::confine::Confine::open`].
pub fn open_in(
    confine: Option<&super::confine::Confine>,
    path: &Path,
    f: OpenFlags,
) -> io::Result<File> {
    match confine {
        Some(c) => c.open(path, f),
        None => open(path, f),
    }
}

/// Remove a file (or an empty directory, `dir`), confined on a server.
pub fn remove_in(
    confine: Option<&super::confine::Confine>,
    path: &Path,
    dir: bool,
) -> io::Result<()> {
    match (confine, dir) {
        (Some(c), _) => c.remove(path, dir),
        (None, false) => std::fs::remove_file(path),
        (None, true) => std::fs::remove_dir(path),
    }
}

/// What a job's file is before the run, from one stat (symbolic links followed).
#[derive(Clone, Copy, Debug, Default)]
pub struct TargetKind {
    pub block_device: bool,
    /// A block or character device: never laid out, extended or removed.
    pub device: bool,
    /// A kind no job can do I/O on: "a FIFO (named pipe)", "a socket", or fio's
    /// reserved name "-" (stdin or stdout).
    pub unusable: Option<&'static str>,
}

/// What `path` names (a missing file: nothing special).
pub fn target_kind(path: &Path) -> TargetKind {
    let unusable = |what| TargetKind {
        unusable: Some(what),
        ..Default::default()
    };
    if path.as_os_str() == "-" {
        return unusable(
            "stdin or stdout (fio's name for them), which no engine here reads or writes",
        );
    }
    let Ok(t) = std::fs::metadata(path).map(|m| m.file_type()) else {
        return TargetKind::default();
    };
    if t.is_fifo() {
        return unusable("a FIFO (named pipe)");
    }
    if t.is_socket() {
        return unusable("a socket");
    }
    TargetKind {
        block_device: t.is_block_device(),
        device: t.is_block_device() || t.is_char_device(),
        unusable: None,
    }
}

/// True if `path` names a block device.
pub fn is_block_device(path: &Path) -> bool {
    target_kind(path).block_device
}

/// Whether `path` is a block or character device (never laid out or removed).
pub fn is_device(path: &Path) -> bool {
    target_kind(path).device
}

/// The size of an existing file or block device before the run (None when it is
/// missing or cannot be opened). The open never waits: a FIFO is opened without
/// blocking (and sized 0; the planner refuses it).
pub fn existing_size(confine: Option<&super::confine::Confine>, path: &Path) -> Option<u64> {
    let probe = OpenFlags {
        nonblock: true,
        ..Default::default()
    };
    open_in(confine, path, probe)
        .ok()
        .and_then(|f| size_of(&f).ok())
}

/// Size in bytes of a regular file or block device.
pub fn size_of(file: &File) -> io::Result<u64> {
    let meta = file.metadata()?;
    if meta.file_type().is_block_device() {
        let mut bytes: u64 = 0;
        // BLKGETSIZE64 = _IOR(0x12, 114, size_t)
        const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
        // SAFETY: the ioctl writes one u64 into `bytes`, which we own.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64, &mut bytes) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(bytes)
    } else {
        Ok(meta.len())
    }
}

/// Reserve space for `len` bytes with fallocate(2) (mode 0, or KEEP_SIZE when `keep_size`).
pub fn preallocate(file: &File, len: u64, keep_size: bool) -> io::Result<()> {
    let mode = if keep_size {
        libc::FALLOC_FL_KEEP_SIZE
    } else {
        0
    };
    // SAFETY: fallocate takes only integers and a descriptor we own.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), mode, 0, len as libc::off_t) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// posix_fallocate(3): allocate for real (fallocate=posix).
pub fn posix_preallocate(file: &File, len: u64) -> io::Result<()> {
    // SAFETY: integers and a descriptor we own.
    let r = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// Drop the pages of `len` bytes from `start` from the page cache (fio's
/// invalidate=1, which drops the job's region of the file, not the whole file;
/// `len` 0: to the end of the file).
pub fn invalidate_cache(file: &File, start: u64, len: u64) {
    let (start, len) = (start as libc::off_t, len as libc::off_t);
    // SAFETY: integers and a descriptor we own. Failure is harmless (as in fio, best effort).
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), start, len, libc::POSIX_FADV_DONTNEED);
    }
}

/// Tell the kernel the access pattern (fio's fadvise_hint): random access turns
/// readahead off, so random reads measure the device, not the page cache.
pub fn advise_pattern(file: &File, random: bool) {
    let advice = if random {
        libc::POSIX_FADV_RANDOM
    } else {
        libc::POSIX_FADV_SEQUENTIAL
    };
    // SAFETY: integers and a descriptor we own; the hint is best effort.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, advice);
    }
}

/// Set the file's write lifetime hint (fcntl F_SET_RW_HINT, an RWH_WRITE_LIFE_* value).
pub fn set_write_hint(file: &File, hint: u64) -> std::io::Result<()> {
    // F_LINUX_SPECIFIC_BASE + 12; the libc crate does not name it.
    const F_SET_RW_HINT: libc::c_int = 1024 + 12;
    // SAFETY: a descriptor we own and a pointer to a live u64, as the call expects.
    let r = unsafe { libc::fcntl(file.as_raw_fd(), F_SET_RW_HINT, &hint as *const u64) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// (major, minor) of the device holding `path` (the device itself for a block device).
pub fn device_numbers(path: &Path) -> Option<(u32, u32)> {
    let meta = std::fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    Some((libc::major(dev), libc::minor(dev)))
}
