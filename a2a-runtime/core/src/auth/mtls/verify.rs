//! The subject of a verified client certificate as the caller (x509-parser reads it).

use http::request::Parts;
use serde_json::{Map, Value};
use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};

use super::ClientCertificate;
use crate::auth::{AuthError, Authenticator, Caller};
use a2a_runtime_types::util::BoxFuture;

/// Authenticates callers by their client certificate: the principal is the subject's common
/// name (else its first DNS or URI alternative name).
pub struct MtlsAuthenticator {
    pub scheme: String,
}

impl MtlsAuthenticator {
    fn caller(&self, certificate: &ClientCertificate) -> Result<Caller, AuthError> {
        let (_, parsed) = X509Certificate::from_der(certificate.der())
            .map_err(|_| AuthError::invalid("the client certificate could not be read"))?;
        let subject = parsed.subject();
        let common_name = subject
            .iter_common_name()
            .find_map(|name| name.as_str().ok().map(str::to_owned));
        let alternative = parsed
            .subject_alternative_name()
            .ok()
            .flatten()
            .and_then(|names| {
                names
                    .value
                    .general_names
                    .iter()
                    .find_map(|name| match name {
                        GeneralName::DNSName(name) | GeneralName::URI(name) => {
                            Some((*name).to_owned())
                        }
                        _ => None,
                    })
            });
        let principal = common_name.or(alternative).ok_or_else(|| {
            AuthError::invalid("the client certificate names no subject (no CN, DNS or URI name)")
        })?;
        let mut claims = Map::new();
        claims.insert("subject".into(), Value::String(subject.to_string()));
        claims.insert(
            "serial".into(),
            Value::String(parsed.raw_serial_as_string()),
        );
        Ok(Caller::authenticated(&self.scheme, principal).with_claims(claims))
    }
}

impl Authenticator for MtlsAuthenticator {
    fn authenticate<'a>(
        &'a self,
        request: &'a Parts,
    ) -> BoxFuture<'a, Result<Option<Caller>, AuthError>> {
        let outcome = match request.extensions.get::<ClientCertificate>() {
            None => Ok(None),
            Some(certificate) => self.caller(certificate).map(Some),
        };
        Box::pin(std::future::ready(outcome))
    }

    fn challenge(&self, _error: Option<&AuthError>) -> String {
        // HTTP has no challenge for TLS client certificates; this names the scheme so the 401
        // says what would have been accepted.
        format!("MutualTLS realm=\"agent\", scheme=\"{}\"", self.scheme)
    }
}
