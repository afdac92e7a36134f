//! What a server settles when it stops, once its transport has stopped accepting (steps 2 and
//! 3 of `transport/shutdown.rs`): in-flight requests and working tasks get up to
//! `shutdown_timeout`, tasks waiting for an answer end at once, then every task still live
//! ends FAILED saying the server shut down, and its streams get to write that final event.

use std::sync::Arc;
use std::time::Duration;

use super::transport::InFlight;
use a2a_runtime_core::app::App;

/// The status message of tasks a shutdown ended.
const SHUT_DOWN: &str =
    "The server shut down before this task finished; send the message again to retry.";

/// How long streams get to deliver their final events once tasks have been ended.
const FINAL_EVENTS_GRACE: Duration = Duration::from_secs(2);

/// Settles the agents `apps` (one, or every agent of a host) within `timeout`, while
/// `in_flight` requests are still being answered.
pub(crate) async fn settle(apps: &[Arc<App>], timeout: Duration, in_flight: Arc<InFlight>) {
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
}
