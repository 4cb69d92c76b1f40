//! protocol=vsock (fio 3.4x): the net engine over AF_VSOCK stream sockets, between a
//! virtual machine and its host (or within one machine over the loopback transport).
//! hostname= is the peer's context ID (CID); a receiver binds any CID of this machine.
//! The kernel's refusals get a hint, since their plain text ("Cannot assign requested
//! address", "No such device") says nothing about vsock transports.

use super::NetEngine;
use ferrio_config::ext::net::Proto;
use std::io;

/// The CID of a vsock hostname= (a number, as fio reads it with atoi).
pub(super) fn vsock_cid(host: &str) -> io::Result<u32> {
    host.trim().parse::<u32>().map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("protocol=vsock: hostname '{host}' is not a context ID (CID, a number: 1 this machine's loopback, 2 the host)"),
        )
    })
}

/// What a failed vsock socket, bind or connect means.
fn why(errno: i32) -> Option<&'static str> {
    Some(match errno {
        libc::EAFNOSUPPORT => "this kernel has no AF_VSOCK (the vsock module is not loaded)",
        libc::EADDRNOTAVAIL
        | libc::ENODEV
        | libc::ENETUNREACH
        | libc::EHOSTUNREACH
        | libc::ETIMEDOUT => {
            "no vsock transport reaches that CID from this machine (CID 1, the loopback, needs the vsock_loopback module; a guest reaches its host at CID 2 through its hypervisor's transport)"
        }
        libc::ECONNRESET | libc::ECONNREFUSED => "nothing listens on that CID and port",
        _ => return None,
    })
}

impl NetEngine {
    /// With protocol=vsock, `e` (a socket, bind or connect error) with what it means.
    pub(super) fn vsock_hint(&self, e: io::Error) -> io::Error {
        match (self.net.proto, e.raw_os_error().and_then(why)) {
            (Proto::Vsock, Some(w)) => {
                io::Error::new(e.kind(), format!("{e} (protocol=vsock: {w})"))
            }
            _ => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hostname_is_a_cid() {
        assert_eq!(vsock_cid("1").unwrap(), 1);
        assert_eq!(vsock_cid(" 3 ").unwrap(), 3);
        let e = vsock_cid("localhost").unwrap_err().to_string();
        assert!(
            e.contains("protocol=vsock: hostname 'localhost' is not a context ID"),
            "{e}"
        );
    }

    #[test]
    fn transport_errors_say_what_is_missing() {
        assert!(why(libc::EADDRNOTAVAIL).unwrap().contains("vsock_loopback"));
        assert!(why(libc::EAFNOSUPPORT).unwrap().contains("no AF_VSOCK"));
        assert!(why(libc::EPERM).is_none());
    }
}
