//! TLS configuration (rustls on the ring provider), client certificates, and the
//! shared token. The token is checked after the TLS handshake, before anything else is
//! read: a client without it cannot get a job parsed. With `--tls-client-ca` the
//! handshake itself refuses a client without a certificate from those CAs.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<_> = CertificateDer::pem_file_iter(path)
        .and_then(|i| i.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot read {what} '{}': {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{what} '{}' holds no certificate", path.display()));
    }
    Ok(certs)
}

fn roots(ca: &Path, what: &str) -> Result<rustls::RootCertStore, String> {
    let mut roots = rustls::RootCertStore::empty();
    for c in certs(ca, what)? {
        roots
            .add(c)
            .map_err(|e| format!("{what} '{}': {e}", ca.display()))?;
    }
    Ok(roots)
}

fn key(path: &Path, what: &str) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_file(path)
        .map_err(|e| format!("cannot read {what} '{}': {e}", path.display()))
}

/// The server's TLS setup from `--tls-cert` and `--tls-key`; with `client_ca`
/// (`--tls-client-ca`) clients must present a certificate those CAs signed.
pub fn server_config(
    cert: &Path,
    key_file: &Path,
    client_ca: Option<&Path>,
) -> Result<Arc<rustls::ServerConfig>, String> {
    let chain = certs(cert, "--tls-cert")?;
    let key = key(key_file, "--tls-key")?;
    let builder = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let roots = roots(ca, "--tls-client-ca")?;
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider(),
            )
            .build()
            .map_err(|e| format!("--tls-client-ca: {e}"))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let config = builder
        .with_single_cert(chain, key)
        .map_err(|e| format!("--tls-cert/--tls-key: {e}"))?;
    Ok(Arc::new(config))
}

/// The client's TLS setup: servers must chain to the CAs in `--tls-ca`; `identity`
/// (`--tls-client-cert`, `--tls-client-key`) is the certificate it presents.
pub fn client_config(
    ca: &Path,
    identity: Option<(&Path, &Path)>,
) -> Result<Arc<rustls::ClientConfig>, String> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots(ca, "--tls-ca")?);
    let config = match identity {
        None => builder.with_no_client_auth(),
        Some((cert, key_file)) => builder
            .with_client_auth_cert(
                certs(cert, "--tls-client-cert")?,
                key(key_file, "--tls-client-key")?,
            )
            .map_err(|e| format!("--tls-client-cert/--tls-client-key: {e}"))?,
    };
    Ok(Arc::new(config))
}

/// The client's TLS setup without `--tls-ca`: the server must present exactly one
/// of the certificates in `pinned` (the default self-signed one, see
/// [`super::defaults`]), whatever name it was reached by; the handshake's
/// signatures are checked by the provider as usual.
pub fn pinned_client_config(pinned: &Path) -> Result<Arc<rustls::ClientConfig>, String> {
    let certs = certs(pinned, "the default server certificate")?;
    let provider = provider();
    let algs = provider.signature_verification_algorithms;
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned { certs, algs }))
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// A server verifier that accepts only the pinned certificates.
#[derive(Debug)]
struct Pinned {
    certs: Vec<CertificateDer<'static>>,
    algs: rustls::crypto::WebPkiSupportedAlgorithms,
}

impl rustls::client::danger::ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        if self.certs.iter().any(|c| c.as_ref() == end_entity.as_ref()) {
            Ok(rustls::client::danger::ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "the server's certificate is not the default one of this host \
                 (copy the server host's ferrio config directory, or use --tls-ca)"
                    .into(),
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algs)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algs.supported_schemes()
    }
}

/// The shared token from `--auth-token-file` (surrounding blanks trimmed); a token
/// shorter than 16 characters is refused as guessable.
pub fn read_token(path: Option<&Path>) -> Result<String, String> {
    let path =
        path.ok_or("--auth-token-file is required (a shared secret for client and server)")?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read --auth-token-file '{}': {e}", path.display()))?;
    let token = text.trim().to_string();
    if token.len() < 16 {
        return Err(format!(
            "--auth-token-file '{}': the token must be at least 16 characters",
            path.display()
        ));
    }
    Ok(token)
}

/// Token comparison whose time does not depend on where the first difference is.
pub fn same_token(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut diff = (a.len() ^ b.len()) as u8 | u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_exactly() {
        assert!(same_token("0123456789abcdef", "0123456789abcdef"));
        assert!(!same_token("0123456789abcdef", "0123456789abcdeF"));
        assert!(!same_token("0123456789abcdef", "0123456789abcde"));
        assert!(!same_token("", "x"));
    }

    #[test]
    fn short_or_missing_tokens_are_refused() {
        assert!(read_token(None)
            .unwrap_err()
            .contains("--auth-token-file is required"));
        let p = std::env::temp_dir().join(format!("ferrio-token-{}", std::process::id()));
        std::fs::write(&p, "short\n").unwrap();
        let e = read_token(Some(&p)).unwrap_err();
        std::fs::remove_file(&p).unwrap();
        assert!(e.contains("at least 16 characters"), "{e}");
    }
}
