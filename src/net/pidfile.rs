//! A server's pid file (`--pidfile=FILE`, `--daemonize=PIDFILE`, as fio's): refused
//! while it names a running process, written with the server's pid, and removed when
//! the server exits — only if it still holds that pid, so a successor's is kept.

use crate::sys::daemon;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct PidFile {
    path: PathBuf,
    pid: i32,
}

/// The pid a pid file holds, if it holds one.
fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Before starting: a pid file whose process runs means a server is already there
/// (fio: "pidfile exists and server appears alive"); a stale one is replaced.
pub fn check(path: &Path) -> Result<(), String> {
    match read_pid(path) {
        Some(pid) if pid != daemon::pid() && daemon::alive(pid) => Err(format!(
            "pid file {} exists and its server (pid {pid}) is running",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// Write this process's pid (a symlink in its place is refused, not followed).
pub fn write(path: &Path) -> Result<PidFile, String> {
    let pid = daemon::pid();
    let err = |e: std::io::Error| format!("cannot write pid file {}: {e}", path.display());
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(err)?;
    writeln!(f, "{pid}").map_err(err)?;
    Ok(PidFile {
        path: path.to_path_buf(),
        pid,
    })
}

impl PidFile {
    /// The file `path`, written by this process.
    pub fn ours(path: &Path) -> PidFile {
        PidFile {
            path: path.to_path_buf(),
            pid: daemon::pid(),
        }
    }

    /// Remove the file if it is still this server's.
    pub fn remove(&self) {
        if read_pid(&self.path) == Some(self.pid) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_checked_and_removed_only_while_it_is_ours() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("srv.pid");
        check(&p).unwrap();
        let f = write(&p).unwrap();
        assert_eq!(read_pid(&p), Some(daemon::pid()));
        // Our own pid is not "another server"; pid 1 always runs.
        check(&p).unwrap();
        std::fs::write(&p, "1\n").unwrap();
        assert!(check(&p).unwrap_err().contains("(pid 1) is running"));
        f.remove();
        assert!(p.exists(), "a successor's pid file is kept");
        std::fs::write(&p, format!("{}\n", daemon::pid())).unwrap();
        f.remove();
        assert!(!p.exists());
        // A stale file (no such process) is replaced.
        std::fs::write(&p, "2147483646\n").unwrap();
        check(&p).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), d.path().join("link")).unwrap();
        assert!(write(&d.path().join("link")).is_err());
        assert!(!d.path().join("elsewhere").exists());
    }
}
