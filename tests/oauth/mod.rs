//! The authorization server a connector signs in through (`oauth-server`): discovery,
//! registration, consent, codes, tokens the agents accept for their own resources only,
//! refresh rotation, client metadata documents, sign-ins, durability, and every refusal the
//! flow owes a client. (Modules of the `connectors` test binary.)

mod a2a_discovery;
mod abuse;
mod clients;
mod conformance;
mod durability;
mod field;
mod field_clients;
mod flow;
mod policy;
mod remotes;
mod sign_in;

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::library::Library;
use a2a_tests::oauth_flow::{authorized_code, register, token};
use a2a_tests::{TestServer, start};
use serde_json::Value;

const CALLBACK: &str = "http://127.0.0.1:33418/callback";
const LOAN_SCOPES: &str = "library:loans:write library:members:read";

/// The library (a declared bearer scheme) with an authorization server signing `alice` in.
async fn library(settings: OAuthServer) -> TestServer {
    start(Library.server().authorization_server(settings)).await
}

/// Registers a client and runs the flow to tokens for `resource`: the client id and the
/// token answer.
async fn signed_in(server: &TestServer, resource: &str, scope: &str) -> (String, Value) {
    let base = &server.base;
    let (status, client) = register(base, CALLBACK).await;
    assert_eq!(status, 201, "{client}");
    let client_id = client["client_id"].as_str().unwrap().to_owned();
    let (code, pkce) = authorized_code(base, &client_id, CALLBACK, resource, scope).await;
    let (status, tokens) = token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CALLBACK),
            ("client_id", &client_id),
            ("code_verifier", &pkce.verifier),
            ("resource", resource),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    (client_id, tokens)
}

fn text_of(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
