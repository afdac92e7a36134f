//! Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): a client whose
//! id is an https URL is described by the JSON document at that URL. The document is fetched
//! through the SSRF guard push deliveries use (no private, loopback or metadata addresses,
//! checked again on connect), never through a redirect, within a size and time bound, and
//! cached as long as its `Cache-Control` allows (within bounds).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use a2a_runtime_core::push::guard;
use a2a_runtime_types::https::{CertificateDer, PemObject as _};
use futures::StreamExt as _;
use url::Url;

use crate::OAuthError;
use crate::clients::{Client, read_metadata};
use crate::redirects::RedirectPolicy;

/// The largest document accepted.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 5 * 1024;

/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a document is cached without a `max-age`, and at most.
const DEFAULT_TTL: Duration = Duration::from_secs(300);
const MAX_TTL: Duration = Duration::from_secs(24 * 3600);

/// Documents kept in the cache at most.
const MAX_CACHED: usize = 1024;

/// Fetches and caches client metadata documents.
pub(crate) struct Documents {
    http: reqwest::Client,
    allow_private: bool,
    cache: Mutex<HashMap<String, (Client, Instant)>>,
}

impl Documents {
    /// A fetcher; `allow_private` lets documents sit on loopback and private addresses
    /// (development and tests), `roots` are extra certificate authorities (PEM) to trust.
    pub(crate) fn new(allow_private: bool, roots: &[String]) -> Result<Self, String> {
        let mut extra_roots = Vec::new();
        for pem in roots {
            let certificate = CertificateDer::from_pem_slice(pem.as_bytes())
                .map_err(|e| format!("a client metadata CA certificate is not PEM: {e}"))?;
            extra_roots.push(certificate);
        }
        let mut builder = a2a_runtime_types::https::client_builder_trusting(&extra_roots)
            .map_err(|e| e.to_string())?
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("a2a-runtime/", env!("CARGO_PKG_VERSION")));
        if let Some(resolver) = guard::resolver(allow_private) {
            builder = builder.dns_resolver(resolver);
        }
        Ok(Self {
            http: builder
                .build()
                .map_err(|e| format!("the metadata document client cannot start: {e}"))?,
            allow_private,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The client whose id is the URL `client_id`, from the cache or fetched now.
    pub(crate) async fn client(
        &self,
        client_id: &str,
        policy: &RedirectPolicy,
    ) -> Result<Client, OAuthError> {
        if let Some(client) = self.cached(client_id) {
            return Ok(client);
        }
        let url = check_client_id(client_id)?;
        if !self.allow_private {
            guard::check_literal(&url).map_err(|e| refused(client_id, &e.to_string()))?;
        }
        let (document, ttl) = self.fetch(&url).await?;
        let client = describe(client_id, &document, policy)?;
        if let Some(ttl) = ttl {
            self.remember(client_id, &client, ttl);
        }
        Ok(client)
    }

    fn cached(&self, client_id: &str) -> Option<Client> {
        let cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache
            .get(client_id)
            .filter(|(_, until)| Instant::now() < *until)
            .map(|(client, _)| client.clone())
    }

    fn remember(&self, client_id: &str, client: &Client, ttl: Duration) {
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        cache.retain(|_, (_, until)| now < *until);
        if cache.len() < MAX_CACHED {
            cache.insert(client_id.to_owned(), (client.clone(), now + ttl));
        }
    }

    /// The document's JSON and how long it may be cached (`None`: not at all).
    async fn fetch(&self, url: &Url) -> Result<(serde_json::Value, Option<Duration>), OAuthError> {
        let client_id = url.as_str();
        let response = self
            .http
            .get(url.clone())
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| {
                refused(
                    client_id,
                    &format!("could not be fetched: {}", error_chain(&e)),
                )
            })?;
        let status = response.status();
        if status.is_redirection() {
            return Err(refused(
                client_id,
                &format!(
                    "answered {status} (a redirect); a metadata document is served at its own URL"
                ),
            ));
        }
        if !status.is_success() {
            return Err(refused(client_id, &format!("answered {status}")));
        }
        let ttl = cache_ttl(response.headers());
        if response
            .content_length()
            .is_some_and(|length| length > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(too_large(client_id));
        }
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk =
                chunk.map_err(|e| refused(client_id, &format!("could not be read: {e}")))?;
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(too_large(client_id));
            }
            body.extend_from_slice(&chunk);
        }
        let document = serde_json::from_slice(&body)
            .map_err(|e| refused(client_id, &format!("is not JSON: {e}")))?;
        Ok((document, ttl))
    }
}

/// Whether `client_id` is the kind of id a metadata document describes: an https URL.
pub(crate) fn is_document_id(client_id: &str) -> bool {
    client_id.starts_with("https://")
}

/// A metadata document's URL: https, with a path, no fragment, no credentials, no dot
/// segments.
fn check_client_id(client_id: &str) -> Result<Url, OAuthError> {
    let url =
        Url::parse(client_id).map_err(|e| refused(client_id, &format!("is not a URL: {e}")))?;
    let well_formed = url.scheme() == "https"
        && url.host().is_some()
        && url.path() != "/"
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
        // The parser removes dot segments; a URL that changed is not the one the client named.
        && url.as_str() == client_id;
    if !well_formed {
        return Err(refused(
            client_id,
            "must be an https URL with a path, without a fragment, credentials or dot segments",
        ));
    }
    Ok(url)
}

/// The client a fetched document describes.
fn describe(
    client_id: &str,
    document: &serde_json::Value,
    policy: &RedirectPolicy,
) -> Result<Client, OAuthError> {
    let fields = document
        .as_object()
        .ok_or_else(|| refused(client_id, "is not a JSON object"))?;
    match fields.get("client_id").and_then(|id| id.as_str()) {
        Some(id) if id == client_id => {}
        Some(id) => {
            return Err(refused(
                client_id,
                &format!("names the client_id `{id}`; it must be its own URL exactly"),
            ));
        }
        None => return Err(refused(client_id, "has no `client_id`")),
    }
    if fields.contains_key("client_secret") || fields.contains_key("client_secret_expires_at") {
        return Err(refused(
            client_id,
            "holds a client secret, which a public document may not",
        ));
    }
    let metadata = read_metadata(fields, policy, "none").map_err(|e| match e {
        OAuthError::InvalidRedirectUri(why) | OAuthError::InvalidClientMetadata(why) => {
            refused(client_id, &why)
        }
        other => other,
    })?;
    if metadata.token_endpoint_auth_method != "none" {
        return Err(refused(
            client_id,
            &format!(
                "names token_endpoint_auth_method `{}`; a client described by a metadata \
                 document has no shared secret (use `none`)",
                metadata.token_endpoint_auth_method
            ),
        ));
    }
    Ok(Client {
        client_id: client_id.to_owned(),
        client_name: metadata.client_name,
        client_uri: metadata.client_uri,
        redirect_uris: metadata.redirect_uris,
        grant_types: metadata.grant_types,
        token_endpoint_auth_method: metadata.token_endpoint_auth_method,
        secret_digest: None,
        registered: 0,
        metadata_document: true,
        approved_redirects: Vec::new(),
        expires: None,
    })
}

/// How long the response may be cached, from `Cache-Control`: `None` for `no-store` or
/// `no-cache`, `max-age` within bounds, else the default.
fn cache_ttl(headers: &http::HeaderMap) -> Option<Duration> {
    let Some(control) = headers
        .get(http::header::CACHE_CONTROL)
        .and_then(|v| v.to_str().ok())
    else {
        return Some(DEFAULT_TTL);
    };
    let mut ttl = DEFAULT_TTL;
    for directive in control.split(',').map(str::trim) {
        let directive = directive.to_ascii_lowercase();
        if directive == "no-store" || directive == "no-cache" {
            return None;
        }
        if let Some(seconds) = directive.strip_prefix("max-age=") {
            match seconds.trim_matches('"').parse::<u64>() {
                Ok(0) => return None,
                Ok(seconds) => ttl = Duration::from_secs(seconds).min(MAX_TTL),
                Err(_) => {}
            }
        }
    }
    Some(ttl)
}

fn refused(client_id: &str, why: &str) -> OAuthError {
    OAuthError::InvalidClient(format!("the client metadata document `{client_id}` {why}"))
}

fn too_large(client_id: &str) -> OAuthError {
    refused(
        client_id,
        &format!("is larger than {MAX_DOCUMENT_BYTES} bytes, the most this server reads"),
    )
}

/// The error and its causes, which say why a connection was refused (the SSRF guard's
/// reason is a cause of reqwest's error).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_id_is_an_https_url_with_a_path() {
        assert!(check_client_id("https://app.example/oauth/client.json").is_ok());
        for bad in [
            "https://app.example",
            "https://app.example/",
            "http://app.example/client.json",
            "https://user:pw@app.example/c.json",
            "https://app.example/a/../c.json",
            "https://app.example/c.json#x",
        ] {
            assert!(check_client_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_document_must_name_itself_and_hold_no_secret() {
        let policy = RedirectPolicy::open();
        let id = "https://app.example/c.json";
        let good = serde_json::json!({
            "client_id": id, "client_name": "App",
            "redirect_uris": ["http://127.0.0.1:3000/cb"],
        });
        let client = describe(id, &good, &policy).unwrap();
        assert!(client.metadata_document && client.token_endpoint_auth_method == "none");
        let mut other = good.clone();
        other["client_id"] = "https://evil.example/c.json".into();
        assert!(
            describe(id, &other, &policy)
                .unwrap_err()
                .to_string()
                .contains("its own URL")
        );
        let mut secret = good.clone();
        secret["client_secret"] = "s".into();
        assert!(describe(id, &secret, &policy).is_err());
        let mut basic = good;
        basic["token_endpoint_auth_method"] = "client_secret_basic".into();
        assert!(describe(id, &basic, &policy).is_err());
    }

    #[test]
    fn cache_control_bounds_how_long_a_document_is_kept() {
        let headers = |value: &str| {
            let mut map = http::HeaderMap::new();
            map.insert(http::header::CACHE_CONTROL, value.parse().unwrap());
            map
        };
        assert_eq!(cache_ttl(&http::HeaderMap::new()), Some(DEFAULT_TTL));
        assert_eq!(
            cache_ttl(&headers("public, max-age=60")),
            Some(Duration::from_secs(60))
        );
        assert_eq!(cache_ttl(&headers("max-age=99999999")), Some(MAX_TTL));
        assert_eq!(cache_ttl(&headers("no-store")), None);
        assert_eq!(cache_ttl(&headers("max-age=0")), None);
    }
}
