//! Serving until told to stop, then stopping cleanly within a bound.
//!
//! 1. The first SIGTERM or SIGINT (or the application's shutdown token) stops accepting
//!    connections; idle keep-alive connections close.
//! 2. The server settles what runs behind the requests still in flight (`settle`, handed to
//!    [`run`]: for agents, their tasks end within `shutdown_timeout`).
//! 3. Connections still open get a short grace to finish writing, and `serve` returns.
//!
//! A second signal exits at once. A skill that blocks its thread cannot hold the process: once
//! `serve` has returned, a watchdog exits if the runtime has not finished within a few seconds.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tower::Layer as _;

use super::in_flight::{InFlight, TrackLayer};
use super::{Answer, Endpoint, Transport, listener};

/// How long connections still open get to finish writing once the server has settled.
const CLOSING_GRACE: Duration = Duration::from_secs(2);

/// How long the runtime may take to wind down after `serve` returned.
const WATCHDOG: Duration = Duration::from_secs(5);

/// Serves `endpoints` (their requests counted in flight) until `stop`, then through the
/// phases above: `settle` is awaited once accepting has stopped.
pub(crate) async fn run<S: Answer>(
    endpoints: Vec<Endpoint<S>>,
    transport: Transport<'_>,
    stop: CancellationToken,
    settle: impl AsyncFnOnce(Arc<InFlight>),
) {
    tokio::spawn(listener::quiet_timers(stop.clone()));
    let in_flight = Arc::new(InFlight::default());
    let track = TrackLayer {
        in_flight: Arc::clone(&in_flight),
        untracked: transport.untracked,
    };
    let accepting = endpoints.into_iter().map(|endpoint| {
        let endpoint = Endpoint {
            service: track.layer(endpoint.service),
            listener: endpoint.listener,
            tls: endpoint.tls,
            proxies: endpoint.proxies,
        };
        listener::accept_until(endpoint, transport.limits, stop.clone())
    });
    let draining = futures::future::join_all(accepting).await;
    settle(in_flight).await;
    let closed = futures::future::join_all(draining.into_iter().map(|d| d.wait(CLOSING_GRACE)));
    if !closed.await.into_iter().all(|all_closed| all_closed) {
        tracing::debug!("some connections were still open at exit");
    }
}

/// Exits the process if the runtime cannot wind down (a skill blocking a worker thread holds
/// the runtime's drop). A normal exit comes first and ends this thread with the process.
pub(crate) fn start_watchdog() {
    let spawned = std::thread::Builder::new()
        .name("a2a-shutdown-watchdog".into())
        .spawn(|| {
            std::thread::sleep(WATCHDOG);
            eprintln!("a skill is still blocking a thread; exiting without waiting for it");
            std::process::exit(0);
        });
    if let Err(error) = spawned {
        tracing::debug!(%error, "could not start the shutdown watchdog");
    }
}

/// Cancels `stop` on the first SIGTERM or SIGINT; exits the process on the second.
pub(crate) fn on_signals(stop: CancellationToken) -> Result<(), std::io::Error> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        tokio::spawn(async move {
            let mut received = 0;
            loop {
                let code = tokio::select! {
                    _ = terminate.recv() => 128 + 15,
                    _ = interrupt.recv() => 128 + 2,
                };
                received += 1;
                if received > 1 {
                    eprintln!("second signal: exiting now");
                    std::process::exit(code);
                }
                stop.cancel();
            }
        });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            let mut received = 0;
            while tokio::signal::ctrl_c().await.is_ok() {
                received += 1;
                if received > 1 {
                    eprintln!("second signal: exiting now");
                    std::process::exit(130);
                }
                stop.cancel();
            }
        });
    }
    Ok(())
}
