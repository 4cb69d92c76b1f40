//! The network engines (`ioengine=net`, `netsplice`): their options and fio 3.33's
//! rules for combining them (engines/net.c, init), checked when the job is built so a
//! bad combination is refused before anything runs.

use std::net::Ipv4Addr;

/// `protocol=` (alias `proto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proto {
    #[default]
    Tcp,
    TcpV6,
    Udp,
    UdpV6,
    Unix,
    /// AF_VSOCK stream (fio 3.4x): hostname= is the peer's context ID.
    Vsock,
}

impl Proto {
    pub fn parse(v: &str) -> Option<Proto> {
        Some(match v {
            "tcp" => Proto::Tcp,
            "tcpv6" => Proto::TcpV6,
            "udp" => Proto::Udp,
            "udpv6" => Proto::UdpV6,
            "unix" => Proto::Unix,
            "vsock" => Proto::Vsock,
            _ => return None,
        })
    }
    pub fn is_tcp(self) -> bool {
        matches!(self, Proto::Tcp | Proto::TcpV6)
    }
    /// A connected stream with a listener: tcp, tcpv6 and vsock (fio's is_tcp ||
    /// is_vsock).
    pub fn is_stream(self) -> bool {
        self.is_tcp() || self == Proto::Vsock
    }
    pub fn is_udp(self) -> bool {
        matches!(self, Proto::Udp | Proto::UdpV6)
    }
    pub fn is_v6(self) -> bool {
        matches!(self, Proto::TcpV6 | Proto::UdpV6)
    }
}

/// The net engines' options, as given and then resolved by [`NetSpec::finish`].
#[derive(Clone, Debug, PartialEq)]
pub struct NetSpec {
    /// The peer (hostname=, else the filename): host name or address for TCP/UDP (a
    /// multicast group for a UDP reader), the socket path for unix.
    pub hostname: Option<String>,
    /// port= (0: not set); each numjobs clone adds its number, as fio.
    pub port: u32,
    pub proto: Proto,
    /// listen: accept a connection instead of making one. After `finish`: this end
    /// receives the connection (also set for UDP and unix readers, as fio does).
    pub listen: bool,
    pub pingpong: bool,
    pub nodelay: bool,
    /// IP_MULTICAST_TTL for a UDP multicast sender.
    pub ttl: u32,
    /// SO_RCVBUF / SO_SNDBUF (0: the kernel's).
    pub window_size: u32,
    /// TCP_MAXSEG (0: the kernel's).
    pub mss: u32,
    /// interface=: the local address for UDP multicast.
    pub interface: Option<Ipv4Addr>,
    /// ferrio: how long to wait for a peer (connection, first datagram, data) before
    /// failing with ETIMEDOUT; 0 waits as long as it takes, as fio.
    pub timeout_us: u64,
}

impl Default for NetSpec {
    fn default() -> NetSpec {
        NetSpec {
            hostname: None,
            port: 0,
            proto: Proto::Tcp,
            listen: false,
            pingpong: false,
            nodelay: false,
            ttl: 1,
            window_size: 0,
            mss: 0,
            interface: None,
            timeout_us: 0,
        }
    }
}

/// Whether `host` is an IPv4 multicast address (224.0.0.0 to 239.255.255.255).
pub fn is_multicast(host: &str) -> bool {
    host.parse::<Ipv4Addr>().is_ok_and(|a| a.is_multicast())
}

impl NetSpec {
    /// Resolve the peer from the filename (`host`, or the old `host,port[,protocol]`
    /// form) and apply fio's rules. `filenames`: the job's filename= list;
    /// `directions`: [read, write, trim]; `random`: rw is random. Returns whether the
    /// engine reports rates in bits (fio's FIO_BIT_BASED: net, not netsplice).
    pub fn finish(
        &mut self,
        ioengine: &str,
        filenames: &[String],
        directions: [bool; 3],
        random: bool,
    ) -> Result<bool, String> {
        if ioengine != "net" && ioengine != "netsplice" {
            return Ok(false);
        }
        if self.hostname.is_none() {
            self.hostname = filenames.first().cloned();
        }
        if let Some(h) = self.hostname.clone().filter(|h| h.contains(',')) {
            self.legacy(&h)?;
        }
        let (reads, writes) = (directions[0], directions[1]);
        if random {
            return Err("network I/O can't be random (use rw=read, write or rw)".into());
        }
        if directions[2] {
            return Err("network I/O can't trim (use rw=read, write or rw)".into());
        }
        let p = self.proto;
        if p == Proto::Unix && self.port != 0 {
            return Err(
                "port= is not valid with protocol=unix (the filename names the socket)".into(),
            );
        }
        if p != Proto::Unix && self.port == 0 {
            return Err("protocol=tcp/udp/vsock needs port=".into());
        }
        if p == Proto::Vsock {
            if let Some(h) = self
                .hostname
                .as_deref()
                .filter(|h| h.trim().parse::<u32>().is_err())
            {
                return Err(format!(
                    "protocol=vsock: hostname '{h}' is not a context ID (CID, a number: 1 this machine's loopback, 2 the host)"
                ));
            }
        }
        if !p.is_stream() {
            if self.listen {
                return Err("listen is only valid for protocol=tcp, tcpv6 or vsock (a UDP or unix reader always receives)".into());
            }
            if reads && writes {
                return Err("datagram and unix network jobs must either read or write (rw=read or rw=write)".into());
            }
            if p == Proto::Unix && self.hostname.is_none() {
                return Err("protocol=unix needs filename= (the socket's path)".into());
            }
            self.listen = reads;
        }
        let host = self.hostname.as_deref();
        let multicast = p.is_udp() && host.is_some_and(is_multicast);
        if p != Proto::Unix {
            if self.listen && host.is_some() && !multicast {
                return Err(format!(
                    "hostname '{}' is not valid for a receiver: omit it (a receiver takes any address), or give a UDP multicast group",
                    host.unwrap_or_default()
                ));
            }
            if !self.listen && host.is_none() {
                let hint = if reads {
                    " (did you forget 'listen'?)"
                } else {
                    ""
                };
                return Err(format!("no hostname= to connect to{hint}"));
            }
            if multicast && p.is_v6() {
                return Err("multicast is not supported over IPv6".into());
            }
        }
        Ok(ioengine == "net")
    }

    /// fio's old filename form `host,port[,protocol]` (before engine options existed).
    fn legacy(&mut self, text: &str) -> Result<(), String> {
        let bad =
            |why: &str| format!("bad network filename '{text}' (host,port[,protocol]): {why}");
        let mut parts = text.split(',');
        let host = parts.next().unwrap_or_default().trim();
        let port = parts.next().unwrap_or_default().trim();
        let proto = parts.next().map(str::trim);
        if parts.next().is_some() {
            return Err(bad("too many fields"));
        }
        if host.is_empty() {
            return Err(bad("no host"));
        }
        if let Some(name) = proto {
            let p = Proto::parse(&name.to_ascii_lowercase())
                .ok_or_else(|| bad("protocol is one of tcp, tcpv6, udp, udpv6, unix, vsock"))?;
            if self.proto != Proto::Tcp && p != self.proto {
                return Err(bad(
                    "its protocol differs from protocol= (tcp is the default)",
                ));
            }
            self.proto = p;
        }
        if self.proto != Proto::Unix {
            let n: u32 = port
                .parse()
                .ok()
                .filter(|n| (1..=65535).contains(n))
                .ok_or_else(|| bad("port is 1..65535"))?;
            if self.port != 0 && self.port != n {
                return Err(bad("its port differs from port="));
            }
            self.port = n;
        }
        self.hostname = Some(host.to_string());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: [bool; 3] = [true, false, false];
    const W: [bool; 3] = [false, true, false];

    fn spec(port: u32, proto: Proto) -> NetSpec {
        NetSpec {
            port,
            proto,
            ttl: 1,
            ..Default::default()
        }
    }

    #[test]
    fn the_legacy_filename_form_parses_host_port_and_protocol() {
        let mut s = spec(0, Proto::Tcp);
        s.finish("net", &["127.0.0.1,8888,udp".into()], W, false)
            .unwrap();
        assert_eq!(
            (s.hostname.as_deref(), s.port, s.proto),
            (Some("127.0.0.1"), 8888, Proto::Udp)
        );
        let mut s = spec(0, Proto::Tcp);
        s.finish("net", &["localhost,9000".into()], W, false)
            .unwrap();
        assert_eq!(
            (s.hostname.as_deref(), s.port, s.proto),
            (Some("localhost"), 9000, Proto::Tcp)
        );
        let mut s = spec(0, Proto::Tcp);
        s.finish("net", &["/tmp/s.sock,0,unix".into()], W, false)
            .unwrap();
        assert_eq!(
            (s.hostname.as_deref(), s.port, s.proto),
            (Some("/tmp/s.sock"), 0, Proto::Unix)
        );
        for bad in ["h,0,tcp", "h,70000", ",1,tcp", "h,1,sctp", "h,1,tcp,x", "h"] {
            let mut s = spec(0, Proto::Tcp);
            let r = s.finish("net", &[bad.into()], W, false);
            assert!(r.is_err(), "{bad}: {r:?}");
        }
        let mut s = spec(7, Proto::Tcp);
        let e = s.finish("net", &["h,8,tcp".into()], W, false).unwrap_err();
        assert!(e.contains("port="), "{e}");
    }

    #[test]
    fn fio_rules_are_applied() {
        let ok = |mut s: NetSpec, f: &[&str], d| {
            let f: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            s.finish("net", &f, d, false).map(|_| s)
        };
        // A TCP listener takes no hostname; a connector needs one.
        let mut l = spec(1, Proto::Tcp);
        l.listen = true;
        assert!(ok(l.clone(), &[], R).is_ok());
        assert!(ok(l, &["127.0.0.1"], R).unwrap_err().contains("receiver"));
        assert!(ok(spec(1, Proto::Tcp), &[], R)
            .unwrap_err()
            .contains("listen"));
        // UDP and unix readers listen; they cannot both read and write.
        assert!(ok(spec(1, Proto::Udp), &[], R).unwrap().listen);
        assert!(!ok(spec(1, Proto::Udp), &["127.0.0.1"], W).unwrap().listen);
        assert!(ok(spec(1, Proto::Udp), &[], [true, true, false]).is_err());
        assert!(ok(spec(1, Proto::Udp), &["239.0.0.1"], R).unwrap().listen);
        assert!(ok(spec(1, Proto::UdpV6), &["239.0.0.1"], W).is_err());
        assert!(ok(spec(0, Proto::Unix), &["/s"], R).unwrap().listen);
        assert!(ok(spec(0, Proto::Unix), &[], R).is_err());
        assert!(ok(spec(3, Proto::Unix), &["/s"], R)
            .unwrap_err()
            .contains("port"));
        assert!(ok(spec(0, Proto::Tcp), &["h"], W)
            .unwrap_err()
            .contains("port"));
        let mut s = spec(1, Proto::Tcp);
        assert!(s
            .finish("net", &["h".into()], W, true)
            .unwrap_err()
            .contains("random"));
        // net reports in bits (fio's FIO_BIT_BASED), netsplice in bytes.
        let f = ["h".to_string()];
        assert_eq!(spec(1, Proto::Tcp).finish("net", &f, W, false), Ok(true));
        assert_eq!(
            spec(1, Proto::Tcp).finish("netsplice", &f, W, false),
            Ok(false)
        );
        // Other engines are left alone.
        assert!(spec(0, Proto::Tcp).finish("psync", &[], R, true).is_ok());
    }
}
