//! Options of the nbd engine (`ioengine=nbd`; docs/engines.md).

use super::{opt, Category as C, Kind as K, OptSpec};

pub const NBD: &[OptSpec] = &[opt(
    "uri",
    K::Str,
    C::Engine,
    "nbd: the NBD server's URI, as libnbd's nbd_connect_uri reads it: nbd://HOST[:PORT]/EXPORT, nbd+unix:///EXPORT?socket=PATH, nbds:// for TLS (required; the export's size is the job's size unless size= is smaller)",
    |j, _, v| {
        j.nbd.uri = Some(v.trim().to_string());
        Ok(())
    },
)
.private_to(&["nbd"])];
