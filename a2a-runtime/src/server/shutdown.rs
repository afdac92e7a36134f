//! Serving until told to stop, then stopping cleanly within a bound.
//!
//! 1. The first SIGTERM or SIGINT (or the application's shutdown token) stops accepting
//!    connections; idle keep-alive connections close.
//! 2. In-flight requests and working tasks get up to `shutdown_timeout` to finish; streams of
//!    those tasks carry on to their final event. Tasks waiting for an answer (now, or once they
//!    ask during the drain) end FAILED at once, saying the server shut down: nobody is to be
//!    waited for, and their subscribers' streams end with that final event.
//! 3. Then every task still live ends FAILED, saying the server shut down (its subscribers get
//!    that final event), skills are cancelled, the remaining streams end, and `serve` returns.
//!
//! A second signal exits at once. A skill that blocks its thread cannot hold the process: once
//! `serve` has returned, a watchdog exits if the runtime has not finished within a few seconds.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::front::Served;
use super::in_flight::InFlight;
use super::listener;
use a2a_runtime_core::app::App;
use a2a_runtime_core::limits::Limits;

/// The status message of tasks a shutdown ended.
pub(crate) const SHUT_DOWN: &str =
    "The server shut down before this task finished; send the message again to retry.";

/// How long streams get to deliver their final events once tasks have been ended.
const FINAL_EVENTS_GRACE: Duration = Duration::from_secs(2);

/// How long the runtime may take to wind down after `serve` returned.
const WATCHDOG: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` through the three phases above, for the agents `apps` (one,
/// or every agent of a host) within the server's `limits`.
pub(crate) async fn run(
    apps: &[Arc<App>],
    limits: &Limits,
    served: Vec<(listener::Listening, Served)>,
    stop: CancellationToken,
    in_flight: Arc<InFlight>,
) {
    let timeout = limits.shutdown_timeout;
    let accepting = served
        .into_iter()
        .map(|(listening, router)| listener::accept_until(listening, router, limits, stop.clone()));
    let draining = futures::future::join_all(accepting).await;
    tracing::info!(
        ?timeout,
        "shutting down: finishing in-flight requests and tasks"
    );
    eprintln!(
        "shutting down: finishing in-flight requests and tasks (at most {}; a second signal exits at once)",
        humantime::format_duration(timeout)
    );
    let idle = async {
        loop {
            for app in apps {
                app.manager.end_waiting(SHUT_DOWN).await;
            }
            if in_flight.count() == 0 && !apps.iter().any(|app| app.manager.has_working_tasks()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let timed_out = tokio::time::timeout(timeout, idle).await.is_err();
    // Tasks waiting for answers cannot finish without a client; they end now, and so do those
    // still working when the timeout ran out.
    let mut ended = 0;
    for app in apps {
        ended += app.manager.shut_down(SHUT_DOWN).await;
    }
    if timed_out {
        tracing::warn!(
            ended,
            "shutdown timeout reached; unfinished tasks were ended"
        );
        eprintln!("shutdown timeout reached: {ended} unfinished task(s) ended as failed");
    }
    if let Some(app) = apps.first() {
        app.manager.leave_replicas();
    }
    // Let streams write the final events just recorded, then end whatever is still open.
    let _ = tokio::time::timeout(FINAL_EVENTS_GRACE, async {
        while in_flight.count() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    for app in apps {
        app.shutdown.cancel();
    }
    let closed =
        futures::future::join_all(draining.into_iter().map(|d| d.wait(FINAL_EVENTS_GRACE)));
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
