//! Signing in to an agent through its authorization server, as a person at a terminal does
//! (the `login` feature): the agent's refusal names its protected-resource metadata (RFC 9728),
//! which names the authorization server (RFC 8414); the client registers itself (RFC 7591),
//! sends the person's browser to consent with PKCE S256, receives the code on a loopback
//! redirect (RFC 8252 §7.3), and keeps the tokens per agent under the user's configuration
//! directory, refreshing them when they expire.
//!
//! ```no_run
//! # async fn demo() -> Result<(), a2a_runtime_client::login::LoginError> {
//! use a2a_runtime_client::login::{Login, SavedLogin};
//!
//! let login = Login::discover("https://agents.example/").await?;
//! let mut saved = login
//!     .sign_in(None, |url| eprintln!("Open {url} to sign in"))
//!     .await?;
//! saved.save()?;
//! // Later, in another process:
//! if let Some(mut saved) = SavedLogin::load("https://agents.example/")? {
//!     let token = saved.access_token().await?; // refreshed and saved again when it expired
//! #   let _ = token;
//! }
//! # Ok(())
//! # }
//! ```

mod cache;
mod callback;
mod discover;
mod flow;
mod token;

pub use cache::{SavedLogin, config_dir};
pub use discover::Login;

/// The longest answer read from an authorization server or a protected resource.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// How long one request to an authorization server or a protected resource may take.
const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Why signing in, or using a saved sign-in, failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoginError {
    /// The agent, its metadata or its authorization server could not be reached or read.
    #[error("{url}: {reason}")]
    Unreachable {
        /// What was asked.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The agent names no authorization server: it takes no tokens, or another kind of
    /// credentials.
    #[error("{0}")]
    NoAuthorizationServer(String),
    /// The authorization server refused a step, with its OAuth error.
    #[error("the authorization server refused {step}: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        /// The step refused (registration, the code exchange, a refresh).
        step: &'static str,
        /// Its OAuth `error` code.
        error: String,
        /// Its `error_description`.
        description: Option<String>,
    },
    /// The browser came back with something other than this sign-in's answer.
    #[error("{0}")]
    Callback(String),
    /// Nobody completed the sign-in in time.
    #[error("nobody signed in within {}", a2a_runtime_types::util::duration_text(*.0))]
    TimedOut(std::time::Duration),
    /// The saved sign-in could not be read or written.
    #[error("{path}: {reason}")]
    Storage {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The saved sign-in can no longer be refreshed: sign in again.
    #[error("the sign-in to {0} expired and cannot be refreshed: sign in again")]
    Expired(String),
}

/// Whether tokens for the protected resource `resource` may be sent to `url`: the same origin
/// (scheme, host and port), and a path at or below the resource's, at a segment boundary
/// (`/lib` does not cover `/library/`). Anything unparsable covers nothing.
pub(crate) fn resource_covers(resource: &str, url: &str) -> bool {
    let (Ok(resource), Ok(url)) = (url::Url::parse(resource), url::Url::parse(url)) else {
        return false;
    };
    if resource.cannot_be_a_base() || resource.host().is_none() || resource.origin() != url.origin()
    {
        return false;
    }
    let prefix = resource.path().trim_end_matches('/');
    let path = url.path().trim_end_matches('/');
    path == prefix || path.starts_with(&format!("{prefix}/"))
}

/// Whether `url` may be handed to a browser or sent a person's credentials: https, or http to
/// this machine (RFC 8252 §8.3). `javascript:`, `file:` and plain http elsewhere are not.
pub fn is_safe_to_open(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    match url.scheme() {
        "https" => url.host().is_some(),
        "http" => match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            None => false,
        },
        _ => false,
    }
}

/// A reqwest client for these requests: bounded in time, never following redirects (a
/// redirected token request would carry its code or refresh token elsewhere).
fn http(url: &str) -> Result<reqwest::Client, LoginError> {
    let unreachable = |reason: String| LoginError::Unreachable {
        url: url.to_owned(),
        reason,
    };
    a2a_runtime_types::https::client_builder()
        .map_err(|e| unreachable(e.to_string()))?
        .timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| unreachable(e.to_string()))
}

/// The JSON answer of `response`, read within [`MAX_ANSWER_BYTES`].
async fn json_of(url: &str, response: reqwest::Response) -> Result<serde_json::Value, LoginError> {
    let unreachable = |reason: String| LoginError::Unreachable {
        url: url.to_owned(),
        reason,
    };
    let bytes = crate::body::read_bounded(response, MAX_ANSWER_BYTES)
        .await
        .map_err(|error| match error {
            crate::body::BodyError::Transport(e) => unreachable(e.to_string()),
            crate::body::BodyError::TooLarge => {
                unreachable(format!("answered more than {MAX_ANSWER_BYTES} bytes"))
            }
        })?;
    serde_json::from_slice(&bytes).map_err(|e| unreachable(format!("answered no JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_covers_its_own_origin_below_its_path_only() {
        let covers = resource_covers;
        assert!(covers("https://h.example/", "https://h.example/library/"));
        assert!(covers(
            "https://h.example/library",
            "https://h.example/library/"
        ));
        assert!(!covers(
            "https://h.example/lib",
            "https://h.example/library/"
        ));
        assert!(!covers("http://", "http://anything.example/"));
        assert!(!covers("http:", "http://anything.example/"));
        assert!(!covers("https://h.example", "https://h.example.evil/"));
        assert!(!covers("https://h.example/", "http://h.example/"));
        assert!(!covers("https://h.example/", "https://h.example:8443/"));
    }

    #[test]
    fn only_https_and_loopback_http_are_opened() {
        assert!(is_safe_to_open("https://login.example/authorize?a=1&b=2"));
        assert!(is_safe_to_open("http://127.0.0.1:8080/oauth/authorize"));
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "http://login.example/authorize",
            "data:text/html,x",
        ] {
            assert!(!is_safe_to_open(bad), "{bad}");
        }
    }
}
