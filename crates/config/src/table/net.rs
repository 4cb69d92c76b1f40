//! Options of the network engines (ioengine=net, netsplice; docs/engines.md).

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::net::Proto;
use crate::values::TimeUnit;

const NET: &[&str] = &["net", "netsplice"];

pub const NET_OPTIONS: &[OptSpec] = &[
    opt(
        "hostname",
        K::Str,
        C::Engine,
        "net, netsplice: host name or address to connect to (a UDP reader: a multicast group); sets the filename, as fio",
        |j, _, v| {
            j.net.hostname = Some(v.trim().to_string());
            Ok(())
        },
    )
    .private_to(NET),
    opt(
        "port",
        K::Int,
        C::Engine,
        "net, netsplice: TCP or UDP port to bind to or connect to; numjobs clones use the ports after it",
        |j, c, v| {
            j.net.port = c.u32(v)?;
            Ok(())
        },
    )
    .range(1, 65535)
    .private_to(NET),
    opt(
        "protocol",
        K::Choice,
        C::Engine,
        "net, netsplice: network protocol",
        |j, c, v| {
            j.net.proto = Proto::parse(c.choice(v)?).unwrap_or_default();
            Ok(())
        },
    )
    .alias(&["proto"])
    .def("tcp")
    .vals(&[
        ("tcp", "Transmission Control Protocol"),
        ("tcpv6", "Transmission Control Protocol over IPv6"),
        ("udp", "User Datagram Protocol"),
        ("udpv6", "User Datagram Protocol over IPv6"),
        ("unix", "UNIX domain stream socket (filename= is its path)"),
        ("vsock", "AF_VSOCK stream socket between a VM and its host (hostname= is the peer's CID)"),
    ])
    .private_to(NET),
    opt(
        "nodelay",
        K::Bool,
        C::Engine,
        "net, netsplice: set TCP_NODELAY on TCP connections",
        |j, c, v| {
            j.net.nodelay = c.bool(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(NET),
    opt(
        "listen",
        K::Flag,
        C::Engine,
        "net, netsplice: wait for an incoming TCP connection instead of connecting (hostname= must be omitted)",
        |j, c, v| {
            j.net.listen = c.bool(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(NET),
    opt(
        "pingpong",
        K::Flag,
        C::Engine,
        "net, netsplice: the reader sends every payload back and the writer waits for it, so latency is a round trip",
        |j, c, v| {
            j.net.pingpong = c.bool(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(NET),
    opt(
        "interface",
        K::Str,
        C::Engine,
        "net, netsplice: IPv4 address of the local interface that sends or receives UDP multicast",
        |j, _, v| {
            let a = v.trim().parse().map_err(|_| "not an IPv4 address".to_string())?;
            j.net.interface = Some(a);
            Ok(())
        },
    )
    .private_to(NET),
    opt(
        "ttl",
        K::Int,
        C::Engine,
        "net, netsplice: time-to-live of outgoing UDP multicast packets",
        |j, c, v| {
            j.net.ttl = c.u32(v)?;
            Ok(())
        },
    )
    .def("1")
    .range(0, 255)
    .private_to(NET),
    opt(
        "window_size",
        K::Int,
        C::Engine,
        "net, netsplice: socket buffer size (SO_RCVBUF on a receiver, SO_SNDBUF on a sender, both with pingpong; 0: the kernel's)",
        |j, c, v| {
            j.net.window_size = c.u32(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(NET),
    opt(
        "mss",
        K::Int,
        C::Engine,
        "net, netsplice: TCP maximum segment size (TCP_MAXSEG; 0: the kernel's)",
        |j, c, v| {
            j.net.mss = c.u32(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(NET),
    opt(
        "net_timeout",
        K::Time(TimeUnit::S),
        C::Engine,
        "net, netsplice (ferrio): wait this long for the peer — a receiver for its connection or data, a sender for a listener (a refused connection is retried) — then fail with ETIMEDOUT (0: as fio, a receiver waits as long as it takes and a refused connection fails at once)",
        |j, c, v| {
            j.net.timeout_us = c.time(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(NET),
];
