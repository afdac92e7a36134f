//! Credentials beyond a fixed header: a [`CredentialSource`] gives the bearer token to send
//! with each request, and [`ClientCredentials`] is one that signs in as a service with the
//! OAuth 2.0 client credentials grant (RFC 6749 §4.4), keeping its token until shortly before
//! it expires or until a server refuses it; a [`ClientIdentity`] is the certificate and key a
//! client shows a server that asks for one (mutual TLS).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::Value;

use super::ClientError;
use super::body::read_bounded;
use a2a_runtime_types::https::ClientCertificate;

/// The longest token endpoint answer read.
const MAX_TOKEN_ANSWER: usize = 64 * 1024;
/// How long a token is kept when its server does not say (`expires_in` is only recommended).
const UNSAID_LIFETIME: Duration = Duration::from_secs(3600);

/// Where a client gets the bearer token it sends with each request.
pub trait CredentialSource: Send + Sync + std::fmt::Debug {
    /// The token to send now: the one kept, or a new one when it is about to expire.
    fn token(&self) -> BoxFuture<'_, Result<Arc<str>, ClientError>>;

    /// `token` was refused (HTTP 401): the next request gets a new one.
    fn refused(&self, token: &str);
}

/// A service's sign-in with the OAuth 2.0 client credentials grant: its id and secret sent to
/// the token endpoint with HTTP Basic (RFC 6749 §2.3.1), with the scopes and the resource
/// (RFC 8707) the token is for.
pub struct ClientCredentials {
    token_url: reqwest::Url,
    client_id: String,
    client_secret: String,
    scope: Option<String>,
    resource: Option<String>,
    timeout: Duration,
    http: reqwest::Client,
    kept: Mutex<Option<Kept>>,
    /// Held while a token is fetched, so callers arriving meanwhile wait for that one.
    fetching: tokio::sync::Mutex<()>,
}

/// A token and when to get a new one.
struct Kept {
    token: Arc<str>,
    renew_at: Instant,
}

impl std::fmt::Debug for ClientCredentials {
    /// Names the client and the endpoint, never the secret or a token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("token_url", &self.token_url.as_str())
            .field("client_id", &self.client_id)
            .field("scope", &self.scope)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// Signs in as `client_id` with `client_secret` at the token endpoint `token_url`.
    pub fn new(
        token_url: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Result<Self, ClientError> {
        let invalid = |reason: String| ClientError::InvalidUrl {
            url: token_url.to_owned(),
            reason,
        };
        let url = reqwest::Url::parse(token_url).map_err(|e| invalid(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("a token endpoint is an http(s) URL".into()));
        }
        let timeout = Duration::from_secs(30);
        let http = a2a_runtime_types::https::client_builder()?
            .connect_timeout(timeout)
            .build()
            .map_err(|source| ClientError::Transport {
                url: token_url.to_owned(),
                source,
            })?;
        Ok(Self {
            token_url: url,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scope: None,
            resource: None,
            timeout,
            http,
            kept: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    /// Asks for tokens of these scopes (space-separated, as OAuth sends them).
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// Asks for tokens for `resource` (RFC 8707): the URL of the server they will be sent to.
    #[must_use]
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    /// The longest a token request may take (30 s unless set).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn kept(&self) -> Option<Arc<str>> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.as_ref()
            .filter(|kept| Instant::now() < kept.renew_at)
            .map(|kept| Arc::clone(&kept.token))
    }

    /// The token request's body.
    fn form(&self) -> String {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "client_credentials");
        if let Some(scope) = &self.scope {
            form.append_pair("scope", scope);
        }
        if let Some(resource) = &self.resource {
            form.append_pair("resource", resource);
        }
        form.finish()
    }

    /// A new token from the token endpoint.
    async fn fetch(&self) -> Result<Kept, ClientError> {
        let url = self.token_url.as_str();
        let form = self.form();
        // RFC 6749 §2.3.1: both form-encoded before they are joined for Basic.
        let encode = |text: &str| url::form_urlencoded::byte_serialize(text.as_bytes()).collect();
        let (id, secret): (String, String) = (encode(&self.client_id), encode(&self.client_secret));
        let response = self
            .http
            .post(self.token_url.clone())
            .timeout(self.timeout)
            .basic_auth(id, Some(secret))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(ACCEPT, "application/json")
            .body(form)
            .send()
            .await
            .map_err(|source| ClientError::Transport {
                url: url.to_owned(),
                source,
            })?;
        let status = response.status();
        let refused = |reason: String| ClientError::Credential {
            url: url.to_owned(),
            reason,
        };
        let body = read_bounded(response, MAX_TOKEN_ANSWER)
            .await
            .map_err(|e| match e {
                super::body::BodyError::TooLarge => refused(format!(
                    "its answer is larger than {MAX_TOKEN_ANSWER} bytes"
                )),
                super::body::BodyError::Transport(e) => {
                    refused(format!("its answer could not be read: {e}"))
                }
            })?;
        let answer: Value = serde_json::from_slice(&body)
            .map_err(|e| refused(format!("HTTP {status}, not JSON: {e}")))?;
        if !status.is_success() {
            let error = answer["error"].as_str().unwrap_or("no error code");
            let described = answer["error_description"].as_str().unwrap_or_default();
            return Err(refused(format!("HTTP {status}: {error} {described}")));
        }
        token_of(&answer).map_err(refused)
    }
}

/// The token of a token endpoint's answer, and when to renew it: at nine tenths of its life.
fn token_of(answer: &Value) -> Result<Kept, String> {
    let token = answer["access_token"]
        .as_str()
        .filter(|token| !token.is_empty())
        .ok_or("its answer has no `access_token`")?;
    let kind = answer["token_type"].as_str().unwrap_or_default();
    if !kind.eq_ignore_ascii_case("bearer") {
        return Err(format!("`token_type` is `{kind}`, not Bearer"));
    }
    let lifetime = answer["expires_in"]
        .as_u64()
        .map_or(UNSAID_LIFETIME, Duration::from_secs);
    Ok(Kept {
        token: Arc::from(token),
        renew_at: Instant::now() + lifetime.mul_f64(0.9),
    })
}

impl CredentialSource for ClientCredentials {
    fn token(&self) -> BoxFuture<'_, Result<Arc<str>, ClientError>> {
        Box::pin(async move {
            if let Some(token) = self.kept() {
                return Ok(token);
            }
            let _fetching = self.fetching.lock().await;
            // Another caller may have fetched one while this one waited.
            if let Some(token) = self.kept() {
                return Ok(token);
            }
            let kept = self.fetch().await?;
            let token = Arc::clone(&kept.token);
            *self.kept.lock().unwrap_or_else(PoisonError::into_inner) = Some(kept);
            Ok(token)
        })
    }

    fn refused(&self, token: &str) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.as_ref().is_some_and(|kept| &*kept.token == token) {
            *kept = None;
        }
    }
}

/// A client certificate chain and its private key, for servers whose TLS asks for one.
#[derive(Clone)]
pub struct ClientIdentity {
    pem: Arc<[u8]>,
    read: Arc<ClientCertificate>,
}

impl std::fmt::Debug for ClientIdentity {
    /// Never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientIdentity(..)")
    }
}

impl PartialEq for ClientIdentity {
    fn eq(&self, other: &Self) -> bool {
        self.pem == other.pem
    }
}

impl ClientIdentity {
    /// The certificates and the private key in `pem` (one PEM holding both, the leaf
    /// certificate first); refused when they cannot be read.
    pub fn from_pem(pem: &[u8]) -> Result<Self, ClientError> {
        let read = ClientCertificate::from_pem(pem)?;
        Ok(Self {
            pem: Arc::from(pem),
            read: Arc::new(read),
        })
    }

    /// The PEM (gRPC's TLS reads it itself).
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    pub(crate) fn pem(&self) -> &[u8] {
        &self.pem
    }

    /// An HTTPS client builder showing it.
    pub(crate) fn client_builder(&self) -> Result<reqwest::ClientBuilder, ClientError> {
        Ok(a2a_runtime_types::https::client_builder_showing(
            &self.read,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_token_answer_gives_a_bearer_token_renewed_before_it_expires() {
        let kept =
            token_of(&json!({"access_token": "t", "token_type": "bearer", "expires_in": 100}))
                .unwrap();
        assert_eq!(&*kept.token, "t");
        let left = kept.renew_at - Instant::now();
        assert!(left <= Duration::from_secs(90) && left > Duration::from_secs(80));
        let refused = |answer: Value| token_of(&answer).err().unwrap();
        assert!(refused(json!({"token_type": "Bearer"})).contains("access_token"));
        assert!(refused(json!({"access_token": "t", "token_type": "DPoP"})).contains("DPoP"));
    }
}
