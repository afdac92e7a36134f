//! Browser safety for every route: a request whose `Host` is not one this agent answers to (DNS
//! rebinding) or whose `Origin` is a page this agent does not trust (cross-site requests) is
//! refused with 403 before any handler runs. Non-browser clients send no `Origin` and are
//! unaffected. The paths the server calls public (its cards and other metadata, health) stay
//! readable from any origin.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::{Either, Ready, ready};
use serde_json::json;
use tower::{Layer, Service};

/// Host names accepted on loopback binds.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// Who may call the agent.
#[derive(Debug)]
pub(crate) struct BrowserGuard {
    /// Accepted `Host` names (without port); `None` accepts any.
    hosts: Option<Vec<String>>,
    /// Accepted origins: `scheme://host` with an optional `:port` or `:*`, or `*`.
    origins: Vec<String>,
    /// Paths any page may read whatever its origin (the host is still checked).
    public: fn(&str) -> bool,
}

/// What a guard is made from: the address bound, the URL the server is reached at when one
/// was given, and the hosts and origins the operator allows besides.
pub(crate) struct GuardSettings<'a> {
    /// The address actually bound (loopback admits local pages).
    pub(crate) bind: std::net::SocketAddr,
    /// The public URL, when one was given: its host and origin are accepted.
    pub(crate) public_url: Option<&'a str>,
    /// More accepted `Host` names (`--allowed-host`).
    pub(crate) hosts: &'a [String],
    /// More accepted origins (`--allowed-origin`, `--cors-origin`).
    pub(crate) origins: Vec<&'a str>,
    /// Paths any page may read whatever its origin.
    pub(crate) public: fn(&str) -> bool,
}

impl BrowserGuard {
    /// The guard `settings` describe.
    pub(crate) fn new(settings: GuardSettings<'_>) -> Self {
        let loopback = settings.bind.ip().is_loopback();
        let mut hosts: Vec<String> = if loopback {
            LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect()
        } else {
            Vec::new()
        };
        hosts.extend(settings.public_url.and_then(url_host));
        hosts.extend(settings.hosts.iter().map(|h| h.to_ascii_lowercase()));
        let hosts = if hosts.is_empty() {
            tracing::warn!(
                "Host checking is off: bound to {} without --public-url or --allowed-host, so \
                 DNS-rebinding pages can reach the agent",
                settings.bind
            );
            None
        } else {
            Some(hosts)
        };
        let mut origins: Vec<String> = Vec::new();
        if loopback {
            for host in LOOPBACK_HOSTS {
                origins.push(format!("http://{host}:*"));
                origins.push(format!("https://{host}:*"));
                origins.push(format!("http://{host}"));
                origins.push(format!("https://{host}"));
            }
        }
        origins.extend(settings.public_url.and_then(url_origin));
        origins.extend(settings.origins.into_iter().map(str::to_owned));
        Self {
            hosts,
            origins,
            public: settings.public,
        }
    }

    fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(hosts) = &self.hosts else {
            return true;
        };
        // HTTP/1.1 requires Host; a request without one comes from no browser.
        let Some(host) = host else {
            return true;
        };
        let name = host_name(host).to_ascii_lowercase();
        hosts.contains(&name)
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.origins
            .iter()
            .any(|allowed| origin_matches(allowed, &origin))
    }
}

/// Applies a [`BrowserGuard`] to every route of a router (a tower layer: the check is a plain
/// call before the route's own service, with nothing boxed or cloned per request).
#[derive(Debug, Clone)]
pub(crate) struct GuardLayer(pub(crate) Arc<BrowserGuard>);

impl<S> Layer<S> for GuardLayer {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Guarded {
            guard: Arc::clone(&self.0),
            inner,
        }
    }
}

/// A service behind the browser guard.
#[derive(Debug, Clone)]
pub(crate) struct Guarded<S> {
    guard: Arc<BrowserGuard>,
    inner: S,
}

impl<S> Service<Request> for Guarded<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Result<Response, Infallible>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match self.guard.refusal(&request) {
            Some(refusal) => Either::Left(ready(Ok(refusal))),
            None => Either::Right(self.inner.call(request)),
        }
    }
}

impl BrowserGuard {
    /// The 403 for a request from a host or origin this agent does not answer to.
    pub(crate) fn refusal(&self, request: &Request) -> Option<Response> {
        // Behind a trusted proxy, the host the browser asked for is the one the proxy names;
        // over HTTP/2 it is `:authority` (the request's URI), which a request may send instead
        // of `Host` (RFC 9113 §8.3.1).
        let forwarded = request
            .extensions()
            .get::<super::proxies::Forwarded>()
            .and_then(|forwarded| forwarded.host.as_deref());
        let host = forwarded.or_else(|| request.uri().host()).or_else(|| {
            request
                .headers()
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
        });
        if !self.host_allowed(host) {
            let host = host.unwrap_or_default();
            return Some(forbidden(&format!(
                "Host `{host}` is not one this agent answers to; add it with --allowed-host"
            )));
        }
        if let Some(origin) = request.headers().get(header::ORIGIN)
            && !(self.public)(request.uri().path())
        {
            let origin = String::from_utf8_lossy(origin.as_bytes());
            if !self.origin_allowed(&origin) {
                return Some(forbidden(&format!(
                    "Origin `{origin}` may not call this agent; allow it with --allowed-origin or \
                     --cors-origin"
                )));
            }
        }
        None
    }
}

fn forbidden(message: &str) -> Response {
    let body = json!({
        "error": {
            "code": 403,
            "status": "PERMISSION_DENIED",
            "message": message,
        }
    });
    (
        StatusCode::FORBIDDEN,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

/// `allowed` is `*`, `scheme://host`, `scheme://host:port` or `scheme://host:*`.
fn origin_matches(allowed: &str, origin: &str) -> bool {
    if allowed == "*" {
        return true;
    }
    let allowed = allowed.trim_end_matches('/').to_ascii_lowercase();
    match allowed.strip_suffix(":*") {
        Some(prefix) => {
            origin == prefix
                || origin
                    .strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(':'))
                    .is_some_and(|port| {
                        !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                    })
        }
        None => origin == allowed,
    }
}

/// `host`, `host:port`, `[v6]:port` → the name without the port.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.split(':').next().unwrap_or(host)
}

/// The host of an `http(s)://host[:port]/path` URL.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    let host = host_name(authority).to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// The origin (`scheme://host[:port]`) of a URL.
fn url_origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split('/').next()?;
    (!authority.is_empty()).then(|| format!("{scheme}://{authority}").to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_from_urls() {
        assert_eq!(
            url_host("https://agents.example:8443/x/").as_deref(),
            Some("agents.example")
        );
        assert_eq!(url_host("http://[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(
            url_origin("https://Agents.example:8443/x/").as_deref(),
            Some("https://agents.example:8443")
        );
    }

    #[test]
    fn origins_match_exactly_or_by_any_port() {
        assert!(origin_matches(
            "http://localhost:*",
            "http://localhost:3000"
        ));
        assert!(origin_matches("http://localhost:*", "http://localhost"));
        assert!(!origin_matches(
            "http://localhost:*",
            "http://localhost.evil.example"
        ));
        assert!(!origin_matches(
            "http://localhost:*",
            "http://localhost:3000.evil"
        ));
        assert!(origin_matches("https://app.example", "https://app.example"));
        assert!(!origin_matches(
            "https://app.example",
            "https://app.example:444"
        ));
        assert!(origin_matches("*", "https://anything.example"));
    }

    #[test]
    fn loopback_binds_accept_local_pages_only() {
        let guard = BrowserGuard::new(GuardSettings {
            bind: ([127, 0, 0, 1], 8080).into(),
            public_url: None,
            hosts: &[],
            origins: Vec::new(),
            public: |_| false,
        });
        assert!(guard.host_allowed(Some("127.0.0.1:8080")));
        assert!(guard.host_allowed(Some("localhost")));
        assert!(!guard.host_allowed(Some("evil.example")));
        assert!(guard.origin_allowed("http://localhost:5173"));
        assert!(!guard.origin_allowed("https://evil.example"));
    }
}
