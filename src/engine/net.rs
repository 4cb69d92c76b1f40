//! `ioengine=net` and `netsplice`: each I/O is a send or a receive on a socket — TCP
//! (IPv4/IPv6), UDP (unicast or IPv4 multicast) or a unix stream socket — as fio
//! 3.33's engines/net.c. A receiving job (listen, or a UDP/unix reader) and a sending
//! job usually run in one job file (fio's examples/netio.fio). The wire is fio's, so
//! ferrio and fio talk to each other: plain payload, plus fio's 8-byte link messages —
//! "open" (big-endian) that a UDP sender sends first, and "close" (little-endian) that
//! a writer sends when it is done, which ends the reader's job. A UDP payload of 24
//! bytes or more carries fio's sequence trailer in its last 24 bytes.
//!
//! The connection is made in `setup`, before the job's clock starts, so the wait for
//! the peer is not measured (fio resets the stats after accept). `net_timeout` bounds
//! every wait for the peer.

use super::registry::Entry;
use super::{Capabilities, DepthLimit, EngineOptions, IoEngine, IoOp, IoUnit, Queued};
use crate::sys::net::{self as sock, Addr};
use ferrio_config::ext::net::{is_multicast, NetSpec, Proto};
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// fio's FIO_SYNCIO | FIO_DISKLESSIO: every queue completes, no files.
const CAPS: Capabilities = Capabilities {
    synchronous: true,
    diskless: true,
    fills_buffers: true,
    virtual_time: false,
    depth_limit: DepthLimit::None,
    queues_when_deep: false,
    prepopulates: false,
    maps_files: false,
    aligned_buffers: false,
    no_extend: false,
    accounting: super::Accounting::Data,
};

pub const NET: Entry = Entry {
    name: "net",
    help: "TCP, UDP or unix socket I/O (hostname, port, listen; docs/engines.md)",
    caps: CAPS,
    create: |o| Ok(Box::new(NetEngine::new(o, false)?)),
};

pub const NETSPLICE: Entry = Entry {
    name: "netsplice",
    help: "like net, moving data with splice(2) and vmsplice(2)",
    caps: CAPS,
    create: |o| Ok(Box::new(NetEngine::new(o, true)?)),
};

/// fio's link messages: magic and commands.
const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_OPEN: u32 = 0x98;
const LINK_CLOSE: u32 = 0x89;
/// fio's UDP sequence trailer: magic, sequence number, datagram size (little-endian).
const SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;
const SEQ_LEN: usize = 24;

/// fio's sequence trailer for datagram `seq` of `len` bytes.
fn seq_trailer(seq: u64, len: usize) -> [u8; SEQ_LEN] {
    let mut t = [0u8; SEQ_LEN];
    t[..8].copy_from_slice(&SEQ_MAGIC.to_le_bytes());
    t[8..16].copy_from_slice(&seq.to_le_bytes());
    t[16..].copy_from_slice(&(len as u64).to_le_bytes());
    t
}

/// A UDP reader's count of lost datagrams, from the senders' sequence trailers (fio's
/// verify_udp_seq): a gap in the sequence is that many datagrams dropped. A datagram
/// whose trailer names another size turns the check off (the sender is not fio-like).
#[derive(Debug, Default)]
struct SeqCheck {
    expected: u64,
    off: bool,
    dropped: u64,
}

impl SeqCheck {
    fn datagram(&mut self, d: &[u8]) {
        if self.off || d.len() < SEQ_LEN {
            return;
        }
        let t = &d[d.len() - SEQ_LEN..];
        let word = |i: usize| u64::from_le_bytes(t[i..i + 8].try_into().expect("8 bytes"));
        if word(0) != SEQ_MAGIC {
            return;
        }
        if word(16) != d.len() as u64 {
            self.off = true;
            return;
        }
        let seq = word(8);
        self.dropped += seq.saturating_sub(self.expected);
        self.expected = seq + 1;
    }
}

fn link_msg(cmd: u32, big_endian: bool) -> [u8; 8] {
    let mut m = [0; 8];
    let (a, b) = if big_endian {
        (LINK_MAGIC.to_be_bytes(), cmd.to_be_bytes())
    } else {
        (LINK_MAGIC.to_le_bytes(), cmd.to_le_bytes())
    };
    m[..4].copy_from_slice(&a);
    m[4..].copy_from_slice(&b);
    m
}

pub struct NetEngine {
    net: NetSpec,
    job: String,
    /// port= plus the clone number (fio's subjob_number).
    port: u16,
    reads: bool,
    writes: bool,
    /// netsplice: the pipe data passes through (read end, write end).
    pipe: Option<(OwnedFd, OwnedFd)>,
    /// The connected (or, for UDP, bound) socket.
    sock: Option<OwnedFd>,
    /// UDP: where datagrams go (a sender's target; a reader's sender, for pingpong).
    peer: Option<Addr>,
    timeout: Option<Duration>,
    /// The run's stop request: every wait for the peer looks at it.
    stop: Option<Arc<AtomicBool>>,
    /// netsplice: the most bytes one I/O moves through the pipe (half its capacity,
    /// so a vmsplice of an unaligned buffer never waits for room).
    chunk: usize,
    send_seq: u64,
    /// A UDP reader's lost-datagram count.
    seq: SeqCheck,
    /// Bytes the job sends (its size; unbounded without one) and has sent, for MSG_MORE.
    size: u64,
    written: u64,
}

mod vsock;
use vsock::vsock_cid;

fn err(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl NetEngine {
    pub fn new(o: &EngineOptions, splice: bool) -> Result<NetEngine, String> {
        let port = o.net.port
            + if o.net.proto == Proto::Unix {
                0
            } else {
                o.clone
            };
        let port = u16::try_from(port)
            .map_err(|_| format!("port {port} is out of range (port= plus the numjobs clone)"))?;
        let pipe = if splice {
            Some(sock::pipe().map_err(|e| format!("netsplice: pipe: {e}"))?)
        } else {
            None
        };
        let chunk = pipe.as_ref().map_or(usize::MAX, |(_, w)| {
            sock::grow_pipe(w.as_raw_fd(), 1 << 20) / 2
        });
        Ok(NetEngine {
            net: o.net.clone(),
            job: o.job.clone(),
            port,
            reads: o.directions[0],
            writes: o.directions[1],
            pipe,
            sock: None,
            peer: None,
            timeout: (o.net.timeout_us > 0).then(|| Duration::from_micros(o.net.timeout_us)),
            stop: o.stop.clone(),
            chunk,
            send_seq: 0,
            seq: SeqCheck::default(),
            size: if o.sized {
                o.regions.iter().map(|r| r.end - r.start).sum()
            } else {
                u64::MAX
            },
            written: 0,
        })
    }

    fn deadline(&self) -> Option<Instant> {
        self.timeout.map(|t| Instant::now() + t)
    }

    fn fd(&self) -> RawFd {
        sock::raw_fd(&self.sock)
    }

    fn domain(&self) -> (libc::c_int, libc::c_int) {
        let p = self.net.proto;
        let domain = match p {
            Proto::Unix => libc::AF_UNIX,
            Proto::Vsock => libc::AF_VSOCK,
            _ if p.is_v6() => libc::AF_INET6,
            _ => libc::AF_INET,
        };
        let kind = if p.is_udp() {
            libc::SOCK_DGRAM
        } else {
            libc::SOCK_STREAM
        };
        (domain, kind)
    }

    /// window_size and mss, as fio sets them (receive and/or send buffer by role).
    fn tune(&self, fd: RawFd) -> io::Result<()> {
        let n = &self.net;
        if n.window_size > 0 {
            let w = n.window_size as libc::c_int;
            if n.listen || n.pingpong {
                sock::set_opt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &w)
                    .map_err(|e| err(e, "window_size (SO_RCVBUF)"))?;
            }
            if !n.listen || n.pingpong {
                sock::set_opt(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, &w)
                    .map_err(|e| err(e, "window_size (SO_SNDBUF)"))?;
            }
        }
        if n.mss > 0 && n.proto.is_tcp() {
            let m = n.mss as libc::c_int;
            sock::set_opt(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, &m)
                .map_err(|e| err(e, "mss (TCP_MAXSEG)"))?;
        }
        Ok(())
    }

    /// nodelay, and net_timeout as the socket's send and receive timeouts, so no
    /// transfer blocks longer than that (and no extra system call per I/O).
    fn connected(&mut self, fd: OwnedFd) -> io::Result<()> {
        if self.net.nodelay && self.net.proto.is_tcp() {
            sock::set_opt(
                fd.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                &1 as &libc::c_int,
            )
            .map_err(|e| err(e, "nodelay (TCP_NODELAY)"))?;
        }
        // Blocking transfers wake every tick (or net_timeout, if shorter) to look at
        // the stop request and the timeout; a transfer that moves data never does.
        let t = self.timeout.map_or(sock::TICK, |t| t.min(sock::TICK));
        let tv = libc::timeval {
            tv_sec: t.as_secs() as libc::time_t,
            tv_usec: t.subsec_micros() as libc::suseconds_t,
        };
        sock::set_opt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVTIMEO, &tv)?;
        sock::set_opt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDTIMEO, &tv)?;
        self.sock = Some(fd);
        Ok(())
    }

    /// The receiving end: bind (join a multicast group), then accept a connection or
    /// wait for a UDP sender's open message.
    fn listen(&mut self) -> io::Result<()> {
        let (domain, kind) = self.domain();
        let fd = sock::socket(domain, kind).map_err(|e| err(self.vsock_hint(e), "socket"))?;
        let raw = fd.as_raw_fd();
        let addr = if self.net.proto == Proto::Unix {
            let path = std::path::PathBuf::from(self.net.hostname.clone().unwrap_or_default());
            sock::unlink_socket(&path);
            Addr::Unix(path)
        } else {
            let one: libc::c_int = 1;
            sock::set_opt(raw, libc::SOL_SOCKET, libc::SO_REUSEADDR, &one)?;
            if self.net.proto == Proto::Vsock {
                // fio: any CID of this machine, SO_REUSEADDR only.
                Addr::Vsock {
                    cid: libc::VMADDR_CID_ANY,
                    port: self.port.into(),
                }
            } else {
                sock::set_opt(raw, libc::SOL_SOCKET, libc::SO_REUSEPORT, &one)?;
                self.tune(raw)?;
                let group = self.net.hostname.as_deref().filter(|h| is_multicast(h));
                let ip = match group {
                    Some(g) => {
                        let g: Ipv4Addr = g.parse().expect("checked multicast address");
                        let iface = self.net.interface.unwrap_or(Ipv4Addr::UNSPECIFIED);
                        sock::join_multicast(raw, g, iface)
                            .map_err(|e| err(e, "IP_ADD_MEMBERSHIP"))?;
                        g.into()
                    }
                    None if self.net.proto.is_v6() => Ipv6Addr::UNSPECIFIED.into(),
                    None => Ipv4Addr::UNSPECIFIED.into(),
                };
                Addr::Inet(SocketAddr::new(ip, self.port))
            }
        };
        sock::bind(raw, &addr)
            .map_err(|e| err(self.vsock_hint(e), &format!("bind {}", self.where_())))?;
        if self.net.proto.is_udp() {
            self.connected(fd)?;
            return self.await_open();
        }
        sock::listen(raw, 10).map_err(|e| err(e, "listen"))?;
        sock::wait(raw, libc::POLLIN, self.deadline(), self.stop.as_deref())
            .map_err(|e| self.no_peer(e, "connection"))?;
        let c = sock::accept(raw).map_err(|e| err(e, "accept"))?;
        self.connected(c)
    }

    /// A UDP reader waits for the sender's open message, and learns its address.
    fn await_open(&mut self) -> io::Result<()> {
        sock::wait(
            self.fd(),
            libc::POLLIN,
            self.deadline(),
            self.stop.as_deref(),
        )
        .map_err(|e| self.no_peer(e, "UDP sender"))?;
        let mut m = [0u8; 64];
        let (n, from) = sock::recv_from(self.fd(), m.as_mut_ptr(), m.len());
        if n < 0 {
            return Err(err(
                io::Error::from_raw_os_error(-n as i32),
                "recvfrom (link open)",
            ));
        }
        if n == 8 && m[..8] == link_msg(LINK_OPEN, true) {
            self.peer = from.map(Addr::Inet);
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("bad UDP link-open message ({n} bytes) from {from:?}"),
        ))
    }

    /// The sending end: resolve the peer, connect (TCP, unix) or send the open
    /// message (UDP).
    fn connect(&mut self) -> io::Result<()> {
        let host = self.net.hostname.clone().unwrap_or_default();
        let addr = if self.net.proto == Proto::Unix {
            Addr::Unix(host.clone().into())
        } else if self.net.proto == Proto::Vsock {
            Addr::Vsock {
                cid: vsock_cid(&host)?,
                port: self.port.into(),
            }
        } else {
            let v6 = self.net.proto.is_v6();
            let found = (host.as_str(), self.port)
                .to_socket_addrs()
                .map_err(|e| err(e, &format!("resolve '{host}'")))?
                .find(|a| a.is_ipv6() == v6);
            Addr::Inet(found.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "'{host}' has no {} address",
                        if v6 { "IPv6" } else { "IPv4" }
                    ),
                )
            })?)
        };
        let (domain, kind) = self.domain();
        let fd = sock::socket(domain, kind).map_err(|e| err(self.vsock_hint(e), "socket"))?;
        let raw = fd.as_raw_fd();
        self.tune(raw)?;
        if self.net.proto.is_udp() {
            if is_multicast(&host) {
                if let Some(i) = self.net.interface {
                    sock::multicast_if(raw, i).map_err(|e| err(e, "IP_MULTICAST_IF"))?;
                }
                let ttl = self.net.ttl as libc::c_int;
                sock::set_opt(raw, libc::IPPROTO_IP, libc::IP_MULTICAST_TTL, &ttl)
                    .map_err(|e| err(e, "IP_MULTICAST_TTL"))?;
            }
            self.connected(fd)?;
            let m = link_msg(LINK_OPEN, true);
            let r = sock::send_to(self.fd(), m.as_ptr(), m.len(), &addr);
            self.peer = Some(addr);
            return if r < 0 {
                Err(err(
                    io::Error::from_raw_os_error(-r as i32),
                    "sendto (link open)",
                ))
            } else {
                Ok(())
            };
        }
        // With net_timeout, a receiver that is not listening yet is waited for; without
        // it a refused connection fails at once, as fio's.
        let deadline = self.deadline();
        let mut fd = fd;
        loop {
            let e = match sock::connect(fd.as_raw_fd(), &addr) {
                Ok(()) => return self.connected(fd),
                Err(e) => e,
            };
            // (vsock answers a port nobody listens on with a reset.)
            let vsock = self.net.proto == Proto::Vsock;
            let not_yet = matches!(e.raw_os_error(), Some(libc::ECONNREFUSED | libc::ENOENT))
                || (vsock && e.raw_os_error() == Some(libc::ECONNRESET));
            let stopped = self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed));
            let expired = match deadline {
                Some(d) => Instant::now() >= d,
                None => true,
            };
            if !not_yet || stopped || expired {
                let late = if deadline.is_some() && not_yet {
                    " (until net_timeout)"
                } else {
                    ""
                };
                let e = self.vsock_hint(e);
                return Err(err(e, &format!("connect to {}{late}", self.where_())));
            }
            std::thread::sleep(Duration::from_millis(50));
            fd = sock::socket(domain, kind).map_err(|e| err(e, "socket"))?;
            self.tune(fd.as_raw_fd())?;
        }
    }

    /// The peer, for messages: "127.0.0.1 port 8888 (tcp)".
    fn where_(&self) -> String {
        let host = self.net.hostname.as_deref().unwrap_or("any address");
        match self.net.proto {
            Proto::Unix => format!("unix socket {host}"),
            Proto::Vsock => format!(
                "vsock CID {} port {}",
                self.net.hostname.as_deref().unwrap_or("any"),
                self.port
            ),
            p => format!(
                "{host} port {} ({})",
                self.port,
                format!("{p:?}").to_lowercase()
            ),
        }
    }

    fn no_peer(&self, e: io::Error, what: &str) -> io::Error {
        if e.raw_os_error() == Some(libc::ETIMEDOUT) {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "job '{}': no {what} on {} within net_timeout={}s",
                    self.job,
                    self.where_(),
                    self.timeout.map_or(0.0, |t| t.as_secs_f64())
                ),
            )
        } else if e.raw_os_error() == Some(libc::EINTR) {
            io::Error::new(
                io::ErrorKind::Interrupted,
                format!(
                    "job '{}': stopped while waiting for a {what} on {}",
                    self.job,
                    self.where_()
                ),
            )
        } else {
            err(e, "poll")
        }
    }

    /// Send `len` bytes of `buf`: bytes sent or -errno.
    fn send_once(&mut self, buf: *mut u8, len: usize) -> i64 {
        let fd = self.fd();
        let r = if self.net.proto.is_udp() {
            if len >= SEQ_LEN {
                let t = seq_trailer(self.send_seq, len);
                self.send_seq += 1;
                // SAFETY: the unit's buffer holds `len` writable bytes (IoUnit contract).
                unsafe {
                    std::ptr::copy_nonoverlapping(t.as_ptr(), buf.add(len - SEQ_LEN), SEQ_LEN)
                };
            }
            match &self.peer {
                Some(p) => sock::send_to(fd, buf, len, p),
                None => -(libc::ENOTCONN as i64),
            }
        } else if let (Some((rd, wr)), true) = (&self.pipe, self.net.proto.is_tcp()) {
            let n = sock::vmsplice(wr.as_raw_fd(), buf, len.min(self.chunk));
            if n > 0 {
                splice_all(rd.as_raw_fd(), fd, n as usize, self.stop.as_deref())
            } else {
                n
            }
        } else {
            // More is coming (fio's MSG_MORE): let the kernel fill whole segments;
            // the last block of the job, or a ping, goes out at once.
            let more = !self.net.pingpong && self.written + (len as u64) < self.size;
            let r = sock::send(fd, buf, len, if more { libc::MSG_MORE } else { 0 });
            if r > 0 {
                self.written += r as u64;
            }
            r
        };
        r
    }

    /// Receive up to `len` bytes into `buf`: bytes, 0 when the peer ended the
    /// stream (its close message, or the end of a stream), or -errno.
    fn recv_once(&mut self, buf: *mut u8, len: usize) -> i64 {
        let fd = self.fd();
        let r = if self.net.proto.is_udp() {
            let (n, from) = sock::recv_from(fd, buf, len);
            if n >= 0 && self.net.listen {
                if let Some(f) = from {
                    self.peer = Some(Addr::Inet(f));
                }
                // SAFETY: the kernel just wrote `n` bytes into the unit's buffer.
                self.seq
                    .datagram(unsafe { std::slice::from_raw_parts(buf, n as usize) });
            }
            n
        } else if let (Some((rd, wr)), true) = (&self.pipe, self.net.proto.is_tcp()) {
            let n = sock::splice(fd, wr.as_raw_fd(), len.min(self.chunk));
            if n > 0 {
                vmsplice_all(rd.as_raw_fd(), buf, n as usize)
            } else {
                n
            }
        } else {
            sock::recv(fd, buf, len, 0)
        };
        if r == 8 {
            // SAFETY: 8 bytes were just received into the buffer.
            let got = unsafe { std::slice::from_raw_parts(buf, 8) };
            if got == link_msg(LINK_CLOSE, false) {
                return 0;
            }
        }
        r
    }

    /// Send, waiting for room as long as net_timeout allows (and no stop request).
    fn send(&mut self, buf: *mut u8, len: usize) -> i64 {
        let mut waited = Duration::ZERO;
        loop {
            let r = self.send_once(buf, len);
            if let Some(r) = self.patience(r, &mut waited) {
                return r;
            }
        }
    }

    /// Receive, waiting for data as long as net_timeout allows (and no stop request).
    fn recv(&mut self, buf: *mut u8, len: usize) -> i64 {
        let mut waited = Duration::ZERO;
        loop {
            let r = self.recv_once(buf, len);
            if let Some(r) = self.patience(r, &mut waited) {
                return r;
            }
        }
    }

    /// After a transfer: its result, or None to try again after a socket-timeout
    /// tick (EAGAIN) — ETIMEDOUT once net_timeout has passed, EINTR on a stop request.
    fn patience(&self, r: i64, waited: &mut Duration) -> Option<i64> {
        if r != -(libc::EAGAIN as i64) {
            return Some(r);
        }
        if self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return Some(-(libc::EINTR as i64));
        }
        *waited += self.timeout.map_or(sock::TICK, |t| t.min(sock::TICK));
        match self.timeout {
            Some(t) if *waited >= t => Some(-(libc::ETIMEDOUT as i64)),
            _ => None,
        }
    }

    /// Complete the rest of a pingpong echo (the reply must be whole).
    fn all(&mut self, write: bool, buf: *mut u8, len: usize) -> i64 {
        let mut done = 0;
        while done < len {
            // SAFETY: `done < len`, inside the unit's buffer.
            let p = unsafe { buf.add(done) };
            let r = if write {
                self.send(p, len - done)
            } else {
                self.recv(p, len - done)
            };
            if r <= 0 {
                return if r == 0 {
                    -(libc::ECONNRESET as i64)
                } else {
                    r
                };
            }
            done += r as usize;
            if self.net.proto.is_udp() {
                break;
            }
        }
        done as i64
    }
}

/// splice `len` bytes out of the pipe (what vmsplice just put there): all of them,
/// or the pipe would hold stale data — so a full socket is waited for (until a stop
/// request).
fn splice_all(pipe: RawFd, to: RawFd, len: usize, stop: Option<&AtomicBool>) -> i64 {
    let mut done = 0;
    while done < len {
        let r = sock::splice(pipe, to, len - done);
        if r == -(libc::EAGAIN as i64) && !stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            continue;
        }
        if r <= 0 {
            return if done > 0 { done as i64 } else { r };
        }
        done += r as usize;
    }
    done as i64
}

/// vmsplice `len` bytes out of the pipe (what splice just put there) into `buf`.
fn vmsplice_all(pipe: RawFd, buf: *mut u8, len: usize) -> i64 {
    let mut done = 0;
    while done < len {
        // SAFETY: `done < len` <= the unit's length: inside its buffer.
        let r = sock::vmsplice(pipe, unsafe { buf.add(done) }, len - done);
        if r <= 0 {
            return if done > 0 { done as i64 } else { r };
        }
        done += r as usize;
    }
    done as i64
}

impl IoEngine for NetEngine {
    fn dropped(&self) -> [u64; 3] {
        [self.seq.dropped, 0, 0]
    }

    fn setup(&mut self, _fds: &[RawFd], _buffers: &[(*mut u8, usize)]) -> io::Result<()> {
        if self.net.listen {
            self.listen()
        } else {
            self.connect()
        }
    }

    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        let write = match u.op {
            IoOp::Read => false,
            IoOp::Write => true,
            // fsync and friends: nothing to do on a socket.
            _ => {
                u.result = 0;
                return Queued::Completed;
            }
        };
        // UDP has one direction per end (fio's prep check).
        if self.net.proto.is_udp() && write == self.net.listen {
            u.result = -(libc::EINVAL as i64);
            return Queued::Completed;
        }
        let r = if write {
            self.send(u.buf, u.len)
        } else {
            self.recv(u.buf, u.len)
        };
        if r == 0 && !write {
            return Queued::Ended;
        }
        u.result = r;
        // pingpong: the reader sends back what it got; the writer waits for it.
        if r > 0 && self.net.pingpong && ((write && self.writes) || (!write && self.reads)) {
            let back = self.all(!write, u.buf, r as usize);
            if back < 0 {
                u.result = back;
            }
        }
        Queued::Completed
    }
}

impl Drop for NetEngine {
    /// A writer tells the reader it is done (fio's close message).
    fn drop(&mut self) {
        if !self.writes || self.sock.is_none() {
            return;
        }
        let m = link_msg(LINK_CLOSE, false);
        let fd = self.fd();
        match &self.peer {
            Some(p) if self.net.proto.is_udp() => {
                sock::send_to(fd, m.as_ptr(), m.len(), p);
            }
            _ => {
                sock::send(fd, m.as_ptr(), m.len(), 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datagram(seq: u64, len: usize) -> Vec<u8> {
        let mut d = vec![0xa5; len];
        d[len - SEQ_LEN..].copy_from_slice(&seq_trailer(seq, len));
        d
    }

    #[test]
    fn the_sequence_trailer_has_fios_layout() {
        // struct udp_seq { le64 magic; le64 seq; le64 bs; } at the datagram's end.
        let t = seq_trailer(5, 1024);
        assert_eq!(&t[..8], b"ceUnquse".as_slice());
        assert_eq!(t[8..16], [5, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(t[16..], [0, 4, 0, 0, 0, 0, 0, 0]);
        // Link messages: open is big-endian, close little-endian, as fio sends them.
        assert_eq!(
            link_msg(LINK_OPEN, true),
            [0x6c, 0x69, 0x6e, 0x6b, 0, 0, 0, 0x98]
        );
        assert_eq!(
            link_msg(LINK_CLOSE, false),
            [0x6b, 0x6e, 0x69, 0x6c, 0x89, 0, 0, 0]
        );
    }

    #[test]
    fn gaps_in_the_sequence_count_as_dropped_datagrams() {
        let mut c = SeqCheck::default();
        for seq in [0, 1, 4, 5, 9] {
            c.datagram(&datagram(seq, 64));
        }
        assert_eq!(c.dropped, 2 + 3);
        // Too short for a trailer, or no magic: not looked at.
        c.datagram(&[0; 16]);
        c.datagram(&[0; 64]);
        assert_eq!((c.dropped, c.expected), (5, 10));
        // A trailer naming another size turns the check off.
        let mut other = vec![0; 80];
        other[80 - SEQ_LEN..].copy_from_slice(&seq_trailer(20, 64));
        c.datagram(&other);
        c.datagram(&datagram(30, 64));
        assert!(c.off);
        assert_eq!(c.dropped, 5);
    }
}
