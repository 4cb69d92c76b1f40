//! Backgrounding a server (`--daemonize`, as fio's): fork, a session of its own,
//! standard input on /dev/null, standard output and error on two pipes whose other
//! ends the caller reads (src/net/daemon_log.rs sends their lines to syslog). The parent waits until the child says it is ready
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
    /// The background process: ready, detached; what it writes on its standard
    /// output and error comes out of these (their read ends).
    Child { stdout: File, stderr: File },
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
        .open("/dev/null")
        .map_err(|e| format!("--daemonize: /dev/null: {e}"))?;
    let (stdout, out_w) = pipe()?;
    let (stderr, err_w) = pipe()?;
    for (from, fd) in [(&null, 0), (&out_w, 1), (&err_w, 2)] {
        // SAFETY: dup2 onto the standard descriptors, from a descriptor we own.
        if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(from), fd) } < 0 {
            return Err(format!(
                "--daemonize: dup2: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    let _ = tx.write_all(b"1");
    Ok(Side::Child { stdout, stderr })
}

/// A pipe: (read end, write end), both close-on-exec (the dup2 copies are not).
fn pipe() -> Result<(File, File), String> {
    let mut fds = [0i32; 2];
    // SAFETY: fds is an array of two ints for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "--daemonize: pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
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
