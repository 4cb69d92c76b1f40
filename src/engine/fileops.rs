//! The metadata engines, fio's fileoperations: `filecreate`, `filestat`,
//! `filedelete`, `dircreate`, `dirstat`, `dirdelete`. Their I/Os move no data (fio's
//! FIO_FAKEIO); what they measure is one file-system operation per file (or
//! directory) and pass, where fio opens each file: the first I/O to a file in a pass
//! carries the operation, and its time is that I/O's completion latency
//! ([`Accounting::FileOps`](super::Accounting::FileOps)). Every other I/O completes at
//! once, untimed. fio 3.33 has the three file engines; the directory engines follow
//! fio 3.37 (dirstat and dirdelete make their directories before the run).

use super::{EngineOptions, IoEngine, IoUnit, Queued};
use crate::sys::confine::Confine;
use ferrio_config::ext::local::StatType;
use std::collections::VecDeque;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The operation an engine performs on each name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOp {
    /// open(2) with O_CREAT|O_RDWR, mode 0600 (the file stays open until the pass ends).
    CreateFile,
    StatFile,
    /// unlink(2).
    DeleteFile,
    /// mkdir(2), mode 0700.
    CreateDir,
    StatDir,
    /// rmdir(2).
    DeleteDir,
}

impl FileOp {
    fn on_dirs(self) -> bool {
        matches!(
            self,
            FileOp::CreateDir | FileOp::StatDir | FileOp::DeleteDir
        )
    }
}

pub struct FileOpsEngine {
    op: FileOp,
    stat_type: StatType,
    paths: Vec<PathBuf>,
    /// Per file: its operation was done in this pass.
    done: Vec<bool>,
    /// Files filecreate holds open, oldest first: closed when the pass ends (fio's
    /// close_file), or earlier to keep at most `max_open` (openfiles=).
    open: VecDeque<File>,
    max_open: usize,
    /// The last queued I/O carried an operation.
    last_timed: bool,
    /// On a server: every operation beneath the allowed directories (openat2
    /// RESOLVE_BENEATH, mkdirat/unlinkat in a parent opened so), so a name swapped
    /// for a symlink after admission leads nowhere.
    confine: Option<Arc<Confine>>,
}

impl FileOpsEngine {
    pub fn new(op: FileOp, o: &EngineOptions) -> Self {
        FileOpsEngine {
            op,
            stat_type: o.local.stat_type,
            paths: o.paths.clone(),
            done: vec![false; o.paths.len()],
            open: VecDeque::new(),
            max_open: o.local.openfiles.map_or(usize::MAX, |n| n.max(1) as usize),
            last_timed: false,
            confine: o.confine.clone(),
        }
    }

    /// The operation on `path`: Ok, or the errno.
    fn operate(&mut self, path: &Path) -> io::Result<()> {
        if let Some(c) = self.confine.clone() {
            return self.operate_confined(&c, path);
        }
        match self.op {
            FileOp::CreateFile => {
                let f = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .mode(0o600)
                    .open(path)?;
                self.keep_open(f);
                Ok(())
            }
            FileOp::StatFile | FileOp::StatDir => stat(path, self.stat_type),
            FileOp::DeleteFile => std::fs::remove_file(path),
            FileOp::CreateDir => std::fs::DirBuilder::new().mode(0o700).create(path),
            FileOp::DeleteDir => std::fs::remove_dir(path),
        }
    }

    /// The same operations on a server, beneath the allowed directories.
    fn operate_confined(&mut self, c: &Confine, path: &Path) -> io::Result<()> {
        match self.op {
            FileOp::CreateFile => {
                let flags = libc::O_RDWR | libc::O_CREAT;
                let f = File::from(c.open_raw(path, flags, 0o600)?);
                self.keep_open(f);
                Ok(())
            }
            FileOp::StatFile | FileOp::StatDir => {
                // A handle beneath the root (lstat: on the name itself), then stat it.
                let nofollow = match self.stat_type {
                    StatType::Lstat => libc::O_NOFOLLOW,
                    _ => 0,
                };
                let fd = c.open_raw(path, libc::O_PATH | nofollow, 0)?;
                stat_fd(&fd, self.stat_type)
            }
            FileOp::DeleteFile => c.remove(path, false),
            FileOp::CreateDir => c.mkdir(path, 0o700),
            FileOp::DeleteDir => c.remove(path, true),
        }
    }

    /// filecreate's file stays open until the pass ends (or openfiles= is reached).
    fn keep_open(&mut self, f: File) {
        {
            if self.open.len() == self.max_open {
                // Closed before the next create, as fio closes a file it is done
                // with when openfiles is reached (not timed).
                self.open.pop_front();
            }
            self.open.push_back(f);
        }
    }
}

/// stat_type's call on a handle opened beneath a root (fstat, or statx with
/// AT_EMPTY_PATH).
fn stat_fd(fd: &std::os::fd::OwnedFd, how: StatType) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let ret = match how {
        StatType::Stat | StatType::Lstat => {
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: a descriptor we own and a writable stat buffer that outlives the call.
            unsafe { libc::fstat(fd.as_raw_fd(), st.as_mut_ptr()) }
        }
        // The descriptor itself is stat'ed (an empty path with AT_EMPTY_PATH).
        StatType::Statx => statx(fd.as_raw_fd(), c"", libc::AT_EMPTY_PATH),
    };
    if ret == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// statx(2) of `path` relative to `dirfd` with `flags`, every field asked for; the
/// result is thrown away (only the call is timed).
fn statx(dirfd: libc::c_int, path: &std::ffi::CStr, flags: libc::c_int) -> libc::c_int {
    let mut stx = std::mem::MaybeUninit::<libc::statx>::uninit();
    // SAFETY: `path` is NUL-terminated and outlives the call; `stx` is a writable
    // statx buffer. An invalid `dirfd` or path makes the call fail, not misbehave.
    unsafe {
        libc::statx(
            dirfd,
            path.as_ptr(),
            flags,
            libc::STATX_ALL,
            stx.as_mut_ptr(),
        )
    }
}

/// One lookup with the system call stat_type names (std's metadata() would use
/// statx whatever was asked).
fn stat(path: &Path, how: StatType) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let ret = match how {
        StatType::Stat | StatType::Lstat => {
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: `c` is a NUL-terminated path and `st` is a writable stat buffer
            // that outlives the call.
            unsafe {
                if how == StatType::Stat {
                    libc::stat(c.as_ptr(), st.as_mut_ptr())
                } else {
                    libc::lstat(c.as_ptr(), st.as_mut_ptr())
                }
            }
        }
        StatType::Statx => {
            // fio resolves the absolute path first, and that is timed too.
            let abs = std::fs::canonicalize(path)?;
            let c = CString::new(abs.as_os_str().as_bytes())
                .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
            // An absolute path: the directory descriptor is not used.
            statx(libc::AT_FDCWD, &c, 0)
        }
    };
    if ret == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

impl IoEngine for FileOpsEngine {
    fn setup(&mut self, _fds: &[i32], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        // dirstat and dirdelete need their directories (fio's setup_dirs).
        if matches!(self.op, FileOp::StatDir | FileOp::DeleteDir) {
            for p in &self.paths {
                let made = match &self.confine {
                    Some(c) => c.mkdir(p, 0o700),
                    None => std::fs::DirBuilder::new().mode(0o700).create(p),
                };
                match made {
                    Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                        return Err(io::Error::new(
                            e.kind(),
                            format!("cannot create directory '{}': {e}", p.display()),
                        ))
                    }
                    _ => {}
                }
            }
        }
        debug_assert!(!self.op.on_dirs() || self.open.is_empty());
        Ok(())
    }

    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        self.last_timed = false;
        u.result = u.len as i64;
        if let Some(done) = self.done.get(u.file).copied() {
            if !done {
                self.done[u.file] = true;
                self.last_timed = true;
                let path = self.paths[u.file].clone();
                if let Err(e) = self.operate(&path) {
                    u.result = -(e.raw_os_error().unwrap_or(libc::EIO) as i64);
                }
            }
        }
        Queued::Completed
    }

    fn timed(&self) -> bool {
        self.last_timed
    }

    fn new_pass(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.open.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::IoOp;

    fn unit(file: usize) -> IoUnit {
        IoUnit {
            file,
            ..IoUnit::for_test(IoOp::Write, -1, 0, 4096)
        }
    }

    fn engine(op: FileOp, dir: &Path, n: usize) -> FileOpsEngine {
        let o = EngineOptions {
            paths: (0..n).map(|i| dir.join(format!("f{i}"))).collect(),
            ..Default::default()
        };
        FileOpsEngine::new(op, &o)
    }

    #[test]
    fn the_first_io_to_each_file_in_a_pass_carries_the_operation() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine(FileOp::CreateFile, dir.path(), 2);
        let mut timed = Vec::new();
        for f in [0, 0, 1, 1] {
            let mut u = unit(f);
            assert_eq!(e.queue(0, &mut u), Queued::Completed);
            assert_eq!(u.result, 4096);
            timed.push(e.timed());
        }
        assert_eq!(timed, [true, false, true, false]);
        assert!(dir.path().join("f0").exists() && dir.path().join("f1").exists());
        e.new_pass();
        let mut u = unit(1);
        e.queue(0, &mut u);
        assert!(e.timed(), "a new pass operates again");
    }

    #[test]
    fn filecreate_keeps_at_most_openfiles_open() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = EngineOptions {
            paths: (0..5).map(|i| dir.path().join(format!("f{i}"))).collect(),
            ..Default::default()
        };
        o.local.openfiles = Some(2);
        let mut e = FileOpsEngine::new(FileOp::CreateFile, &o);
        for f in 0..5 {
            e.queue(0, &mut unit(f));
            assert!(e.open.len() <= 2);
        }
        assert_eq!(e.open.len(), 2);
        e.new_pass();
        assert!(e.open.is_empty());
    }

    #[test]
    fn a_failed_operation_is_the_ios_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine(FileOp::DeleteFile, dir.path(), 1);
        let mut u = unit(0);
        e.queue(0, &mut u);
        assert_eq!(u.result, -(libc::ENOENT as i64));
    }

    /// On a server every operation works beneath the root, and none reaches through
    /// a symlink to the outside (stat included: it would tell what exists there).
    #[test]
    fn confined_operations_stay_beneath_the_root() {
        let base = tempfile::tempdir().unwrap();
        let (root, out) = (base.path().join("root"), base.path().join("out"));
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("f0"), b"x").unwrap();
        let c = Arc::new(Confine::new(&[root.canonicalize().unwrap()]).unwrap());
        let run = |op, dir: &Path, stat_type| {
            let mut o = EngineOptions {
                paths: vec![dir.join("f0")],
                confine: Some(c.clone()),
                ..Default::default()
            };
            o.local.stat_type = stat_type;
            let mut e = FileOpsEngine::new(op, &o);
            let mut u = unit(0);
            e.queue(0, &mut u);
            u.result
        };
        let ok = 4096;
        assert_eq!(run(FileOp::CreateFile, &root, StatType::Stat), ok);
        for how in [StatType::Stat, StatType::Lstat, StatType::Statx] {
            assert_eq!(run(FileOp::StatFile, &root, how), ok);
        }
        assert_eq!(run(FileOp::DeleteFile, &root, StatType::Stat), ok);
        assert_eq!(run(FileOp::CreateDir, &root, StatType::Stat), ok);
        assert_eq!(run(FileOp::DeleteDir, &root, StatType::Stat), ok);
        assert!(!root.join("f0").exists());
        std::os::unix::fs::symlink(&out, root.join("sub")).unwrap();
        let sub = root.join("sub");
        for op in [FileOp::StatFile, FileOp::DeleteFile, FileOp::CreateFile] {
            assert!(run(op, &sub, StatType::Statx) < 0, "{op:?}");
        }
        assert!(run(FileOp::CreateDir, &root.join("sub/d"), StatType::Stat) < 0);
        assert_eq!(std::fs::read(out.join("f0")).unwrap(), b"x");
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
    }

    #[test]
    fn directories_are_made_stat_ed_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mut mk = engine(FileOp::CreateDir, dir.path(), 1);
        mk.queue(0, &mut unit(0));
        assert!(dir.path().join("f0").is_dir());
        for how in [StatType::Stat, StatType::Lstat, StatType::Statx] {
            assert!(stat(&dir.path().join("f0"), how).is_ok());
            assert!(stat(&dir.path().join("nothing"), how).is_err());
        }
        let mut rm = engine(FileOp::DeleteDir, dir.path(), 2);
        rm.setup(&[], &[]).unwrap();
        assert!(
            dir.path().join("f1").is_dir(),
            "setup makes the directories"
        );
        let mut u = unit(1);
        rm.queue(0, &mut u);
        assert_eq!(u.result, 4096);
        assert!(!dir.path().join("f1").exists());
    }
}
