//! gRPC as the official clients meet it: bad requests sent with grpcio get a clear status
//! with the A2A error's details (`grpc_refusals.py`); the full client runs are in the binding
//! loops of `interop.rs`.

use super::*;

#[tokio::test]
async fn every_bad_grpc_request_gets_a_clear_status_with_the_a2a_error_details() {
    require_packages().await;
    let key = "grpc-key-0123456789abcdef";
    let keys = format!("ann={key}");
    let flags = ["--api-keys", &keys, "--max-body-bytes", "65536"];
    let (_server, base) = a2a_tests::spawn_served_with(SERVER, &flags).await;
    let address = base.trim_start_matches("http://").trim_end_matches('/');
    let script = script("grpc_refusals.py");
    let said = run_python(&[script.to_str().unwrap(), address, "65536", key]).await;
    assert!(said.contains("grpc refusals ok"), "{said}");
    // A host's root reads each request's tenant before an agent does: every mistake still gets
    // the answer an agent gives at its own address.
    let (_host, base) = a2a_tests::spawn_served_with(HOST, &["--max-body-bytes", "65536"]).await;
    let address = base.trim_start_matches("http://").trim_end_matches('/');
    let said = run_python(&[script.to_str().unwrap(), address, "65536"]).await;
    assert!(said.contains("grpc refusals ok"), "{said}");
}

#[tokio::test]
async fn grpc_over_tls_is_chosen_by_alpn_and_names_the_caller_by_certificate_or_key() {
    use a2a_runtime::server::ServeConfig;
    require_packages().await;
    let ca = a2a_tests::pki::TestCa::new("grpc-tls-ca");
    let (cert, key) = ca.server();
    let api_key = "alice-key-0123456789";
    let mut config = ServeConfig::default();
    config.tls.cert = Some(cert);
    config.tls.key = Some(key);
    config.tls.client_ca = Some(ca.cert_file());
    config.auth.api_keys = Some(format!("alice={api_key}"));
    config.auth.jwt_secret = Some("a-test-secret-of-at-least-32-bytes!!".into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = a2a_tests::vault::Vault
        .server()
        .config(config)
        .public_url(format!("https://{address}/"));
    tokio::spawn(async move { server.serve_on(listener).await.unwrap() });
    let client = ca.write("client.pem", &ca.client("alice.example"));
    let (ca_file, client) = (ca.cert_file(), client.to_str().unwrap().to_owned());
    let script = script("grpc_tls.py");
    let args = [
        script.to_str().unwrap(),
        &address,
        ca_file.to_str().unwrap(),
        &client,
        api_key,
    ];
    let said = run_python(&args).await;
    assert!(said.contains("grpc tls ok"), "{said}");
}

#[tokio::test]
async fn grpc_on_a_port_of_its_own_is_where_the_card_sends_clients_and_answers_grpc_alone() {
    require_packages().await;
    let flags = ["--grpc-bind", "127.0.0.1:0"];
    let (_server, base) = a2a_tests::spawn_served_with(SERVER, &flags).await;
    let card: serde_json::Value = a2a_tests::get(format!("{base}.well-known/agent-card.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    let grpc = interfaces
        .iter()
        .find(|i| i["protocolBinding"] == "GRPC")
        .and_then(|i| i["url"].as_str())
        .unwrap()
        .to_owned();
    let main = base.trim_start_matches("http://").trim_end_matches('/');
    assert!(
        grpc.starts_with("127.0.0.1:") && grpc != main,
        "{grpc} vs {main}"
    );
    // The official client follows the card to that port and runs its whole scenario there.
    let v1 = script("a2a_client.py");
    run_python(&[v1.to_str().unwrap(), &base, "GRPC"]).await;
    // Anything but gRPC there is refused as the gRPC specification says.
    let refused = a2a_tests::http()
        .post(format!("http://{grpc}/"))
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 415);
}
