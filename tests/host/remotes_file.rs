//! `--remotes FILE`: the remotes a host fronts, declared in TOML with the credential the host
//! presents to each (read from a file or the environment), their timeouts and scopes; a file
//! the host cannot use is refused naming the remote and the field.

use super::*;

/// Writes `text` to a `remotes.toml` of its own directory (with `files` beside it); its path.
fn remotes_file(text: &str, files: &[(&str, &str)]) -> String {
    let dir = a2a_tests::scratch_dir();
    for (name, content) in files {
        std::fs::write(dir.join(name), content).unwrap();
    }
    let path = dir.join("remotes.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn a_remotes_file_mounts_remotes_that_see_the_hosts_credential() {
    let (_remote, remote) = a2a_tests::spawn_served_with(
        env!("CARGO_BIN_EXE_interop-currency"),
        &["--api-keys", "host=k3y-for-the-host-0001"],
    )
    .await;
    let file = remotes_file(
        &format!(
            r#"
# The currency agent requires an API key: `fx` presents the host's, `bare` none.
[[remote]]
id = "fx"
agent = "{remote}"
timeout = "10s"
connect_timeout = "5s"
credential = {{ header = "X-API-Key", value_file = "fx.key" }}

[[remote]]
id = "bare"
agent = "{remote}"
"#
        ),
        &[("fx.key", "k3y-for-the-host-0001\n")],
    );
    let (_host, base) = a2a_tests::spawn_served_with(HOST, &["--remotes", &file]).await;
    let host = TestServer::at(base);
    let sent = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    let refused = rpc_at(&host, "bare/", "SendMessage", convert(None)).await;
    let status = &refused["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{refused}");
    let said = status["message"].to_string();
    assert!(
        said.contains("remote agent `bare`") && said.contains("authentication required"),
        "{said}"
    );
}

/// Starts the example host with `--remotes file`: its exit status and standard error.
fn refused_with(file: &str) -> String {
    let output = std::process::Command::new(HOST)
        .args(["--bind", "127.0.0.1:0", "--remotes", file])
        .env_remove("NO_SUCH_TOKEN_VARIABLE")
        .output()
        .unwrap();
    assert!(!output.status.success(), "a host started with {file}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_remotes_file_the_host_cannot_use_is_refused_naming_the_remote_and_the_field() {
    let misspelled = remotes_file(
        "[[remote]]\nid = \"py\"\nagnet = \"http://127.0.0.1:9/\"\n",
        &[],
    );
    let said = refused_with(&misspelled);
    assert!(
        said.contains("remotes.toml") && said.contains("agnet"),
        "{said}"
    );
    let two = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\nmcp = \"http://127.0.0.1:9/mcp\"\n";
    let said = refused_with(&remotes_file(two, &[]));
    assert!(
        said.contains("remote `py`") && said.contains("exactly one of `agent`"),
        "{said}"
    );
    let unset = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\ncredential = { bearer_env = \"NO_SUCH_TOKEN_VARIABLE\" }\n";
    let said = refused_with(&remotes_file(unset, &[]));
    assert!(
        said.contains("remote `py`") && said.contains("`NO_SUCH_TOKEN_VARIABLE` is not set"),
        "{said}"
    );
    let both = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\n\
                credential = { bearer_env = \"HOME\" }\n\
                oauth = { token_url = \"http://127.0.0.1:9/token\", client_id = \"h\", client_secret_env = \"HOME\" }\n";
    let said = refused_with(&remotes_file(both, &[]));
    assert!(
        said.contains("remote `py`") && said.contains("`credential` or `oauth`"),
        "{said}"
    );
    let garbage = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\ntls_identity_file = \"id.pem\"\n";
    let said = refused_with(&remotes_file(garbage, &[("id.pem", "not a certificate")]));
    assert!(
        said.contains("remote `py`") && said.contains("no certificate"),
        "{said}"
    );
    let slow = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\ntimeout = \"soon\"\n";
    let said = refused_with(&remotes_file(slow, &[]));
    assert!(
        said.contains("`timeout`") && said.contains("soon"),
        "{said}"
    );
}

#[tokio::test]
async fn a_host_signs_in_to_its_remotes_with_oauth_client_credentials_at_a_real_provider() {
    let resource = "https://fx.example/";
    let Some(provider) =
        a2a_tests::upstream::Provider::start_service("agent-host", "host-s3cret", resource).await
    else {
        eprintln!("skipped: no Node or oidc-provider (scripts/test installs them)");
        return;
    };
    let issuer = &provider.issuer;
    // The remote takes only the provider's tokens for itself, checked against its keys.
    let (_remote, remote) = a2a_tests::spawn_served_with(
        env!("CARGO_BIN_EXE_interop-currency"),
        &[
            "--jwks-url",
            &format!("{issuer}/jwks"),
            "--jwt-issuer",
            issuer,
            "--jwt-audience",
            resource,
        ],
    )
    .await;
    let oauth = |secret: &str| {
        format!(
            "{{ token_url = \"{issuer}/token\", client_id = \"agent-host\", \
             client_secret_file = \"{secret}\", scope = \"agents:call\", resource = \"{resource}\" }}"
        )
    };
    let file = remotes_file(
        &format!(
            "[[remote]]\nid = \"fx\"\nagent = \"{remote}\"\noauth = {}\n\n\
             [[remote]]\nid = \"fxmcp\"\nmcp = \"{remote}mcp\"\noauth = {}\n\n\
             [[remote]]\nid = \"wrong\"\nagent = \"{remote}\"\noauth = {}\n",
            oauth("host.secret"),
            oauth("host.secret"),
            oauth("wrong.secret"),
        ),
        &[
            ("host.secret", "host-s3cret\n"),
            ("wrong.secret", "guessed\n"),
        ],
    );
    let (_host, base) = a2a_tests::spawn_served_with(HOST, &["--remotes", &file]).await;
    let host = TestServer::at(base);
    // The agent, and its MCP server through the host's MCP session signed in the same way.
    converts_through(&host).await;
    // A secret the provider refuses: the caller is told the remote's credential could not be had.
    let said = refused_at(&host, "wrong").await;
    assert!(
        said.contains("remote agent `wrong`") && said.contains("invalid_client"),
        "{said}"
    );
}

#[tokio::test]
async fn a_host_shows_its_client_certificate_to_a_remote_that_asks_for_one() {
    let ca = a2a_tests::pki::TestCa::new("remotes-mtls");
    let (cert, key) = ca.server();
    let (cert, key, client_ca) = (
        cert.display().to_string(),
        key.display().to_string(),
        ca.cert_file(),
    );
    // The remote takes callers by their client certificates from this CA, and no other way.
    let (_remote, remote) = a2a_tests::spawn_served_with(
        env!("CARGO_BIN_EXE_interop-currency"),
        &[
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--tls-client-ca",
            &client_ca.display().to_string(),
        ],
    )
    .await;
    assert!(remote.starts_with("https://"), "{remote}");
    let file = remotes_file(
        &format!(
            "[[remote]]\nid = \"fx\"\nagent = \"{remote}\"\ntls_identity_file = \"host.pem\"\n\n\
             [[remote]]\nid = \"fxmcp\"\nmcp = \"{remote}mcp\"\ntls_identity_file = \"host.pem\"\n\n\
             [[remote]]\nid = \"bare\"\nagent = \"{remote}\"\n"
        ),
        &[("host.pem", &ca.client("agent-host"))],
    );
    // The host trusts the remote's private CA as an operator's would: the platform's roots.
    let ca_file = client_ca.display().to_string();
    let (_host, base) = a2a_tests::spawn_served_with_env(
        HOST,
        &["--remotes", &file],
        &[("SSL_CERT_FILE", &ca_file)],
    )
    .await;
    let host = TestServer::at(base);
    converts_through(&host).await;
    let said = refused_at(&host, "bare").await;
    assert!(said.contains("remote agent `bare`"), "{said}");
    let _ = std::fs::remove_dir_all(ca.dir());
}

/// `convert` called through `host` at the remote agent `fx` and the remote MCP server `fxmcp`.
async fn converts_through(host: &TestServer) {
    let sent = rpc_at(host, "fx/", "SendMessage", convert(None)).await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    let arguments = json!({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"});
    let call = json!({"name": "convert", "arguments": arguments});
    let (_, called) = host
        .mounted("fxmcp")
        .mcp_modern("tools/call", call, json!({}))
        .await;
    let called = response_from(&called);
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert!(called["result"].to_string().contains("EUR"), "{called}");
}

/// A call through `host` to the remote `id` fails: what its task's status says.
async fn refused_at(host: &TestServer, id: &str) -> String {
    let refused = rpc_at(host, &format!("{id}/"), "SendMessage", convert(None)).await;
    let status = &refused["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{refused}");
    status["message"].to_string()
}
