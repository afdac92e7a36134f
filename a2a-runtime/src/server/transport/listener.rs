//! The connection loop: accepts TCP connections up to a cap, serves HTTP/1.1 (and HTTP/2 with
//! the `http2` feature) on each with a header-read timeout, backs off on accept errors (a full
//! descriptor table does not spin), tells handlers the peer's address, and drains gracefully
//! when asked.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use super::peers::PeerConnections;
use super::protocols::Protocols;
use super::proxies::TrustedProxies;
use super::{Answer, Endpoint};
use a2a_runtime_core::auth::ClientCertificate;
use a2a_runtime_core::limits::Limits;
use a2a_runtime_core::quota::PeerKey;

/// The longest pause between accept attempts after errors.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Serves `endpoint` until `stop` is cancelled, then stops accepting and asks
/// every connection to close once its in-flight request is answered. Returns the connections
/// still open, to wait on.
pub(crate) async fn accept_until<S: Answer>(
    endpoint: Endpoint<S>,
    limits: &Limits,
    stop: CancellationToken,
) -> Draining {
    let Endpoint {
        listener,
        service: router,
        tls,
        proxies,
    } = endpoint;
    let protocols = Protocols::new(limits);
    let connections = Arc::new(Semaphore::new(
        limits.max_connections.min(Semaphore::MAX_PERMITS),
    ));
    let per_peer = per_peer_cap(limits);
    let peers = PeerConnections::new(per_peer);
    let graceful = GracefulShutdown::new();
    let mut backoff = Duration::ZERO;
    loop {
        // At the cap, further clients wait in the kernel's listen backlog.
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = stop.cancelled() => break,
        };
        let (stream, peer) = match accept(&listener, &stop, &mut backoff).await {
            Accepted::Connection(stream, peer) => (stream, peer),
            Accepted::Retry => continue,
            Accepted::Stopped => break,
        };
        // Without TCP_NODELAY small JSON and SSE replies can stall ~40 ms on Nagle + delayed ACK.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "could not set TCP_NODELAY");
        }
        let Some((proxy, peer_slot)) = admit(&peers, &proxies, peer) else {
            tracing::debug!(%peer, "connection over the per-peer cap refused");
            refuse(stream, permit, tls.is_none(), per_peer);
            continue;
        };
        let router = router.clone();
        let Some(tls) = &tls else {
            let service = TowerToHyperService::new(tagged(router, peer, proxy, None));
            let (protocols, watcher) = (protocols.clone(), graceful.watcher());
            tokio::spawn(async move {
                if let Some(version) = protocols.version(&stream).await {
                    let io = TokioIo::new(stream);
                    if let Err(error) = protocols.serve(io, version, service, watcher).await {
                        tracing::debug!(%peer, %error, "connection ended with an error");
                    }
                }
                drop((permit, peer_slot));
            });
            continue;
        };
        // The handshake runs on the connection's own task, bounded like a request head, so a
        // client that never finishes it holds one connection slot for that long only.
        #[cfg(feature = "tls")]
        {
            let connection = TlsConnection {
                tls: tls.clone(),
                protocols: protocols.clone(),
                watcher: graceful.watcher(),
                handshake_timeout: limits.header_timeout,
            };
            tokio::spawn(async move {
                let _slots = (permit, peer_slot);
                connection.serve(stream, peer, proxy, router).await;
            });
        }
        #[cfg(not(feature = "tls"))]
        match *tls {}
    }
    Draining { graceful }
}

/// How a connection from `peer` is admitted: from a trusted proxy, which carries every client's
/// connections and so holds no per-peer slot (the cap would refuse them all), or with one of
/// its address's slots; `None` when that address holds its cap already.
fn admit(
    peers: &Arc<PeerConnections>,
    proxies: &TrustedProxies,
    peer: std::net::SocketAddr,
) -> Option<(Option<TrustedProxies>, Option<super::peers::PeerSlot>)> {
    if !proxies.is_empty() && proxies.trusts(peer.ip()) {
        return Some((Some(proxies.clone()), None));
    }
    peers.admit(peer.ip()).map(|slot| (None, Some(slot)))
}

/// Answers a connection over the per-peer cap with 429 (over plain HTTP; a TLS one is just
/// closed) on a task of its own, then gives its connection `permit` back.
fn refuse(
    stream: tokio::net::TcpStream,
    permit: tokio::sync::OwnedSemaphorePermit,
    plain: bool,
    per_peer: usize,
) {
    tokio::spawn(async move {
        if plain {
            super::peers::refuse(stream, per_peer).await;
        }
        drop(permit);
    });
}

/// The connections one address may hold: `--max-connections-per-peer`, unless that would let
/// one address hold every connection (said once, at start).
fn per_peer_cap(limits: &Limits) -> usize {
    let per_peer = limits.connections_per_peer();
    if per_peer != limits.max_connections_per_peer {
        tracing::warn!(
            max_connections = limits.max_connections,
            max_connections_per_peer = limits.max_connections_per_peer,
            applied = per_peer,
            "--max-connections-per-peer is above --max-connections, so one address could hold \
             every connection: a quarter of --max-connections is applied per address instead \
             (set both to the same number behind a reverse proxy)"
        );
    }
    per_peer
}

/// How often [`quiet_timers`] fires.
const QUIET_TIMERS_TICK: Duration = Duration::from_secs(1);

/// Keeps a timer pending that fires before any a request sets, until `stop`.
///
/// Tokio wakes the thread parked on its timer driver whenever a timer is set to fire before
/// every pending one, so that it sleeps less. Each request sets a few (the header timeout
/// while its connection waits for it, the body timeout, the SSE keep-alive of an MCP
/// response) and between requests none is pending, so every request woke the other worker
/// thread for nothing: a context switch per request, an MCP call in a 2025 session lost a
/// tenth of its rate to it. With this tick pending, a request's timers fire later than it and
/// setting them wakes no one; the tick costs one wake-up a second.
pub(crate) async fn quiet_timers(stop: CancellationToken) {
    let mut tick = tokio::time::interval(QUIET_TIMERS_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = stop.cancelled() => return,
        }
    }
}

/// What one accept attempt gave.
enum Accepted {
    Connection(tokio::net::TcpStream, std::net::SocketAddr),
    /// It failed; the backoff has passed.
    Retry,
    /// The server is stopping.
    Stopped,
}

/// The next connection on `listener`. A failed accept waits `backoff` (doubled each time, at
/// most [`MAX_ACCEPT_BACKOFF`]; a success resets it): EMFILE, ENFILE, ENOBUFS… repeat until
/// something closes, so waiting beats spinning, and per-connection errors (ECONNABORTED) pass
/// fast.
async fn accept(
    listener: &TcpListener,
    stop: &CancellationToken,
    backoff: &mut Duration,
) -> Accepted {
    let accepted = tokio::select! {
        accepted = listener.accept() => accepted,
        () = stop.cancelled() => return Accepted::Stopped,
    };
    match accepted {
        Ok((stream, peer)) => {
            *backoff = Duration::ZERO;
            Accepted::Connection(stream, peer)
        }
        Err(error) => {
            *backoff = (*backoff * 2).clamp(Duration::from_millis(5), MAX_ACCEPT_BACKOFF);
            tracing::warn!(%error, retry_in = ?*backoff, "accept failed");
            tokio::select! {
                () = tokio::time::sleep(*backoff) => Accepted::Retry,
                () = stop.cancelled() => Accepted::Stopped,
            }
        }
    }
}

#[cfg(feature = "tls")]
/// What serving one TLS connection needs: the handshake, bounded by `handshake_timeout`, then
/// HTTP over it, watched for graceful shutdown.
struct TlsConnection {
    tls: super::tls::Acceptor,
    protocols: Protocols,
    watcher: hyper_util::server::graceful::Watcher,
    handshake_timeout: Duration,
}

#[cfg(feature = "tls")]
impl TlsConnection {
    /// Serves `stream` from `peer` with `router`, tagging requests with the verified client
    /// certificate.
    async fn serve<S: Answer>(
        self,
        stream: tokio::net::TcpStream,
        peer: std::net::SocketAddr,
        proxy: Option<TrustedProxies>,
        router: S,
    ) {
        let accepted = tokio::time::timeout(self.handshake_timeout, self.tls.accept(stream)).await;
        let stream = match accepted {
            Ok(Ok(stream)) => stream,
            Ok(Err(error)) => {
                tracing::debug!(%peer, %error, "TLS handshake failed");
                return;
            }
            Err(_) => {
                tracing::debug!(%peer, "TLS handshake timed out");
                return;
            }
        };
        let certificate = stream
            .get_ref()
            .1
            .peer_certificates()
            .and_then(<[_]>::first)
            .map(|leaf| ClientCertificate(Arc::from(leaf.as_ref())));
        // HTTP/2 when the client asked for it in the handshake (ALPN `h2`, offered only where
        // it is served).
        let version = match stream.get_ref().1.alpn_protocol() {
            #[cfg(feature = "http2")]
            Some(b"h2") => super::protocols::Version::Http2,
            _ => super::protocols::Version::Http1,
        };
        let service = TowerToHyperService::new(tagged(router, peer, proxy, certificate));
        let io = TokioIo::new(stream);
        let served = self.protocols.serve(io, version, service, self.watcher);
        if let Err(error) = served.await {
            tracing::debug!(%peer, %error, "connection ended with an error");
        }
    }
}

/// `router` with every request tagged with the connection's peer address (and the caller key
/// it makes) and, over TLS, the client certificate the handshake verified. When the peer is a
/// trusted `proxy`, each request is tagged with the client the proxy forwarded it for instead,
/// and with what the proxy said (the host the client asked for).
fn tagged<S: Answer>(
    router: S,
    peer: std::net::SocketAddr,
    proxy: Option<TrustedProxies>,
    certificate: Option<ClientCertificate>,
) -> impl tower::Service<
    axum::http::Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone {
    let key = PeerKey::of(peer);
    router.map_request(move |request: axum::http::Request<Incoming>| {
        let mut request = request.map(axum::body::Body::new);
        if let Some(proxy) = &proxy {
            let forwarded = proxy.forwarded(peer, request.headers());
            request
                .extensions_mut()
                .insert(ConnectInfo(forwarded.client));
            request
                .extensions_mut()
                .insert(PeerKey::of(forwarded.client));
            request.extensions_mut().insert(forwarded);
        } else {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(key.clone());
        }
        if let Some(certificate) = &certificate {
            request.extensions_mut().insert(certificate.clone());
        }
        request
    })
}

/// Warns when the process may not open `max_connections` sockets: accepts would then fail with
/// "too many open files" (and back off) before the cap is reached. Linux only; elsewhere silent.
pub(crate) fn check_descriptor_limit(max_connections: usize) {
    let Ok(limits) = std::fs::read_to_string("/proc/self/limits") else {
        return;
    };
    let soft = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .and_then(|line| line.split_whitespace().nth(3))
        .and_then(|soft| soft.parse::<usize>().ok());
    // Room for the listener, logs, stores and outgoing connections besides the clients.
    const SPARE: usize = 64;
    if let Some(soft) = soft
        && soft < max_connections + SPARE
    {
        tracing::warn!(
            soft_limit = soft,
            max_connections,
            "the open-file limit is below --max-connections plus {SPARE}; raise it (ulimit -n) \
             or lower --max-connections to {}",
            soft.saturating_sub(SPARE).max(soft / 2)
        );
    }
}

/// Connections finishing their in-flight requests after the listener stopped.
pub(crate) struct Draining {
    graceful: GracefulShutdown,
}

impl Draining {
    /// Waits until every connection has closed, or `limit` has passed; whether all closed.
    pub(crate) async fn wait(self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.graceful.shutdown())
            .await
            .is_ok()
    }
}
