//! Registrations as real clients send them (each fixture names its public source): what this
//! server does not do is dropped rather than failing the registration, and the client signs in,
//! calls a tool and refreshes with what was kept.

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::oauth_flow::{authorized_code, register_with, token};
use serde_json::{Value, json};

use super::super::{call, mcp};
use super::{LOAN_SCOPES, library, text_of};

/// Cursor's dynamic registration: its app's private scheme, its web callback and a loopback
/// one in one request, as a public client (erp-mafia/accounted PR #2225; laravel/mcp #173;
/// soflyy/agent-connector-for-wp#111).
fn cursor() -> Value {
    json!({
        "client_name": "Cursor",
        "redirect_uris": [
            "cursor://anysphere.cursor-mcp/oauth/callback",
            "https://www.cursor.com/agents/mcp/oauth/callback",
            "http://localhost:8787/callback",
        ],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// VS Code's dynamic registration (microsoft/vscode `src/vs/base/common/oauth.ts`;
/// microsoft/vscode#278512): its web redirects and two loopback ones, a native public client
/// asking for the protected resource's scopes joined (empty here).
fn vscode() -> Value {
    json!({
        "client_name": "Visual Studio Code",
        "client_uri": "https://code.visualstudio.com/",
        "redirect_uris": [
            "https://insiders.vscode.dev/redirect",
            "https://vscode.dev/redirect",
            "http://127.0.0.1/",
            "http://127.0.0.1:33418/",
        ],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
        "scope": "",
    })
}

/// Signs in as the public client `client_id` through `redirect`, borrows a book over MCP with
/// the token, and refreshes it.
async fn signs_in_calls_and_refreshes(
    server: &a2a_tests::TestServer,
    client_id: &str,
    redirect: &str,
) {
    let base = &server.base;
    let resource = format!("{base}mcp");
    let (code, pkce) = authorized_code(base, client_id, redirect, &resource, LOAN_SCOPES).await;
    let exchange = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect),
        ("client_id", client_id),
        ("code_verifier", pkce.verifier.as_str()),
        ("resource", resource.as_str()),
    ];
    let (status, tokens) = token(base, &exchange).await;
    assert_eq!(status, 200, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap();
    let borrow = call("borrow", json!({"title": "Dune"}));
    let (status, _, called) = mcp(server, "mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(
        (status, text_of(&called).as_str()),
        (200, "alice borrowed Dune")
    );
    let refresh_token = tokens["refresh_token"].as_str().unwrap();
    let refresh = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", client_id),
    ];
    let (status, renewed) = token(base, &refresh).await;
    assert_eq!(status, 200, "{renewed}");
}

#[tokio::test]
async fn cursor_registers_with_its_web_and_loopback_callbacks_and_signs_in() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let (status, client) = register_with(&server.base, cursor()).await;
    assert_eq!(status, 201, "{client}");
    assert_eq!(
        client["redirect_uris"],
        json!([
            "https://www.cursor.com/agents/mcp/oauth/callback",
            "http://localhost:8787/callback"
        ]),
        "its app scheme is a native app's only: dropped, the rest kept"
    );
    let client_id = client["client_id"].as_str().unwrap();
    signs_in_calls_and_refreshes(&server, client_id, "http://localhost:8787/callback").await;
}

#[tokio::test]
async fn vscode_registers_under_an_allow_list_of_other_assistants_with_its_loopback_callbacks() {
    let settings = OAuthServer::dev_user("alice")
        .redirect_preset("claude")
        .and_then(|settings| settings.redirect_preset("chatgpt"))
        .unwrap();
    let server = library(settings).await;
    let (status, client) = register_with(&server.base, vscode()).await;
    assert_eq!(status, 201, "{client}");
    assert_eq!(
        client["redirect_uris"],
        json!(["http://127.0.0.1/", "http://127.0.0.1:33418/"]),
        "the web redirects no preset allows are dropped"
    );
    assert_eq!(client["application_type"], "native");
    let client_id = client["client_id"].as_str().unwrap();
    signs_in_calls_and_refreshes(&server, client_id, "http://127.0.0.1:33418/").await;
}
