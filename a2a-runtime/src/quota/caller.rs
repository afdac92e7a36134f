//! Who is calling, for per-caller limits. One function decides: the authenticated principal once
//! authentication exists; until then the peer's IP address (every connection from one address is
//! one caller), and callers of a router served without peer addresses share one identity.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::Extensions;
use axum::http::request::Parts;

/// The identity per-caller limits are kept under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CallerId(Arc<str>);

impl CallerId {
    /// The caller of a request with these extensions (see the module docs).
    pub(crate) fn of(extensions: &Extensions) -> Self {
        match extensions.get::<ConnectInfo<SocketAddr>>() {
            Some(ConnectInfo(peer)) => Self(Arc::from(format!("ip:{}", peer.ip()))),
            None => Self::local(),
        }
    }

    /// The one caller of a process-local transport (MCP over stdio) or of a router served
    /// without peer addresses.
    pub(crate) fn local() -> Self {
        Self::named("local")
    }

    /// A caller with this identity.
    pub(crate) fn named(identity: &str) -> Self {
        Self(Arc::from(identity))
    }
}

impl fmt::Display for CallerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for CallerId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self::of(&parts.extensions))
    }
}
