//! Following a remote's definition while it is served: read again after a pause (a long one
//! once it answered, or as long as it says its definition stays fresh; doubling from a short
//! one while it does not answer), or at once when the remote says it changed; each change handed to the dispatcher, until the server stops.

use std::future::Future;
use std::sync::Weak;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use a2a_runtime_core::defined_agent::{DefinedAgent, redefine};
use a2a_runtime_core::dispatch::Dispatcher;

/// How often a remote's definition is read again once it was read, unless it says.
pub(crate) const REFRESH: Duration = Duration::from_secs(300);
/// The shortest and longest pauses a remote's own word (its card's `Cache-Control`) sets:
/// one that says `no-cache` is not read in a loop, one that says a day is still checked on.
pub(crate) const SAID_REFRESH: (Duration, Duration) =
    (Duration::from_secs(5), Duration::from_secs(3600));
/// The first pause before an unreachable remote is tried again; each later one doubles, up to
/// [`REFRESH`].
pub(crate) const FIRST_RETRY: Duration = Duration::from_secs(1);

/// A remote whose definition can be read again.
pub(crate) trait Followed: DefinedAgent {
    /// Its id on the host, for logs.
    fn id(&self) -> &str;
    /// Whether its definition was read once already.
    fn read_once(&self) -> bool;
    /// Reads its definition again; whether it changed.
    fn reread(&self) -> impl Future<Output = Result<bool, String>> + Send;
    /// The pause before the next read, once a read succeeded.
    fn next_read(&self) -> Duration {
        REFRESH
    }
    /// Told when the remote says its definition changed, if it can say so.
    fn changes(&self) -> Option<&Notify> {
        None
    }
}

/// Follows `remote` until `stop`, or until its dispatcher is gone.
pub(crate) async fn follow<R: Followed>(
    remote: &R,
    dispatcher: Weak<Dispatcher>,
    stop: CancellationToken,
) {
    let mut pause = if remote.read_once() {
        remote.next_read()
    } else {
        FIRST_RETRY
    };
    loop {
        // A change said while none waited is kept (`notify_one`): a new wait sees it.
        let changed = async {
            match remote.changes() {
                Some(changes) => changes.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = changed => {}
            () = stop.cancelled() => return,
        }
        let Some(dispatcher) = dispatcher.upgrade() else {
            return;
        };
        pause = match remote.reread().await {
            Ok(changed) => {
                if changed {
                    redefine(&dispatcher, remote.id(), remote);
                }
                remote.next_read()
            }
            Err(error) => {
                tracing::warn!(remote = %remote.id(), %error, "remote unreachable");
                (pause * 2).clamp(FIRST_RETRY, REFRESH)
            }
        };
    }
}
