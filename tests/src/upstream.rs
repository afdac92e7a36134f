//! An OpenID Connect provider on loopback for proxy mode (npm's `oidc-provider`, run by
//! `tests/oidc/provider.mjs` with its development sign-in pages), and a person walking through
//! its pages in a browser.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::oauth_flow::{Browser, Outcome};

/// A provider running until dropped: its issuer URL.
pub struct Provider {
    /// Its issuer.
    pub issuer: String,
    _process: Child,
    /// Its standard output, held open: the provider logs there, and would die of a closed
    /// pipe.
    _output: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Provider {
    /// Starts the provider with one confidential client (`client_id`, `secret`) redirecting to
    /// `callback`, with `node`; `None` when the test environment lacks Node or the package.
    pub async fn start(client_id: &str, secret: &str, callback: &str) -> Option<Self> {
        Self::run("oidc/provider.mjs", &[client_id, secret, callback]).await
    }

    /// Starts it as the authorization server of a service signing in as itself
    /// (`tests/oidc/service.mjs`): client credentials for `client_id` with `secret`, JWT
    /// access tokens for `resource` (scope `agents:call`) signed with the keys at
    /// `{issuer}/jwks`; `None` as for [`start`](Self::start).
    pub async fn start_service(client_id: &str, secret: &str, resource: &str) -> Option<Self> {
        Self::run("oidc/service.mjs", &[client_id, secret, resource]).await
    }

    async fn run(script: &str, args: &[&str]) -> Option<Self> {
        let (Ok(node), Ok(_)) = (
            std::env::var("A2A_TEST_NODE"),
            std::env::var("A2A_TEST_OIDC_PROVIDER"),
        ) else {
            return None;
        };
        let mut process = Command::new(node)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs");
        let stdout = process.stdout.take().expect("a piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let issuer = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the provider started in time")
            .expect("its output")
            .expect("the provider printed its issuer");
        Some(Self {
            issuer,
            _process: process,
            _output: lines,
        })
    }
}

/// Opens `url` (an authorization request) in `browser` as the person `login`, through the
/// provider's sign-in and consent pages, until the authorization server's own consent page,
/// a redirect to `callback`, or another page.
pub async fn walk(browser: &mut Browser, url: &str, login: &str, callback: &str) -> Outcome {
    let mut outcome = browser.open(url).await;
    // The page the browser is at, which forms' actions are relative to.
    let mut at = url.to_owned();
    for _ in 0..20 {
        outcome = match outcome {
            Outcome::Redirect(to) if to.as_str().starts_with(callback) => {
                return Outcome::Redirect(to);
            }
            Outcome::Redirect(to) => {
                at = to.to_string();
                browser.open(to.as_str()).await
            }
            Outcome::Page(200, html) if html.contains("name=\"login\"") => {
                let action = action_of(&html, &at);
                let form = [("prompt", "login"), ("login", login), ("password", "x")];
                browser.submit(&action, &form).await
            }
            Outcome::Page(200, html) if html.contains("value=\"consent\"") => {
                let action = action_of(&html, &at);
                browser.submit(&action, &[("prompt", "consent")]).await
            }
            done => return done,
        };
    }
    panic!("the sign-in went round in circles");
}

/// The absolute URL of the first form's `action` in `html`, relative to `base`.
fn action_of(html: &str, base: &str) -> String {
    let (_, rest) = html
        .split_once(" action=\"")
        .expect("a form with an action");
    let action = rest.split('"').next().unwrap_or_default();
    url::Url::parse(base)
        .and_then(|base| base.join(action))
        .expect("a form action URL")
        .to_string()
}
