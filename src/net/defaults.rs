//! The per-user credentials a server and a client use when the command line names
//! none, so that fio's own command lines (`--server=,8765`, `--client=host job.fio`)
//! work unchanged and stay authenticated: a token file and a self-signed server
//! certificate in one directory (`$XDG_CONFIG_HOME/ferrio`, else `~/.config/ferrio`;
//! the token file may be moved with `$FERRIO_AUTH_TOKEN_FILE`). `--server` creates
//! what is missing (the token from the TLS provider's random source, the certificate
//! with rcgen), private to the user; a client on the same host finds them there, one
//! on another host needs a copy of the directory. A client pins the certificate it
//! reads (the server must present exactly it), so any host name works.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the token file goes when `--auth-token-file` is not given.
pub const TOKEN_ENV: &str = "FERRIO_AUTH_TOKEN_FILE";
const TOKEN: &str = "auth-token";
const CERT: &str = "server-cert.pem";
const KEY: &str = "server-key.pem";

/// The directory of the default credentials.
pub fn dir() -> Result<PathBuf, String> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(x) = var("XDG_CONFIG_HOME") {
        return Ok(x.join("ferrio"));
    }
    let home = var("HOME").ok_or(
        "no --auth-token-file, and neither $XDG_CONFIG_HOME nor $HOME is set for the default one",
    )?;
    Ok(home.join(".config").join("ferrio"))
}

/// The default token file: `$FERRIO_AUTH_TOKEN_FILE`, else `auth-token` in [`dir`].
pub fn token_path() -> Result<PathBuf, String> {
    match std::env::var_os(TOKEN_ENV).filter(|v| !v.is_empty()) {
        Some(p) => Ok(PathBuf::from(p)),
        None => Ok(dir()?.join(TOKEN)),
    }
}

/// The default server certificate and key.
pub fn cert_paths() -> Result<(PathBuf, PathBuf), String> {
    let d = dir()?;
    Ok((d.join(CERT), d.join(KEY)))
}

/// A secret file must be the user's alone: refused when group or others may read it.
pub fn check_private(path: &Path, what: &str) -> Result<(), String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {what} '{}': {e}", path.display()))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "{what} '{}' is readable by group or others (mode {mode:03o}): \
             run `chmod 600 {}`",
            path.display(),
            path.display()
        ));
    }
    Ok(())
}

/// Create `path` with `bytes`, mode 0600, only if it does not exist (its directory
/// made 0700 first); an existing file is left as it is.
fn create_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|e| format!("cannot create '{}': {e}", parent.display()))?;
    }
    let mut f = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(f) => f,
        // Another server made it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(format!("cannot create '{}': {e}", path.display())),
    };
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

/// 32 random bytes from the TLS provider's source, as 64 hex digits.
fn new_token() -> Result<String, String> {
    let mut b = [0u8; 32];
    rustls::crypto::ring::default_provider()
        .secure_random
        .fill(&mut b)
        .map_err(|_| "no random source for a new token".to_string())?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// The server's token: `--auth-token-file`, else the default file, made when missing.
pub fn server_token(flag: Option<&Path>) -> Result<String, String> {
    if let Some(p) = flag {
        return super::tls::read_token(Some(p));
    }
    let path = token_path()?;
    if !path.exists() {
        create_private(&path, format!("{}\n", new_token()?).as_bytes())?;
        eprintln!("ferrio: server: made a new token in '{}'", path.display());
    }
    read_default_token(&path)
}

/// The client's token: `--auth-token-file`, else the default file (which a server on
/// this host made, or a copy of the server host's).
pub fn client_token(flag: Option<&Path>) -> Result<String, String> {
    if let Some(p) = flag {
        return super::tls::read_token(Some(p));
    }
    let path = token_path()?;
    if !path.exists() {
        return Err(format!(
            "no --auth-token-file, and no default token file '{}' (a `ferrio --server` \
             on this host makes it; for a server on another host copy that host's file \
             here, or name one with --auth-token-file)",
            path.display()
        ));
    }
    read_default_token(&path)
}

fn read_default_token(path: &Path) -> Result<String, String> {
    check_private(path, "token file")?;
    super::tls::read_token(Some(path))
}

/// The server's default certificate and key, made (self-signed, for this host's
/// names) when missing.
pub fn server_cert() -> Result<(PathBuf, PathBuf), String> {
    let (cert, key) = cert_paths()?;
    if !cert.exists() || !key.exists() {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default();
        let mut names = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
        if !host.is_empty() && host != "localhost" {
            names.push(host);
        }
        let made = rcgen::generate_simple_self_signed(names)
            .map_err(|e| format!("cannot make a server certificate: {e}"))?;
        // The key first: a certificate without its key is never left behind alone.
        let _ = std::fs::remove_file(&key);
        let _ = std::fs::remove_file(&cert);
        create_private(&key, made.key_pair.serialize_pem().as_bytes())?;
        create_private(&cert, made.cert.pem().as_bytes())?;
        eprintln!(
            "ferrio: server: made a self-signed certificate in '{}'",
            cert.display()
        );
    }
    check_private(&key, "server key")?;
    Ok((cert, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_tokens_are_long_and_differ() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn private_files_are_made_0600_and_others_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub").join("tok");
        create_private(&p, b"0123456789abcdef0123\n").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dmode = std::fs::metadata(p.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dmode, 0o700);
        check_private(&p, "token file").unwrap();
        // An existing file is kept as it is.
        create_private(&p, b"other").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"0123456789abcdef0123\n");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        let e = check_private(&p, "token file").unwrap_err();
        assert!(e.contains("readable by group or others (mode 640)"), "{e}");
        assert!(e.contains("chmod 600"), "{e}");
    }
}
