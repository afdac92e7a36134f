//! Following a remote's definition while it is served: read again after a pause (a long one
//! once it answered, doubling from a short one while it does not), or at once when the remote
//! says it changed; each change handed to the dispatcher, until the server stops.

use std::future::Future;
use std::sync::Weak;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use a2a_runtime_core::defined_agent::{DefinedAgent, redefine};
use a2a_runtime_core::dispatch::Dispatcher;

/// How often a remote's definition is read again once it was read.
pub(crate) const REFRESH: Duration = Duration::from_secs(300);
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
        REFRESH
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
                    redefine(&dispatcher, remote.id(), remote.definition());
                }
                REFRESH
            }
            Err(error) => {
                tracing::warn!(remote = %remote.id(), %error, "remote unreachable");
                (pause * 2).clamp(FIRST_RETRY, REFRESH)
            }
        };
    }
}
