//! The HTTPS every outgoing client of the runtime uses (the `https` feature): rustls with the
//! process's default crypto provider when the application installed one, else *ring*, and the
//! platform's certificate verifier (the system's roots; on Linux `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` are honoured). It is what reqwest's own rustls setup does, with *ring* in
//! place of aws-lc-rs: *ring* builds in seconds from C and assembly with no build tools, where
//! aws-lc-sys took most of a minute of a new agent's first build.

use std::sync::{Arc, OnceLock};

use rustls::ClientConfig;
use rustls::crypto::CryptoProvider;
use rustls_platform_verifier::Verifier;

use rustls::pki_types::PrivateKeyDer;
/// A certificate, for [`client_builder_trusting`]; `PemObject` reads one from PEM.
pub use rustls::pki_types::{CertificateDer, pem::PemObject};

/// Why an HTTPS client could not be set up.
#[derive(Debug, Clone)]
pub struct HttpsError(String);

impl std::fmt::Display for HttpsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTPS cannot be set up: {}", self.0)
    }
}

impl std::error::Error for HttpsError {}

/// The crypto provider of the runtime's TLS, clients and server alike: the application's, if
/// it installed a process default, else *ring*.
pub fn provider() -> Arc<CryptoProvider> {
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

/// The TLS configuration trusting the platform's roots, and `extra_roots` when given.
///
/// # Errors
///
/// The provider supports no safe protocol version, or the platform's verifier cannot start.
pub fn tls_config(extra_roots: &[CertificateDer<'static>]) -> Result<ClientConfig, HttpsError> {
    tls_config_showing(extra_roots, None)
}

/// A client's certificate chain and private key, read from one PEM.
pub struct ClientCertificate {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

impl std::fmt::Debug for ClientCertificate {
    /// Never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ClientCertificate({} certificates, ..)",
            self.chain.len()
        )
    }
}

impl ClientCertificate {
    /// The certificates (leaf first) and the private key in `pem`.
    ///
    /// # Errors
    ///
    /// The PEM holds no certificate, or no key, or cannot be read.
    pub fn from_pem(pem: &[u8]) -> Result<Self, HttpsError> {
        let chain = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| HttpsError(format!("a client certificate: {e}")))?;
        if chain.is_empty() {
            return Err(HttpsError(
                "the client identity holds no certificate".into(),
            ));
        }
        let key = PrivateKeyDer::from_pem_slice(pem)
            .map_err(|e| HttpsError(format!("the client identity's private key: {e}")))?;
        Ok(Self { chain, key })
    }
}

/// A reqwest client builder as [`client_builder`] makes, showing `identity` to servers that
/// ask for a client certificate (mutual TLS).
///
/// # Errors
///
/// See [`tls_config`]; the key does not suit the provider.
pub fn client_builder_showing(
    identity: &ClientCertificate,
) -> Result<reqwest::ClientBuilder, HttpsError> {
    let config = tls_config_showing(&[], Some(identity))?;
    Ok(reqwest::Client::builder().tls_backend_preconfigured(config))
}

fn tls_config_showing(
    extra_roots: &[CertificateDer<'static>],
    identity: Option<&ClientCertificate>,
) -> Result<ClientConfig, HttpsError> {
    let provider = provider();
    let verifier = if extra_roots.is_empty() {
        Verifier::new(Arc::clone(&provider))
    } else {
        Verifier::new_with_extra_roots(extra_roots.iter().cloned(), Arc::clone(&provider))
    }
    .map_err(|e| HttpsError(e.to_string()))?;
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| HttpsError(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier));
    match identity {
        None => Ok(config.with_no_client_auth()),
        Some(identity) => config
            .with_client_auth_cert(identity.chain.clone(), identity.key.clone_key())
            .map_err(|e| HttpsError(format!("the client identity: {e}"))),
    }
}

/// A reqwest client builder speaking HTTPS as the module says; the caller adds its timeouts
/// and limits. The platform's configuration is made once and shared.
///
/// # Errors
///
/// See [`tls_config`].
pub fn client_builder() -> Result<reqwest::ClientBuilder, HttpsError> {
    static PLATFORM: OnceLock<Result<ClientConfig, HttpsError>> = OnceLock::new();
    let config = PLATFORM.get_or_init(|| tls_config(&[])).clone()?;
    Ok(reqwest::Client::builder().tls_backend_preconfigured(config))
}

/// Like [`client_builder`], also trusting `extra_roots` (a private certificate authority).
///
/// # Errors
///
/// See [`tls_config`].
pub fn client_builder_trusting(
    extra_roots: &[CertificateDer<'static>],
) -> Result<reqwest::ClientBuilder, HttpsError> {
    Ok(reqwest::Client::builder().tls_backend_preconfigured(tls_config(extra_roots)?))
}
