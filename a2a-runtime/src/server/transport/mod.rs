//! The transport: accepting TCP connections up to the server's caps (in all, per peer), telling
//! HTTP/1.1 from HTTP/2 (h2c, TLS ALPN), TLS, trusted proxies, the browser guard, counting
//! requests in flight, and stopping cleanly. It serves a list of [`Endpoint`]s, each a bound
//! listener and the service that answers it, and knows nothing of what those services are:
//! no agent, mount, exporter or authorization server is named below this folder. What a
//! shutdown must settle besides connections (tasks, exporters) is handed in by the server.

mod front;
mod guard;
#[cfg(feature = "http2")]
mod idle;
mod in_flight;
mod listener;
mod peers;
mod protocols;
mod proxies;
mod shutdown;
#[cfg(feature = "tls")]
mod tls;
#[cfg(not(feature = "tls"))]
#[path = "no_tls.rs"]
mod tls;
mod tls_settings;

use std::sync::Arc;

use axum::extract::Request;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use a2a_runtime_core::error::Error;
use a2a_runtime_core::limits::Limits;
pub(crate) use front::{Direct, Front};
pub(crate) use guard::{BrowserGuard, GuardLayer, GuardSettings};
pub(crate) use in_flight::InFlight;
pub(crate) use listener::check_descriptor_limit;
pub use proxies::TrustedProxies;
pub(crate) use proxies::range as proxy_range;
pub(crate) use shutdown::{on_signals, start_watchdog};
pub(crate) use tls::Acceptor;
pub use tls_settings::TlsSettings;

/// One address served: its bound listener, the service answering its requests, and how its
/// connections are opened (TLS) and whom they may speak for (trusted proxies).
pub(crate) struct Endpoint<S> {
    /// The bound socket.
    pub(crate) listener: TcpListener,
    /// What answers each request.
    pub(crate) service: S,
    /// TLS on this address, `None` for plain HTTP.
    pub(crate) tls: Option<Acceptor>,
    /// The proxies whose forwarding headers this address believes.
    pub(crate) proxies: TrustedProxies,
}

/// A service a listener can serve: it answers every request (errors are responses), and is
/// cloned into each connection's task.
pub(crate) trait Answer:
    tower::Service<
        Request,
        Response = axum::response::Response,
        Error = std::convert::Infallible,
        Future: Send,
    > + Clone
    + Send
    + 'static
{
}

impl<S> Answer for S where
    S: tower::Service<
            Request,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
            Future: Send,
        > + Clone
        + Send
        + 'static
{
}

/// What every connection of a server is served within.
pub(crate) struct Transport<'a> {
    /// The caps: connections in all and per peer, header and handshake timeouts.
    pub(crate) limits: &'a Limits,
    /// Requests a shutdown does not wait for (a stream that carries no call of its own).
    pub(crate) untracked: fn(&Request) -> bool,
}

/// The TLS acceptor `settings` ask for, `None` when TLS is off; an error naming the flag when
/// a file cannot be used, or naming the feature in a build without TLS.
pub(crate) fn tls_acceptor(settings: &TlsSettings) -> Result<Option<Acceptor>, Error> {
    tls::acceptor(settings)
}

/// Serves `endpoints` until `stop`; then stops accepting, awaits `settle` (given the requests
/// still in flight, it ends what the server runs behind them) and closes the connections that
/// remain, each given a short grace.
pub(crate) async fn serve<S: Answer>(
    endpoints: Vec<Endpoint<S>>,
    transport: Transport<'_>,
    stop: CancellationToken,
    settle: impl AsyncFnOnce(Arc<InFlight>),
) {
    shutdown::run(endpoints, transport, stop, settle).await;
}
