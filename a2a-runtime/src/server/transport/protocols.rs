//! Which HTTP a connection speaks, and serving it: HTTP/1.1 always; with the `http2` feature
//! (which `grpc` turns on) HTTP/2 too, for clients such as gRPC's, which send the HTTP/2 preface in clear text ("prior
//! knowledge") or ask for `h2` in the TLS handshake (ALPN). Told apart here, within the header
//! timeout, so a client that connects and sends nothing holds its slot no longer than an
//! HTTP/1.1 client that sends no headers.

use std::time::Duration;

use hyper::body::Incoming;
use hyper::rt::{Read, Write};
use hyper_util::rt::TokioTimer;
use hyper_util::server::graceful::Watcher;

use a2a_runtime_core::limits::Limits;

/// The HTTP a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    Http1,
    #[cfg(feature = "http2")]
    Http2,
}

/// The HTTP settings every connection is served with.
#[derive(Clone)]
pub(crate) struct Protocols {
    http1: hyper::server::conn::http1::Builder,
    #[cfg(feature = "http2")]
    http2: hyper::server::conn::http2::Builder<hyper_util::rt::TokioExecutor>,
    /// How long a client may take to say which HTTP it speaks (the header timeout), and how
    /// long an HTTP/2 connection may stay without a stream, as an HTTP/1.1 one may between
    /// requests.
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    first_bytes: Duration,
}

impl Protocols {
    /// The settings from `limits`. HTTP/1.1 has a header timeout, which also ends idle
    /// keep-alive connections. HTTP/2 streams are bounded per connection, with hyper's bounded
    /// windows (1 MiB), header list (16 KiB) and send buffer; a connection is pinged when
    /// idle and closed when its peer stops answering, and closed after the header timeout
    /// without a stream however it answers pings (`idle`).
    pub(crate) fn new(limits: &Limits) -> Self {
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .keep_alive(true);
        #[cfg(feature = "http2")]
        let http2 = {
            let mut http2 =
                hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
            http2
                .timer(TokioTimer::new())
                .max_concurrent_streams(limits.max_streams_per_connection)
                .keep_alive_interval(limits.header_timeout)
                .keep_alive_timeout(limits.header_timeout);
            http2
        };
        Self {
            http1,
            #[cfg(feature = "http2")]
            http2,
            first_bytes: limits.header_timeout,
        }
    }

    /// The HTTP of a clear-text connection, from its first bytes: HTTP/2 when they are the
    /// HTTP/2 preface, HTTP/1.1 as soon as they are not; `None` when the client closes or says
    /// nothing within the header timeout.
    pub(crate) async fn version(&self, stream: &tokio::net::TcpStream) -> Option<Version> {
        #[cfg(not(feature = "http2"))]
        {
            let _ = stream;
            Some(Version::Http1)
        }
        #[cfg(feature = "http2")]
        {
            tokio::time::timeout(self.first_bytes, preface(stream))
                .await
                .ok()
                .flatten()
        }
    }

    /// Serves `io`, speaking `version`, with `service`, until it closes or `watcher`'s shutdown
    /// has let its in-flight requests finish.
    pub(crate) async fn serve<I, S>(
        &self,
        io: I,
        version: Version,
        service: S,
        watcher: Watcher,
    ) -> Result<(), hyper::Error>
    where
        I: Read + Write + Unpin + Send + 'static,
        S: hyper::service::HttpService<Incoming, ResBody = axum::body::Body>
            + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        match version {
            Version::Http1 => {
                watcher
                    .watch(self.http1.serve_connection(io, service))
                    .await
            }
            #[cfg(feature = "http2")]
            Version::Http2 => {
                let activity = super::idle::Activity::default();
                let io = super::idle::IdleIo::new(io, activity.clone(), self.first_bytes);
                let service = super::idle::Counted {
                    inner: service,
                    activity,
                };
                watcher
                    .watch(self.http2.serve_connection(io, service))
                    .await
            }
        }
    }
}

/// The HTTP/2 connection preface (RFC 9113 §3.4).
#[cfg(feature = "http2")]
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Peeks at the first bytes until they tell the version apart (nothing is consumed).
#[cfg(feature = "http2")]
async fn preface(stream: &tokio::net::TcpStream) -> Option<Version> {
    let mut seen = [0u8; 24];
    loop {
        let read = stream.peek(&mut seen).await.ok()?;
        if read == 0 {
            return None;
        }
        if seen[..read] != PREFACE[..read] {
            return Some(Version::Http1);
        }
        if read == PREFACE.len() {
            return Some(Version::Http2);
        }
        // Part of the preface: a peek answers at once with the same bytes until more arrive.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
