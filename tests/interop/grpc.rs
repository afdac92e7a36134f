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
}
