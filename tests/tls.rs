//! TLS over real sockets: HTTPS with `--tls-cert`/`--tls-key` (card URLs `https://`), and the
//! mutual TLS scheme: a client certificate issued by `--tls-client-ca` names the caller, one
//! from another CA fails the handshake, none at all is a 401 naming the scheme.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use a2a_runtime::server::ServeConfig;
use a2a_tests::pki::TestCa;
use a2a_tests::vault::Vault;
use serde_json::{Value, json};

const KEY: &str = "alice-key-0123456789";

/// Serves the vault over TLS (client certificates from `ca`, API keys beside them); its base URL.
async fn serve_tls(ca: &TestCa) -> String {
    let (cert, key) = ca.server();
    let mut config = ServeConfig::default();
    config.tls.cert = Some(cert);
    config.tls.key = Some(key);
    config.tls.client_ca = Some(ca.cert_file());
    config.auth.api_keys = Some(format!("alice={KEY}"));
    config.auth.jwt_secret = Some("a-test-secret-of-at-least-32-bytes!!".into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!(
        "https://127.0.0.1:{}/",
        listener.local_addr().unwrap().port()
    );
    let server = Vault.server().config(config).public_url(base.clone());
    tokio::spawn(async move { server.serve_on(listener).await.unwrap() });
    base
}

fn client(ca: &TestCa, identity: Option<String>) -> reqwest::Client {
    // reqwest's own TLS options (a private root, a client identity) use the process's crypto
    // provider: ring, as the runtime's clients use.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca.cert_pem.as_bytes()).unwrap()]);
    if let Some(identity) = identity {
        builder = builder.identity(reqwest::Identity::from_pem(identity.as_bytes()).unwrap());
    }
    builder.build().unwrap()
}

async fn whoami(http: &reqwest::Client, base: &str) -> Result<(u16, Value), reqwest::Error> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m", "role": "ROLE_USER", "parts": [{"data": {}}],
        "metadata": {"skill": "whoami"}}}});
    let response = http
        .post(base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await?;
    let status = response.status().as_u16();
    Ok((status, response.json().await?))
}

#[tokio::test]
async fn a_client_certificate_from_the_configured_ca_names_the_caller() {
    let ca = TestCa::new("tls-ca");
    let base = serve_tls(&ca).await;
    let http = client(&ca, Some(ca.client("alice.example")));

    let card: Value = http
        .get(format!("{base}.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        card["supportedInterfaces"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with("https://"),
        "{card}"
    );
    assert_eq!(
        card["securitySchemes"]["mtls"]["mtlsSecurityScheme"],
        json!({}),
        "{card}"
    );

    let (status, body) = whoami(&http, &base).await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["task"]["artifacts"][0]["parts"][0]["text"], "alice.example via mtls []",
        "{body}"
    );

    // No certificate: the other schemes still work, and without credentials the 401 names
    // the mutual TLS scheme among the others.
    let anonymous = client(&ca, None);
    let (status, body) = whoami(&anonymous, &base).await.unwrap();
    assert_eq!(status, 401, "{body}");
    let response = anonymous
        .post(&base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .header("X-API-Key", KEY)
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);

    // Plain HTTP on the TLS port is not served.
    let plain = a2a_tests::http()
        .get(base.replace("https://", "http://") + ".well-known/agent-card.json")
        .send()
        .await;
    assert!(
        plain.is_err() || !plain.unwrap().status().is_success(),
        "plain HTTP must not be answered"
    );
}

#[tokio::test]
async fn a_certificate_from_another_ca_fails_the_handshake() {
    let ca = TestCa::new("tls-trusted");
    let rogue = TestCa::new("tls-rogue");
    let base = serve_tls(&ca).await;
    let http = client(&ca, Some(rogue.client("mallory")));
    let refused = whoami(&http, &base).await;
    assert!(refused.is_err(), "{refused:?}");
    let _ = std::fs::remove_dir_all(rogue.dir());
}

#[tokio::test]
async fn tls_settings_that_cannot_work_are_startup_errors_naming_the_flag() {
    let ca = TestCa::new("tls-config");
    let (cert, _) = ca.server();
    let mut config = ServeConfig::default();
    config.tls.cert = Some(cert.clone());
    let error = Vault.server().config(config).router().unwrap_err();
    assert!(error.to_string().contains("--tls-key"), "{error}");

    let mut config = ServeConfig::default();
    config.tls.cert = Some(cert);
    config.tls.key = Some(ca.write("garbage.pem", "not a key"));
    config.auth.api_keys = Some(format!("alice={KEY}"));
    config.auth.jwt_secret = Some("a-test-secret-of-at-least-32-bytes!!".into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let error = Vault
        .server()
        .config(config)
        .serve_on(listener)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("--tls-key"), "{error}");

    // The mutual TLS scheme declared without a client CA says what to set.
    let mut config = ServeConfig::default();
    config.auth.api_keys = Some(format!("alice={KEY}"));
    config.auth.jwt_secret = Some("a-test-secret-of-at-least-32-bytes!!".into());
    let error = Vault
        .server()
        .config(config)
        .security_scheme(a2a_runtime::auth::NamedScheme::new(
            "mtls",
            a2a_runtime::auth::SecurityScheme::MutualTls,
        ))
        .router()
        .unwrap_err();
    assert!(error.to_string().contains("--tls-client-ca"), "{error}");
}
