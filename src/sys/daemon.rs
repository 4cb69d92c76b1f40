//! Backgrounding a server (`--daemonize`, as fio's): fork, a session of its own, the
//! standard streams on /dev/null. The parent waits until the child says it is ready
//! (its pid file written), so `ferrio --server --daemonize=P && cat P` always finds the
//! pid; a child that fails first makes the parent fail too.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;

/// Which side of the fork the caller is on.
pub enum Side {
    /// The original process: the child is ready (true) or failed (false). It should
    /// exit at once.
    Parent { ready: bool },
    /// The background process: ready, detached, streams on /dev/null.
    Child,
}

/// Fork into the background. Call it before any thread is started (only the calling
/// thread exists in the child). `ready` runs in the child before the parent is
/// released (e.g. to write the pid file); its error is printed on the inherited
/// stderr and fails both.
pub fn daemonize(ready: impl FnOnce() -> Result<(), String>) -> Result<Side, String> {
    let mut fds = [0i32; 2];
    // SAFETY: fds is an array of two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "--daemonize: pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (mut rx, mut tx) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
    // SAFETY: fork has no memory-safety preconditions; the caller forks before
    // starting threads, so the child is a whole copy of a one-thread process.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!(
            "--daemonize: fork: {}",
            std::io::Error::last_os_error()
        ));
    }
    if pid > 0 {
        drop(tx);
        let mut b = [0u8; 1];
        let ready = matches!(rx.read(&mut b), Ok(1) if b[0] == b'1');
        return Ok(Side::Parent { ready });
    }
    drop(rx);
    // SAFETY: setsid has no preconditions; it fails only for a group leader, which a
    // fresh child is not.
    unsafe { libc::setsid() };
    if let Err(e) = ready() {
        eprintln!("ferrio: {e}");
        std::process::exit(1);
    }
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .map_err(|e| format!("--daemonize: /dev/null: {e}"))?;
    for fd in 0..3 {
        // SAFETY: dup2 onto the standard descriptors, from a descriptor we own.
        if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), fd) } < 0 {
            return Err(format!(
                "--daemonize: dup2: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    let _ = tx.write_all(b"1");
    Ok(Side::Child)
}

/// Whether process `pid` exists (a pid file's owner still running).
pub fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// This process's id.
pub fn pid() -> i32 {
    std::process::id() as i32
}
