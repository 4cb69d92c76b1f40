//! lockfile=exclusive|readwrite: fio's per-file locks. A lock is held from an I/O's
//! preparation until the engine has taken it (fio's td_io_prep .. td_io_queue), so
//! with a synchronous engine I/Os to a file never overlap, and with an asynchronous
//! one their submissions do not.
//!
//! As in fio, an exclusive lock belongs to the file name and is shared by every job
//! with lockfile=exclusive that uses it; a read-write lock is shared by one job's
//! numjobs clones only (fio copies it to the clones' files, not through its file hash).

use super::plan::ThreadPlan;
use crate::engine::IoOp;
use ferrio_config::ext::dropin::LockMode;
use std::collections::HashMap;
use std::path::PathBuf;
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

/// Give every thread whose job has a lockfile mode its files' locks.
pub fn assign(threads: &mut [ThreadPlan]) {
    let mut exclusive: HashMap<PathBuf, Arc<FileLock>> = HashMap::new();
    let mut readwrite: HashMap<(usize, PathBuf), Arc<FileLock>> = HashMap::new();
    for t in threads.iter_mut() {
        let mode = t.spec.dropin.lockfile;
        if mode == LockMode::None {
            continue;
        }
        let locks = t
            .files
            .iter()
            .map(|f| match mode {
                LockMode::ReadWrite => readwrite
                    .entry((t.job_index, f.path.clone()))
                    .or_insert_with(|| Arc::new(FileLock::ReadWrite(RwLock::new(()))))
                    .clone(),
                _ => exclusive
                    .entry(f.path.clone())
                    .or_insert_with(|| Arc::new(FileLock::Exclusive(Mutex::new(()))))
                    .clone(),
            })
            .collect();
        t.file_locks = ThreadLocks(locks);
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

    fn plans(text: &str) -> Vec<ThreadPlan> {
        use ferrio_config::builder::Overrides;
        use ferrio_config::jobfile::{parse_text, Env};
        let sections = parse_text(text, std::path::Path::new("t.fio"), &Env::system()).unwrap();
        let jobs = ferrio_config::session::assemble(&[], &[sections], &[], &Overrides::default())
            .unwrap()
            .jobs;
        crate::runner::plan::plan(&jobs).unwrap()
    }

    fn same(a: &ThreadLocks, b: &ThreadLocks) -> bool {
        Arc::ptr_eq(&a.0[0], &b.0[0])
    }

    #[test]
    fn exclusive_locks_follow_the_name_and_readwrite_locks_the_job() {
        let g = "[global]\nioengine=null\nsize=64k\nfilename=/nonexistent/lk\n";
        let t = plans(&format!(
            "{g}[a]\nlockfile=exclusive\nnumjobs=2\n[b]\nlockfile=exclusive\n[c]\nlockfile=readwrite\nnumjobs=2\n[d]\nlockfile=readwrite\n[e]\n"
        ));
        let l: Vec<&ThreadLocks> = t.iter().map(|t| &t.file_locks).collect();
        assert_eq!(l.len(), 7);
        assert!(
            same(l[0], l[1]) && same(l[0], l[2]),
            "exclusive: one lock per name"
        );
        assert!(same(l[3], l[4]), "readwrite: the clones share");
        assert!(
            !same(l[3], l[5]) && !same(l[0], l[3]),
            "readwrite: not other jobs"
        );
        assert!(l[6].is_empty(), "lockfile=none takes no lock");
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
