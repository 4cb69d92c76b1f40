//! lockfile=exclusive|readwrite: fio's per-file locks. A lock is held from an I/O's
//! preparation until the engine has taken it (fio's td_io_prep .. td_io_queue), so
//! with a synchronous engine I/Os to a file never overlap, and with an asynchronous
//! one their submissions do not.
//!
//! As in fio, an exclusive lock belongs to the file name and is shared by every job
//! with lockfile=exclusive that uses it; a read-write lock is shared by one job's
//! numjobs clones only (fio copies it to the clones' files, not through its file hash).

use crate::engine::IoOp;
use ferrio_config::ext::dropin::LockMode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// One file's lock.
enum FileLock {
    Exclusive(Mutex<()>),
    ReadWrite(RwLock<()>),
}

/// A thread's locks, by file index (empty: no locking).
#[derive(Clone, Default)]
pub struct ThreadLocks(Vec<Arc<FileLock>>);

/// What an I/O holds while it is submitted.
pub enum Held<'a> {
    Nothing,
    Exclusive(#[allow(dead_code)] MutexGuard<'a, ()>),
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

impl std::fmt::Debug for ThreadLocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ThreadLocks({} files)", self.0.len())
    }
}

impl ThreadLocks {
    /// Take file `file`'s lock for an I/O of kind `op` (reads share a read-write
    /// lock; writes, trims and syncs take it alone). A lock a panicking thread left
    /// poisoned still serializes, so its guard is used as is.
    #[inline]
    pub fn hold(&self, file: usize, op: IoOp) -> Held<'_> {
        match self.0.get(file).map(|l| &**l) {
            None => Held::Nothing,
            Some(FileLock::Exclusive(m)) => {
                Held::Exclusive(m.lock().unwrap_or_else(|p| p.into_inner()))
            }
            Some(FileLock::ReadWrite(l)) if op == IoOp::Read => {
                Held::Read(l.read().unwrap_or_else(|p| p.into_inner()))
            }
            Some(FileLock::ReadWrite(l)) => {
                Held::Write(l.write().unwrap_or_else(|p| p.into_inner()))
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The run's locks: exclusive ones by file name, read-write ones by (job, name).
#[derive(Default)]
pub struct Registry {
    exclusive: HashMap<PathBuf, Arc<FileLock>>,
    readwrite: HashMap<(usize, PathBuf), Arc<FileLock>>,
}

impl Registry {
    /// The locks of one thread of job `job_index` with lockfile=`mode` over `paths`
    /// (its files in order); empty for `none`.
    pub fn for_thread<'p>(
        &mut self,
        mode: LockMode,
        job_index: usize,
        paths: impl Iterator<Item = &'p Path>,
    ) -> ThreadLocks {
        if mode == LockMode::None {
            return ThreadLocks::default();
        }
        let locks = paths
            .map(|p| match mode {
                LockMode::ReadWrite => self
                    .readwrite
                    .entry((job_index, p.to_path_buf()))
                    .or_insert_with(|| Arc::new(FileLock::ReadWrite(RwLock::new(()))))
                    .clone(),
                _ => self
                    .exclusive
                    .entry(p.to_path_buf())
                    .or_insert_with(|| Arc::new(FileLock::Exclusive(Mutex::new(()))))
                    .clone(),
            })
            .collect();
        ThreadLocks(locks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_share_a_readwrite_lock_and_writers_do_not() {
        let l = ThreadLocks(vec![Arc::new(FileLock::ReadWrite(RwLock::new(())))]);
        let a = l.hold(0, IoOp::Read);
        let b = l.hold(0, IoOp::Read);
        assert!(matches!((&a, &b), (Held::Read(_), Held::Read(_))));
        if let Some(FileLock::ReadWrite(rw)) = l.0.first().map(|x| &**x) {
            assert!(rw.try_write().is_err(), "a writer got in beside readers");
            drop((a, b));
            let w = l.hold(0, IoOp::Write);
            assert!(rw.try_read().is_err(), "a reader got in beside a writer");
            drop(w);
        }
        assert!(matches!(l.hold(1, IoOp::Write), Held::Nothing));
    }

    fn same(a: &ThreadLocks, b: &ThreadLocks) -> bool {
        Arc::ptr_eq(&a.0[0], &b.0[0])
    }

    #[test]
    fn exclusive_locks_follow_the_name_and_readwrite_locks_the_job() {
        let f = [Path::new("/x/f")];
        let mut r = Registry::default();
        let mut t = |mode, job| r.for_thread(mode, job, f.iter().copied());
        let (a0, a1, b) = (
            t(LockMode::Exclusive, 0),
            t(LockMode::Exclusive, 0),
            t(LockMode::Exclusive, 1),
        );
        let (c0, c1, d) = (
            t(LockMode::ReadWrite, 2),
            t(LockMode::ReadWrite, 2),
            t(LockMode::ReadWrite, 3),
        );
        assert!(
            same(&a0, &a1) && same(&a0, &b),
            "exclusive: one lock per name"
        );
        assert!(same(&c0, &c1), "readwrite: the clones share");
        assert!(
            !same(&c0, &d) && !same(&a0, &c0),
            "readwrite: not other jobs"
        );
        assert!(
            t(LockMode::None, 4).is_empty(),
            "lockfile=none takes no lock"
        );
    }

    #[test]
    fn an_exclusive_lock_admits_one_io() {
        let l = ThreadLocks(vec![Arc::new(FileLock::Exclusive(Mutex::new(())))]);
        let g = l.hold(0, IoOp::Read);
        if let Some(FileLock::Exclusive(m)) = l.0.first().map(|x| &**x) {
            assert!(m.try_lock().is_err());
            drop(g);
            assert!(m.try_lock().is_ok());
        }
    }
}
