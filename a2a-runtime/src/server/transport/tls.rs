//! TLS for agents that face the network without a proxy: the server certificate and key
//! (`--tls-cert`, `--tls-key`), and, with `--tls-client-ca`, client certificates verified
//! against that CA, whose identity the mutual TLS scheme reads.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use tokio_rustls::TlsAcceptor;

use super::tls_settings::TlsSettings;
use a2a_runtime_core::error::Error;

/// What accepts TLS connections.
pub(crate) type Acceptor = TlsAcceptor;

/// The acceptor for `settings`, `None` when TLS is off.
pub(crate) fn acceptor(settings: &TlsSettings) -> Result<Option<Acceptor>, Error> {
    let (Some(cert), Some(key)) = (&settings.cert, &settings.key) else {
        return Ok(None);
    };
    let chain = certificates(cert, "--tls-cert")?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|error| {
        Error::Config(format!(
            "--tls-key {}: no usable PEM private key ({error})",
            key.display()
        ))
    })?;
    let provider = a2a_runtime_types::https::provider();
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| Error::Config(format!("TLS: {error}")))?;
    let builder = match &settings.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for certificate in certificates(ca, "--tls-client-ca")? {
                roots.add(certificate).map_err(|error| {
                    Error::Config(format!(
                        "--tls-client-ca {}: not a CA certificate ({error})",
                        ca.display()
                    ))
                })?;
            }
            // Optional: a client without a certificate may still use another scheme (or be
            // refused with 401 by the mutual TLS scheme, naming it); one that presents a
            // certificate must present one the CA issued.
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .allow_unauthenticated()
                .build()
                .map_err(|error| {
                    Error::Config(format!("--tls-client-ca {}: {error}", ca.display()))
                })?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_single_cert(chain, key).map_err(|error| {
        Error::Config(format!(
            "--tls-cert and --tls-key do not make a usable pair: {error}"
        ))
    })?;
    // HTTP/2 is offered where it is served (gRPC needs it); HTTP/1.1 always.
    #[cfg(feature = "http2")]
    {
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    }
    #[cfg(not(feature = "http2"))]
    {
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
    }
    Ok(Some(TlsAcceptor::from(Arc::new(config))))
}

fn certificates(path: &Path, flag: &str) -> Result<Vec<CertificateDer<'static>>, Error> {
    let unreadable = |error: &dyn std::fmt::Display| {
        Error::Config(format!("{flag} {}: {error}", path.display()))
    };
    let certificates = CertificateDer::pem_file_iter(path)
        .map_err(|error| unreadable(&error))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| unreadable(&error))?;
    if certificates.is_empty() {
        return Err(unreadable(&"no PEM certificate in the file"));
    }
    Ok(certificates)
}
