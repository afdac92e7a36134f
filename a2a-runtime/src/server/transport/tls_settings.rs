//! Where a server's certificate, key and client CA are read from.

use std::path::PathBuf;

/// TLS settings (`--tls-cert`, `--tls-key`, `--tls-client-ca`). With a certificate and key the
/// server speaks HTTPS only and the card's URLs are `https://`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsSettings {
    /// PEM certificate chain, leaf first (`--tls-cert`, `A2A_TLS_CERT`).
    pub cert: Option<PathBuf>,
    /// PEM private key of the certificate (`--tls-key`, `A2A_TLS_KEY`).
    pub key: Option<PathBuf>,
    /// PEM certificates of the CA that issues client certificates (`--tls-client-ca`,
    /// `A2A_TLS_CLIENT_CA`): clients may then authenticate with one (the mutual TLS scheme).
    pub client_ca: Option<PathBuf>,
}

impl TlsSettings {
    /// Whether the server speaks HTTPS.
    pub fn is_enabled(&self) -> bool {
        self.cert.is_some()
    }
}
