//! The mutual TLS scheme: the client certificate the TLS handshake verified against
//! `--tls-client-ca` names the caller.

use std::sync::Arc;

/// The certificate a client presented on this request's TLS connection, already verified
/// against the configured client CA; in the request's extensions for custom authenticators.
#[derive(Debug, Clone)]
pub struct ClientCertificate(pub Arc<[u8]>);

impl ClientCertificate {
    /// The certificate, DER-encoded.
    pub fn der(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(feature = "mtls")]
mod verify;
#[cfg(feature = "mtls")]
pub use verify::MtlsAuthenticator;
