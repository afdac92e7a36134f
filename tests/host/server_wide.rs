//! The routes every server has, whatever its agents: a server of one agent and a host built with
//! the same settings answer every server-wide path alike, because one assembly serves both.

use a2a_runtime::oauth::OAuthServer;
use a2a_runtime::server::{Host, ServeConfig};
use a2a_tests::{TestServer, start, start_host};

/// Everything a server can add beside its agents, turned on.
fn everything_on() -> ServeConfig {
    let mut config = ServeConfig::default();
    config.console = Some(true);
    config.observe.metrics = true;
    config.observe.usage = true;
    config
}

/// The server-wide paths (`server/paths.rs` and what the authorization server routes), and a
/// path nobody serves.
const SERVER_WIDE: &[&str] = &[
    "/healthz",
    "/console",
    "/console/server.json",
    "/console/console.js",
    "/metrics",
    "/usage",
    "/oauth/clients",
    "/oauth/jwks",
    "/oauth/register",
    "/oauth/token",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/agent-card.json",
    "/.well-known/agent.json",
    "/mcp",
    "/no-such-path",
];

/// The status `server` answers a plain GET of each of `paths` with.
async fn statuses(server: &TestServer, paths: &[&str]) -> Vec<(String, u16)> {
    let mut answered = Vec::new();
    for path in paths {
        let url = format!("{}{}", server.base.trim_end_matches('/'), path);
        let status = server.http.get(url).send().await.unwrap().status();
        answered.push(((*path).to_owned(), status.as_u16()));
    }
    answered
}

#[tokio::test]
async fn a_single_agent_and_a_host_serve_the_same_server_wide_routes() {
    let single = currency::Currency::with_reference_rates()
        .server()
        .config(everything_on())
        .authorization_server(OAuthServer::dev_user("alice"));
    let host = Host::new()
        .config(everything_on())
        .agent("currency", currency::Currency::with_reference_rates())
        .agent("booking", booking::Booking::default())
        .authorization_server(OAuthServer::dev_user("alice"));
    let (single, host) = (start(single).await, start_host(host).await);
    let (of_single, of_host) = (
        statuses(&single, SERVER_WIDE).await,
        statuses(&host, SERVER_WIDE).await,
    );
    assert_eq!(of_single, of_host, "one assembly serves both");
    let served: Vec<_> = of_single
        .iter()
        .filter(|(_, status)| *status != 404)
        .collect();
    assert_eq!(
        served.len(),
        SERVER_WIDE.len() - 1,
        "every server-wide path is served, only the made-up one is not: {of_single:?}"
    );
    // What only a host has: its catalog.
    let catalog = ["/agents"];
    assert_eq!(statuses(&single, &catalog).await[0].1, 404);
    assert_eq!(statuses(&host, &catalog).await[0].1, 200);
}
