//! The nbd engine's options (`ioengine=nbd`, docs/engines.md): the server's URI.

/// `uri=`: where the NBD server is, as libnbd's `nbd_connect_uri` reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NbdSpec {
    /// None: not given (the engine refuses to start, naming `uri`).
    pub uri: Option<String>,
}
