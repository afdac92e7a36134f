//! Protected-resource metadata (RFC 9728) for every resource a server serves: each MCP
//! endpoint, and each agent's A2A URL (the root's at the root well-known URL, a hosted agent's
//! below it), so a client refused with 401 finds the authorization server whichever protocol
//! it speaks. Built from the same scheme data as the agent card.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::get;

use super::http::readable_anywhere;
use super::paths;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::security::Security;

/// One resource's metadata: the document, and the paths below the well-known prefix it is
/// served at.
pub(crate) struct ResourceMetadata {
    document: serde_json::Value,
    suffixes: Vec<String>,
    url: String,
}

impl ResourceMetadata {
    /// The metadata of the resource at `suffix` below the server at `base` (which ends in `/`;
    /// the suffix is empty for the root itself, else `/mcp`, `/{id}/`…), reached with the schemes of `security`, needing the scopes
    /// and trusting the token issuers of `apps`; `None` when no scheme takes bearer tokens
    /// (then there is nothing for an OAuth client to discover).
    pub(crate) fn new(
        security: &Security,
        apps: &[&Arc<App>],
        name: &str,
        base: &str,
        suffix: &str,
    ) -> Option<Self> {
        let schemes: Vec<_> = security.schemes().cloned().collect();
        let mut scopes: Vec<&str> = apps
            .iter()
            .flat_map(|app| app.dispatcher.registry().scopes().into_keys())
            .collect();
        scopes.sort_unstable();
        scopes.dedup();
        let jwt = apps.iter().flat_map(|app| &app.jwt);
        // `base` ends in `/`: the root itself, `{base}mcp`, `{base}{id}/`.
        let resource = format!("{base}{}", suffix.trim_start_matches('/'));
        let document =
            a2a_runtime_core::auth::metadata::document(&resource, name, &schemes, jwt, &scopes)?;
        let mut suffixes = vec![suffix.to_owned()];
        // `/{id}/` is also asked for without its `/`, as clients trim it.
        if let Some(bare) = suffix.strip_suffix('/').filter(|bare| !bare.is_empty()) {
            suffixes.push(bare.to_owned());
        }
        Some(Self {
            document,
            suffixes,
            url: url_of(base, suffix),
        })
    }

    /// Where the document is (see [`url_of`]), for `WWW-Authenticate: Bearer resource_metadata=…`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The routes serving the document, readable from any origin (hosted assistants read it
    /// from their web apps, as they read the card).
    pub(crate) fn routes(self) -> Router {
        let route = get(
            |State(document): State<Arc<serde_json::Value>>| async move {
                axum::Json(document.as_ref().clone()).into_response()
            },
        );
        let mut router = Router::new();
        for suffix in &self.suffixes {
            let path = format!("{}{suffix}", paths::PROTECTED_RESOURCE);
            router = router.route(&path, route.clone());
        }
        router
            .with_state(Arc::new(self.document))
            .layer(readable_anywhere())
    }
}

/// Where the metadata of the resource at `suffix` below the server at `base` is served: below
/// the server's own URL, so a server published under a path (`https://agents.example/agent/`)
/// serves it where its proxy routes.
pub(crate) fn url_of(base: &str, suffix: &str) -> String {
    format!(
        "{}{}{suffix}",
        base.trim_end_matches('/'),
        paths::PROTECTED_RESOURCE
    )
}
