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
