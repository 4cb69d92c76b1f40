//! Socket system calls for the network engines: sockets, options, addresses (IPv4,
//! IPv6, unix paths, AF_VSOCK CID and port), bounded waits, and the data calls in the
//! engines' `-errno` convention.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often a wait for a peer looks at the run's stop request.
pub const TICK: Duration = Duration::from_millis(200);

/// Where a socket binds or connects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    Inet(SocketAddr),
    Unix(std::path::PathBuf),
    /// AF_VSOCK: a context ID (VMADDR_CID_ANY to bind any) and a port.
    Vsock {
        cid: u32,
        port: u32,
    },
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

#[inline]
fn ret(r: isize) -> i64 {
    if r < 0 {
        -(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        r as i64
    }
}

/// A new socket (close-on-exec).
pub fn socket(domain: libc::c_int, kind: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: socket(2) takes no pointers; a non-negative result is a new descriptor
    // that nothing else owns.
    let fd = cvt(unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: `fd` was just returned by socket(2) and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// setsockopt(2) with an int value (a struct for the multicast options).
pub fn set_opt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: `value` is a live reference to size_of::<T>() readable bytes.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// IP_ADD_MEMBERSHIP: receive `group` on the interface with address `iface`.
pub fn join_multicast(fd: RawFd, group: Ipv4Addr, iface: Ipv4Addr) -> io::Result<()> {
    let mr = libc::ip_mreq {
        imr_multiaddr: in_addr(group),
        imr_interface: in_addr(iface),
    };
    set_opt(fd, libc::IPPROTO_IP, libc::IP_ADD_MEMBERSHIP, &mr)
}

/// IP_MULTICAST_IF: send multicast from the interface with address `iface`.
pub fn multicast_if(fd: RawFd, iface: Ipv4Addr) -> io::Result<()> {
    set_opt(fd, libc::IPPROTO_IP, libc::IP_MULTICAST_IF, &in_addr(iface))
}

fn in_addr(a: Ipv4Addr) -> libc::in_addr {
    libc::in_addr {
        s_addr: u32::from_ne_bytes(a.octets()),
    }
}

/// `addr` as a sockaddr for bind/connect/sendto.
fn raw(addr: &Addr) -> io::Result<(libc::sockaddr_storage, libc::socklen_t)> {
    // SAFETY: sockaddr_storage is plain data; all zeroes is a valid value.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        Addr::Inet(SocketAddr::V4(a)) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: in_addr(*a.ip()),
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_in.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        Addr::Inet(SocketAddr::V6(a)) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: a.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: a.ip().octets(),
                },
                sin6_scope_id: a.scope_id(),
            };
            // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_in6.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
        Addr::Vsock { cid, port } => {
            // SAFETY: plain data; all zeroes is valid.
            let mut svm: libc::sockaddr_vm = unsafe { std::mem::zeroed() };
            svm.svm_family = libc::AF_VSOCK as libc::sa_family_t;
            svm.svm_cid = *cid;
            svm.svm_port = *port;
            // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_vm.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), svm) };
            std::mem::size_of::<libc::sockaddr_vm>()
        }
        Addr::Unix(path) => {
            let bytes = path.as_os_str().as_encoded_bytes();
            // SAFETY: plain data; all zeroes is valid.
            let mut sun: libc::sockaddr_un = unsafe { std::mem::zeroed() };
            if bytes.len() >= sun.sun_path.len() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("unix socket path '{}' is too long", path.display()),
                ));
            }
            sun.sun_family = libc::AF_UNIX as libc::sa_family_t;
            for (d, s) in sun.sun_path.iter_mut().zip(bytes) {
                *d = *s as libc::c_char;
            }
            // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_un.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sun) };
            std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1
        }
    };
    Ok((ss, len as libc::socklen_t))
}

/// The IPv4/IPv6 address in `ss` (None for other families).
fn inet_of(ss: &libc::sockaddr_storage) -> Option<SocketAddr> {
    match ss.ss_family as libc::c_int {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in.
            let sin: &libc::sockaddr_in = unsafe { &*(ss as *const libc::sockaddr_storage).cast() };
            let ip = Ipv4Addr::from(sin.sin_addr.s_addr.to_ne_bytes());
            Some(SocketAddr::new(ip.into(), u16::from_be(sin.sin_port)))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6.
            let s: &libc::sockaddr_in6 = unsafe { &*(ss as *const libc::sockaddr_storage).cast() };
            let ip = std::net::Ipv6Addr::from(s.sin6_addr.s6_addr);
            Some(SocketAddr::new(ip.into(), u16::from_be(s.sin6_port)))
        }
        _ => None,
    }
}

pub fn bind(fd: RawFd, addr: &Addr) -> io::Result<()> {
    let (ss, len) = raw(addr)?;
    // SAFETY: `ss` holds a valid sockaddr of `len` bytes.
    cvt(unsafe { libc::bind(fd, (&ss as *const libc::sockaddr_storage).cast(), len) }).map(drop)
}

pub fn connect(fd: RawFd, addr: &Addr) -> io::Result<()> {
    let (ss, len) = raw(addr)?;
    // SAFETY: `ss` holds a valid sockaddr of `len` bytes.
    cvt(unsafe { libc::connect(fd, (&ss as *const libc::sockaddr_storage).cast(), len) }).map(drop)
}

pub fn listen(fd: RawFd, backlog: i32) -> io::Result<()> {
    // SAFETY: listen(2) takes no pointers.
    cvt(unsafe { libc::listen(fd, backlog) }).map(drop)
}

/// accept(2) a connection (close-on-exec).
pub fn accept(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: null address pointers are allowed: the peer's address is not wanted.
    let c = cvt(unsafe {
        libc::accept4(
            fd,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            libc::SOCK_CLOEXEC,
        )
    })?;
    // SAFETY: `c` is a new descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(c) })
}

/// Wait until `fd` is ready for `events` (POLLIN/POLLOUT); fail with ETIMEDOUT once
/// `deadline` passes (None: wait as long as it takes), or with EINTR once `stop` is
/// set (looked at every [`TICK`]).
pub fn wait(
    fd: RawFd,
    events: libc::c_short,
    deadline: Option<Instant>,
    stop: Option<&AtomicBool>,
) -> io::Result<()> {
    loop {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(io::Error::from_raw_os_error(libc::EINTR));
        }
        let mut slice = TICK;
        if let Some(d) = deadline {
            let left = d.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::from_raw_os_error(libc::ETIMEDOUT));
            }
            slice = slice.min(left);
        }
        let ms = slice.as_millis().max(1) as i32;
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Err(e);
        }
        if r > 0 {
            // Readiness, or an error/hangup that the next call will report.
            return Ok(());
        }
    }
}

/// Whether reading `fd` would not block now: data, end of stream or an error is
/// waiting (poll with no wait).
pub fn readable_now(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; a zero timeout returns at once.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    r > 0 && p.revents != 0
}

/// send(2) (never raising SIGPIPE): bytes sent or -errno.
#[inline]
pub fn send(fd: RawFd, buf: *const u8, len: usize, flags: libc::c_int) -> i64 {
    // SAFETY: the caller's buffer holds `len` readable bytes (IoUnit contract).
    ret(unsafe { libc::send(fd, buf.cast(), len, flags | libc::MSG_NOSIGNAL) })
}

/// recv(2): bytes received (0 at end of stream) or -errno.
#[inline]
pub fn recv(fd: RawFd, buf: *mut u8, len: usize, flags: libc::c_int) -> i64 {
    // SAFETY: the caller's buffer holds `len` writable bytes (IoUnit contract).
    ret(unsafe { libc::recv(fd, buf.cast(), len, flags) })
}

/// sendto(2) one datagram to `to`.
pub fn send_to(fd: RawFd, buf: *const u8, len: usize, to: &Addr) -> i64 {
    let Ok((ss, sl)) = raw(to) else {
        return -(libc::EINVAL as i64);
    };
    // SAFETY: `buf` holds `len` readable bytes; `ss` a sockaddr of `sl` bytes.
    ret(unsafe {
        libc::sendto(
            fd,
            buf.cast(),
            len,
            libc::MSG_NOSIGNAL,
            (&ss as *const libc::sockaddr_storage).cast(),
            sl,
        )
    })
}

/// recvfrom(2) one datagram: its length or -errno, and the sender's address.
pub fn recv_from(fd: RawFd, buf: *mut u8, len: usize) -> (i64, Option<SocketAddr>) {
    // SAFETY: plain data; all zeroes is valid.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut sl = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `buf` holds `len` writable bytes; `ss` has room for any address.
    let r = ret(unsafe {
        libc::recvfrom(
            fd,
            buf.cast(),
            len,
            0,
            (&mut ss as *mut libc::sockaddr_storage).cast(),
            &mut sl,
        )
    });
    (r, if r >= 0 { inet_of(&ss) } else { None })
}

/// A pipe (close-on-exec): (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    cvt(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both are new descriptors owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// splice(2) up to `len` bytes from `from` to `to` (one of them a pipe).
pub fn splice(from: RawFd, to: RawFd, len: usize) -> i64 {
    // SAFETY: null offsets: both ends use their own position (sockets, pipes).
    ret(unsafe {
        libc::splice(
            from,
            std::ptr::null_mut(),
            to,
            std::ptr::null_mut(),
            len,
            libc::SPLICE_F_MOVE,
        )
    })
}

/// vmsplice(2) `buf[..len]` into a pipe's write end, or out of its read end into
/// `buf` (the kernel copies in either direction).
pub fn vmsplice(pipe: RawFd, buf: *mut u8, len: usize) -> i64 {
    let iov = libc::iovec {
        iov_base: buf.cast(),
        iov_len: len,
    };
    // SAFETY: `buf` holds `len` bytes (IoUnit contract); one iovec.
    ret(unsafe { libc::vmsplice(pipe, &iov, 1, 0) })
}

/// Remove a stale unix socket before binding, as fio does — but only a socket: any
/// other file at that path is left alone (bind then fails with EADDRINUSE).
pub fn unlink_socket(path: &Path) {
    use std::os::unix::fs::FileTypeExt;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
        let _ = std::fs::remove_file(path);
    }
}

/// Grow a pipe to `bytes` (F_SETPIPE_SZ); returns its capacity afterwards.
pub fn grow_pipe(fd: RawFd, bytes: usize) -> usize {
    // SAFETY: fcntl(2) on a pipe we own; no pointers.
    let r = unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, bytes as libc::c_int) };
    if r > 0 {
        return r as usize;
    }
    // SAFETY: as above.
    let r = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    r.max(4096) as usize
}

/// The raw descriptor of an optional socket (-1 when none).
pub fn raw_fd(s: &Option<OwnedFd>) -> RawFd {
    s.as_ref().map_or(-1, |f| f.as_raw_fd())
}
