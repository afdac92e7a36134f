//! A build without the `tls` feature serves plain HTTP only: `--tls-cert` and `--tls-key` are
//! a startup error naming the feature, never silently ignored.

use super::tls_settings::TlsSettings;
use a2a_runtime_core::error::Error;

/// No TLS acceptor exists in this build; nothing can hold one.
#[derive(Clone)]
pub(crate) enum Acceptor {}

/// `None`: this build serves no TLS; an error when the settings ask for it.
pub(crate) fn acceptor(settings: &TlsSettings) -> Result<Option<Acceptor>, Error> {
    if settings.cert.is_some() || settings.key.is_some() || settings.client_ca.is_some() {
        return Err(Error::Config(
            "--tls-cert, --tls-key and --tls-client-ca need the `tls` feature of a2a-runtime, \
             which this build leaves out (add it to the a2a-runtime dependency in Cargo.toml)"
                .into(),
        ));
    }
    Ok(None)
}
