//! Registrations and client ID metadata documents as real clients send them (the fixtures, in
//! `field_clients.rs`, name their public sources): what this server does not do is dropped
//! rather than failing the client, and every client signs in, calls a tool and refreshes —
//! with no redirect preset, with every preset, and under presets that are not its own.

use a2a_runtime::oauth::OAuthServer;
use a2a_tests::oauth_flow::{
    Browser, Outcome, Pkce, authorize_url, authorized_code, document_server, query, register_with,
    token,
};
use a2a_tests::pki::TestCa;
use serde_json::{Value, json};

use super::super::{call, mcp};
use super::field_clients::{FieldClient, Introduction, cursor, field_clients, vscode};
use super::{LOAN_SCOPES, library, text_of};

/// A client as the server knows it once it introduced itself: its id, and its secret if it
/// is confidential.
struct Known {
    client_id: String,
    secret: Option<String>,
    /// Whether it asked for the refresh token grant (Copilot CLI's document does not).
    refreshes: bool,
}

/// Whether a registration or metadata document asks for refresh tokens.
fn asks_to_refresh(introduction: &Value) -> bool {
    introduction["grant_types"]
        .as_array()
        .is_some_and(|grants| grants.iter().any(|g| g == "refresh_token"))
}

/// Signs in as `client` through its redirect, borrows a book over MCP with the token, and
/// refreshes it when the client asked for refresh tokens.
async fn signs_in_calls_and_refreshes(
    server: &a2a_tests::TestServer,
    client: &Known,
    redirect: &str,
) {
    let base = &server.base;
    let client_id = client.client_id.as_str();
    let resource = format!("{base}mcp");
    let (code, pkce) = authorized_code(base, client_id, redirect, &resource, LOAN_SCOPES).await;
    let secret = client.secret.as_deref().map(|s| ("client_secret", s));
    let exchange: Vec<(&str, &str)> = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect),
        ("client_id", client_id),
        ("code_verifier", pkce.verifier.as_str()),
        ("resource", resource.as_str()),
    ]
    .into_iter()
    .chain(secret)
    .collect();
    let (status, tokens) = token(base, &exchange).await;
    assert_eq!(status, 200, "{client_id}: {tokens}");
    let access = tokens["access_token"].as_str().unwrap();
    let borrow = call("borrow", json!({"title": "Dune"}));
    let (status, _, called) = mcp(server, "mcp", Some(access), "tools/call", borrow).await;
    assert_eq!(
        (status, text_of(&called).as_str()),
        (200, "alice borrowed Dune"),
        "{client_id}"
    );
    if !client.refreshes {
        assert_eq!(tokens.get("refresh_token"), None, "{client_id}: {tokens}");
        return;
    }
    let refresh_token = tokens["refresh_token"].as_str().expect("a refresh token");
    let refresh: Vec<(&str, &str)> = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", client_id),
    ]
    .into_iter()
    .chain(secret)
    .collect();
    let (status, renewed) = token(base, &refresh).await;
    assert_eq!(status, 200, "{client_id}: {renewed}");
}

/// Registers `body` as a client: the answer, after checking it was accepted.
async fn registered(server: &a2a_tests::TestServer, name: &str, body: Value) -> Value {
    let (status, client) = register_with(&server.base, body).await;
    assert_eq!(status, 201, "{name}: {client}");
    client
}

/// Serves every field client's metadata document on loopback (`/{name}.json`), starts the
/// library with `settings` trusting them, and runs each client's whole flow.
async fn every_field_client_completes_the_flow(settings: OAuthServer) -> a2a_tests::TestServer {
    let ca = TestCa::new("field-documents");
    let clients = field_clients();
    let documents = document_server(&ca, |base| {
        clients
            .iter()
            .filter_map(|client| match client.introduction {
                Introduction::Documented(document) => Some((
                    format!("/{}.json", client.name),
                    document(&format!("{base}{}.json", client.name)),
                )),
                Introduction::Registers(_) => None,
            })
            .collect()
    })
    .await;
    let settings = settings
        .client_documents_allow_private(true)
        .client_documents_ca(ca.cert_pem.clone());
    let server = library(settings).await;
    for FieldClient {
        name,
        introduction,
        redirect,
    } in clients
    {
        let known = match introduction {
            Introduction::Registers(body) => {
                let refreshes = asks_to_refresh(&body);
                let client = registered(&server, name, body).await;
                Known {
                    client_id: client["client_id"].as_str().unwrap().to_owned(),
                    secret: client["client_secret"].as_str().map(str::to_owned),
                    refreshes,
                }
            }
            Introduction::Documented(document) => Known {
                client_id: format!("{documents}{name}.json"),
                secret: None,
                refreshes: asks_to_refresh(&document("https://documents.example/x.json")),
            },
        };
        signs_in_calls_and_refreshes(&server, &known, redirect).await;
    }
    server
}

#[tokio::test]
async fn every_field_client_signs_in_calls_and_refreshes_with_no_preset() {
    let server = every_field_client_completes_the_flow(OAuthServer::dev_user("alice")).await;
    // Open: Cursor's own app callback is kept although Cursor does not say it is a native app
    // (makeplane/plane-mcp-server#159); another app's scheme is a native app's only.
    let client = registered(&server, "cursor", cursor()).await;
    assert_eq!(client["redirect_uris"], cursor()["redirect_uris"]);
    let mut stranger = cursor();
    stranger["redirect_uris"] = json!(["com.stranger.app:/cb", "https://stranger.example/cb"]);
    let client = registered(&server, "stranger", stranger).await;
    assert_eq!(
        client["redirect_uris"],
        json!(["https://stranger.example/cb"])
    );
}

#[tokio::test]
async fn cursor_with_no_preset_signs_in_through_its_app_callback() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let client = registered(&server, "cursor", cursor()).await;
    let known = Known {
        client_id: client["client_id"].as_str().unwrap().to_owned(),
        secret: None,
        refreshes: true,
    };
    let app = "cursor://anysphere.cursor-mcp/oauth/callback";
    signs_in_calls_and_refreshes(&server, &known, app).await;
}

#[tokio::test]
async fn a_confidential_clients_loopback_redirect_keeps_its_path_though_any_port_will_do() {
    let server = library(OAuthServer::dev_user("alice")).await;
    let body = json!({
        "client_name": "A confidential desktop client",
        "redirect_uris": ["http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "client_secret_post",
    });
    let client = registered(&server, "confidential", body).await;
    let known = Known {
        client_id: client["client_id"].as_str().unwrap().to_owned(),
        secret: client["client_secret"].as_str().map(str::to_owned),
        refreshes: true,
    };
    signs_in_calls_and_refreshes(&server, &known, "http://127.0.0.1:40123/callback").await;
    let pkce = Pkce::new();
    let drifted = authorize_url(
        &server.base,
        &[
            ("response_type", "code"),
            ("client_id", known.client_id.as_str()),
            ("redirect_uri", "http://127.0.0.1:40123/mcp/oauth/callback"),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("scope", LOAN_SCOPES),
        ],
    );
    let Outcome::Page(status, page) = Browser::new().open(&drifted).await else {
        panic!("a confidential client's other loopback path was not refused on a page");
    };
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("redirect"), "{page}");
}

#[tokio::test]
async fn every_field_client_signs_in_calls_and_refreshes_under_every_preset() {
    let all = OAuthServer::dev_user("alice")
        .redirect_preset("all")
        .unwrap();
    let server = every_field_client_completes_the_flow(all).await;
    // The operator named Cursor's app callback, so it is kept; an app nobody named is not.
    let client = registered(&server, "cursor", cursor()).await;
    assert_eq!(client["redirect_uris"].as_array().map(Vec::len), Some(3));
    let mut stranger = cursor();
    stranger["redirect_uris"] = json!(["stranger://app/cb", "https://stranger.example/cb"]);
    stranger["application_type"] = "native".into();
    let (status, refused) = register_with(&server.base, stranger).await;
    assert_eq!(status, 400);
    assert_eq!(refused["error"], "invalid_redirect_uri");
    assert!(
        refused["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("stranger://app/cb") && d.contains("allow-list")),
        "{refused}"
    );
}

#[tokio::test]
async fn an_app_redirect_is_named_by_its_scheme_on_the_consent_page_and_receives_the_code() {
    let settings = OAuthServer::dev_user("alice")
        .redirect_preset("cursor")
        .unwrap();
    let server = library(settings).await;
    let base = &server.base;
    let client = registered(&server, "cursor", cursor()).await;
    let client_id = client["client_id"].as_str().unwrap();
    let app = "cursor://anysphere.cursor-mcp/oauth/callback";
    let pkce = Pkce::new();
    let url = authorize_url(
        base,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", app),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("scope", "library:loans:write"),
        ],
    );
    let mut browser = Browser::new();
    let Outcome::Consent {
        html,
        request,
        csrf,
        policy,
    } = browser.open(&url).await
    else {
        panic!("no consent page for the app redirect");
    };
    assert!(
        html.contains("<strong>cursor:</strong>") && html.contains("an app on your own computer"),
        "{html}"
    );
    assert!(policy.contains("form-action 'self' cursor:;"), "{policy}");
    let action = format!("{base}oauth/consent");
    let scopes = ["library:loans:write"];
    let Outcome::Redirect(back) = browser
        .decide(&action, &request, &csrf, "approve", &scopes)
        .await
    else {
        panic!("approving did not send the code to the app");
    };
    assert_eq!(back.scheme(), "cursor");
    let code = query(&back, "code").expect("a code for the app");
    let exchange = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", app),
        ("client_id", client_id),
        ("code_verifier", pkce.verifier.as_str()),
    ];
    let (status, tokens) = token(base, &exchange).await;
    assert_eq!(status, 200, "{tokens}");
}

#[tokio::test]
async fn vscode_registers_under_an_allow_list_of_other_assistants_with_its_loopback_callbacks() {
    let settings = OAuthServer::dev_user("alice")
        .redirect_preset("claude")
        .and_then(|settings| settings.redirect_preset("chatgpt"))
        .unwrap();
    let server = library(settings).await;
    let client = registered(&server, "vscode", vscode()).await;
    assert_eq!(
        client["redirect_uris"],
        json!(["http://127.0.0.1/", "http://127.0.0.1:33418/"]),
        "the web redirects no preset allows are dropped"
    );
    assert_eq!(client["application_type"], "native");
    let known = Known {
        client_id: client["client_id"].as_str().unwrap().to_owned(),
        secret: None,
        refreshes: true,
    };
    signs_in_calls_and_refreshes(&server, &known, "http://127.0.0.1:33418/").await;
}

#[tokio::test]
async fn a_loopback_only_preset_closes_registration_to_web_redirects() {
    let settings = OAuthServer::dev_user("alice")
        .redirect_preset("claude-code")
        .unwrap();
    let server = library(settings).await;
    let (status, refused) = register_with(
        &server.base,
        json!({"redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]}),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("loopback redirects only")),
        "{refused}"
    );
}

#[tokio::test]
async fn a_native_app_registers_a_reverse_domain_scheme_and_no_scheme_a_browser_or_system_answers()
{
    let server = library(OAuthServer::dev_user("alice")).await;
    let native = |redirect: &str| {
        json!({
            "client_name": "A native app",
            "redirect_uris": [redirect],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
        })
    };
    // RFC 8252 §7.1: a domain name its maker controls, reversed.
    let app = "com.example.app:/oauth/callback";
    let client = registered(&server, "reverse-domain", native(app)).await;
    assert_eq!(client["redirect_uris"], json!([app]));
    for hostile in [
        "view-source:https://evil.example/",
        "filesystem:https://evil.example/temporary/x",
        "jar:https://evil.example/a.jar!/",
        "chrome-extension://abcdefghijklmnop/cb",
        "moz-extension://0123-4567/cb",
        "ms-msdt:/id%20PCWDiagnostic",
        "search-ms:query=x",
        "ms-settings:privacy",
        "smb://evil.example/share",
    ] {
        let (status, refused) = register_with(&server.base, native(hostile)).await;
        assert_eq!(status, 400, "{hostile}: {refused}");
        assert_eq!(refused["error"], "invalid_redirect_uri", "{hostile}");
        let description = refused["error_description"].as_str().unwrap_or_default();
        assert!(description.contains("reversed"), "{hostile}: {description}");
    }
}
