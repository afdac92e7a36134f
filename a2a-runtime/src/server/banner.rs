//! What a server says on the terminal once it listens: where each agent, its card and its
//! endpoints are. Scripts read the `A2A JSON-RPC:` line for the server's URL.

use std::sync::Arc;

use super::config::ServeConfig;
use super::mounts::Mounts;
use super::oauth::Deployed;
use super::paths;
use a2a_runtime_a2a::card::Endpoints;
use a2a_runtime_core::app::App;

/// Prints where `mounts` (served as `apps`) are on the server bound as `bound`.
pub(crate) fn announce(
    mounts: &Mounts,
    apps: &[Arc<App>],
    bound: &ServeConfig,
    oauth: Option<&Deployed>,
) {
    let base = bound.base_url();
    let trimmed = base.trim_end_matches('/');
    if let Some(deployed) = oauth {
        eprintln!("OAuth:        {}", deployed.metadata_url());
    }
    match (&mounts.hosting, apps) {
        (None, [app]) => {
            let [card, _] = paths::AGENT_CARDS;
            eprintln!("agent card:   {trimmed}{card}");
            eprintln!("A2A JSON-RPC: {base}");
            eprintln!(
                "A2A HTTP+JSON: {}",
                Endpoints::new(&base, &app.rest_prefix).rest
            );
            eprintln!("MCP:          {trimmed}{}", paths::MCP);
        }
        _ => {
            eprintln!("agents:       {trimmed}{}", paths::AGENTS);
            eprintln!("A2A JSON-RPC: {base}");
            eprintln!(
                "              (the agent named by `tenant`; each agent also at its own URL)"
            );
            if mounts.shared_mcp() {
                eprintln!(
                    "MCP:          {trimmed}{} (every agent's tools)",
                    paths::MCP
                );
            }
            for id in mounts.ids() {
                eprintln!("  {id:<12} {base}{id}/  MCP: {base}{id}{}", paths::MCP);
            }
        }
    }
    let served = a2a_runtime_a2a::bindings::served_at(Endpoints::new(&base, ""), &bound.grpc_url());
    if let Some(grpc) = served.grpc {
        eprintln!("A2A gRPC:     {grpc}");
    }
    eprintln!("discovery:    {trimmed}{}", paths::AI_CATALOG);
    if bound.console_enabled() {
        eprintln!("console:      {trimmed}{} (in a browser)", paths::CONSOLE);
    }
}
