//! Three of the example agents behind one server: currency (the primary agent), booking and
//! hello, each at `/{id}/` and as a tenant at the root, with every tool on one MCP endpoint at
//! `/mcp` for hosted assistants. The discovery URLs of the system this example stands in for
//! (`/api/v1/agents`, `/api/v1/agents/{id}/card`) are application routes over the host's
//! catalog, so an application keeps its own URLs.

use a2a_runtime::axum::Json;
use a2a_runtime::axum::Router;
use a2a_runtime::axum::extract::Path;
use a2a_runtime::axum::http::StatusCode;
use a2a_runtime::axum::response::{IntoResponse, Response};
use a2a_runtime::axum::routing::get;
use a2a_runtime::serde_json::json;
use a2a_runtime::server::{AgentCatalog, Host};

/// The host: currency, booking and hello, currency primary, with the discovery API kept.
pub fn host() -> Host {
    let host = Host::new()
        .name("agent-host")
        .agent("currency", currency::Currency::with_reference_rates())
        .server("booking", booking::server())
        .agent("hello", hello::Hello)
        .primary("currency");
    let routes = discovery_api(host.catalog());
    host.routes(routes)
}

/// `GET /api/v1/agents` (every agent, its id, name, description and URLs) and
/// `GET /api/v1/agents/{id}/card` (one agent's card), read from the host's catalog.
fn discovery_api(catalog: AgentCatalog) -> Router {
    let listing = catalog.clone();
    Router::new()
        .route(
            "/api/v1/agents",
            get(move || {
                let catalog = listing.clone();
                async move {
                    let agents: Vec<_> = catalog
                        .entries()
                        .iter()
                        .map(|entry| {
                            json!({
                                "id": entry.id,
                                "name": entry.card["name"],
                                "description": entry.card["description"],
                                "url": entry.url,
                                "cardUrl": entry.card_url,
                            })
                        })
                        .collect();
                    Json(json!({ "agents": agents }))
                }
            }),
        )
        .route(
            "/api/v1/agents/{id}/card",
            get(move |Path(id): Path<String>| {
                let catalog = catalog.clone();
                async move { card(&catalog, &id) }
            }),
        )
}

/// Agent `id`'s card, or 404 naming the agents there are.
fn card(catalog: &AgentCatalog, id: &str) -> Response {
    match catalog.get(id) {
        Some(entry) => Json(entry.card).into_response(),
        None => {
            let known: Vec<String> = catalog.entries().iter().map(|e| e.id.clone()).collect();
            let message = format!("no agent `{id}`; this server hosts {}", known.join(", "));
            (StatusCode::NOT_FOUND, Json(json!({ "error": message }))).into_response()
        }
    }
}
