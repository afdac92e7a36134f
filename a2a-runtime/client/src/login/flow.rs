//! The sign-in itself: a public client registered for a loopback redirect (unless given), the
//! authorization request with PKCE S256 and a state, the browser's answer checked (state, and
//! RFC 9207 `iss`), and the code exchanged for tokens.

use std::time::Duration;

use base64::Engine as _;
use serde_json::json;
use sha2::Digest as _;
use tokio::net::TcpListener;

use super::cache::SavedLogin;
use super::callback::{CALLBACK_PATH, receive};
use super::token::{refused, token_request, unreachable};
use super::{Login, LoginError, http, json_of};

/// How long a person has to sign in and consent.
const PATIENCE: Duration = Duration::from_secs(300);

impl Login {
    /// Signs in: listens on 127.0.0.1 (on `port`, or any free one), hands the authorization
    /// URL to `open` (which shows it to the person, or opens their browser), waits up to five
    /// minutes for the browser to come back, and exchanges the code. The tokens, to
    /// [`save`](SavedLogin::save).
    pub async fn sign_in(
        self,
        port: Option<u16>,
        open: impl FnOnce(&str),
    ) -> Result<SavedLogin, LoginError> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))
            .await
            .map_err(|e| LoginError::Callback(format!("cannot listen on 127.0.0.1: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| LoginError::Callback(e.to_string()))?;
        let redirect = format!("http://127.0.0.1:{}{CALLBACK_PATH}", bound.port());
        let client_id = match &self.client_id {
            Some(id) => id.clone(),
            None => self.register(&redirect).await?,
        };
        let verifier = random_text()?;
        let state = random_text()?;
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()));
        let scope = self.scopes.join(" ");
        let mut params = vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", redirect.as_str()),
            ("state", state.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("resource", self.resource.as_str()),
        ];
        if !scope.is_empty() {
            params.push(("scope", scope.as_str()));
        }
        let mut url =
            url::Url::parse(&self.authorization_endpoint).map_err(|e| LoginError::Unreachable {
                url: self.authorization_endpoint.clone(),
                reason: format!("not a URL: {e}"),
            })?;
        url.query_pairs_mut().extend_pairs(&params);
        // Checked when discovered too; a `Login` is only ever made by `discover`.
        if !super::is_safe_to_open(url.as_str()) {
            return Err(LoginError::NoAuthorizationServer(format!(
                "the authorization endpoint `{}` is neither https nor on this machine",
                self.authorization_endpoint
            )));
        }
        open(url.as_str());
        let answer = receive(&listener, PATIENCE).await?;
        let code = self.code_of(&answer, &state)?;
        let exchange = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect.as_str()),
            ("client_id", client_id.as_str()),
            ("code_verifier", verifier.as_str()),
            ("resource", self.resource.as_str()),
        ];
        let tokens = token_request(&self.token_endpoint, &exchange, "the code exchange").await?;
        SavedLogin::from_tokens(&self, client_id, &tokens)
    }

    /// Registers a public native client redirecting to `redirect`: its id.
    async fn register(&self, redirect: &str) -> Result<String, LoginError> {
        let Some(endpoint) = &self.registration_endpoint else {
            return Err(LoginError::NoAuthorizationServer(format!(
                "{} does not register clients: register one with the redirect URI \
                 http://127.0.0.1/callback and sign in with its client id",
                self.issuer
            )));
        };
        let metadata = json!({
            "client_name": "a2a (command line)",
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
        });
        let response = http(endpoint)?
            .post(endpoint)
            .json(&metadata)
            .send()
            .await
            .map_err(|e| unreachable(endpoint, &e))?;
        let status = response.status();
        let answer = json_of(endpoint, response).await?;
        if !status.is_success() {
            return Err(refused("the registration", &answer));
        }
        answer["client_id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| LoginError::Unreachable {
                url: endpoint.clone(),
                reason: "the registration answer has no `client_id`".into(),
            })
    }

    /// The code of the browser's `answer`, once it is this sign-in's (its `state`) from this
    /// authorization server (its `iss`, when it says, RFC 9207).
    fn code_of(&self, answer: &[(String, String)], state: &str) -> Result<String, LoginError> {
        let param = |name: &str| {
            answer
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        if param("state").as_deref() != Some(state) {
            return Err(LoginError::Callback(
                "the browser came back with another sign-in's state: not this one".into(),
            ));
        }
        match param("iss") {
            Some(iss) if iss != self.issuer => {
                return Err(LoginError::Callback(format!(
                    "the answer comes from `{iss}`, not `{}` (RFC 9207): not followed",
                    self.issuer
                )));
            }
            // RFC 9207 §2.4: a server that says it sends `iss` must, or the answer is refused.
            None if self.sends_iss => {
                return Err(LoginError::Callback(format!(
                    "the answer carries no `iss`, which {} promises (RFC 9207): not followed",
                    self.issuer
                )));
            }
            _ => {}
        }
        if let Some(error) = param("error") {
            return Err(LoginError::Refused {
                step: "the sign-in",
                error,
                description: param("error_description"),
            });
        }
        param("code").ok_or_else(|| LoginError::Callback("the answer carries no code".into()))
    }
}

/// 32 random bytes, base64url: a PKCE verifier (43 characters) or a state.
fn random_text() -> Result<String, LoginError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        LoginError::Callback(format!(
            "the operating system's random generator failed: {e}"
        ))
    })?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}
