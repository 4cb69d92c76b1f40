//! Multi-host runs (docs/multihost.md): `ferrio --server` runs the jobs a client sends
//! with the ordinary runner and returns the report; `ferrio --client` drives several
//! servers at once, starts them together and prints each host's results and the
//! "All clients" aggregate.
//!
//! The control plane is plain threads and blocking sockets (one thread per host or
//! connection); nothing here touches the I/O path. Transports: TCP with TLS from
//! rustls and a shared token (by default the user's own, made by the first server:
//! [`defaults`]), or the system `ssh` running `ferrio --server-stdio`.

pub mod client;
pub mod clock;
pub mod daemon_log;
pub mod defaults;
pub mod guard;
pub mod interval;
pub mod logs;
pub mod merge;
pub mod mpi;
pub mod outcome;
pub mod pidfile;
pub mod print;
pub mod series;
pub mod server;
pub mod ssh;
pub mod status;
pub mod tls;
pub mod wire;
