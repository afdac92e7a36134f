//! An agent the official Python a2a-sdk serves, fronted by a host as the remote agent `py`:
//! the official A2A client sends, streams, cancels and resubscribes through the host on every
//! binding, and the official MCP client calls its skill as a tool on its own and the shared
//! endpoint.

use super::*;

#[tokio::test]
async fn official_clients_reach_a_python_agent_through_the_host_on_every_binding() {
    let mut agent = PythonAgent::bind(Sdk::V1).await;
    let remote = agent.serve(None).await;
    let host = a2a_runtime::server::Host::new()
        .remote_agent("py", remote)
        .agent("hello", hello::Hello);
    let host = a2a_tests::start_host(host).await;
    let driver = script("remote_host.py");
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        run_python(&[driver.to_str().unwrap(), &host.base, binding]).await;
    }
}
