//! `resources/subscribe` and `resources/unsubscribe` of one MCP session: the URIs it follows,
//! and the forwarder that tells it when one of them changed.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;
use tokio::sync::broadcast::error::RecvError;

use crate::content::ResourceUpdates;

/// How often a forwarder with nothing to forward checks that its session is still there.
const SESSION_CHECK: Duration = Duration::from_secs(30);

/// The most URIs one session may follow.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1_000;

/// The subscriptions of one session.
#[derive(Default)]
pub(crate) struct Subscriptions {
    uris: Mutex<HashSet<String>>,
    forwarding: AtomicBool,
}

impl Subscriptions {
    fn uris(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.uris.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Follows `uri`; the first subscription starts forwarding `updates` to `peer`. `false` when
    /// the session already follows as many URIs as it may.
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        uri: String,
        updates: &ResourceUpdates,
        peer: Peer<RoleServer>,
    ) -> bool {
        {
            let mut uris = self.uris();
            if uris.len() >= MAX_SUBSCRIPTIONS && !uris.contains(&uri) {
                return false;
            }
            uris.insert(uri);
        }
        if !self.forwarding.swap(true, Ordering::AcqRel) {
            let subscriptions = Arc::clone(self);
            let changes = updates.listen();
            tokio::spawn(subscriptions.forward(changes, peer));
        }
        true
    }

    /// Stops following `uri`.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.uris().remove(uri);
    }

    /// Tells `peer` of every change to a followed URI, until its session closes.
    async fn forward(
        self: Arc<Self>,
        mut changes: tokio::sync::broadcast::Receiver<Arc<str>>,
        peer: Peer<RoleServer>,
    ) {
        loop {
            let uri = tokio::select! {
                change = changes.recv() => match change {
                    Ok(uri) => uri,
                    // A change missed is a change of something: nothing to resend precisely.
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                },
                () = tokio::time::sleep(SESSION_CHECK) => {
                    if peer.is_transport_closed() {
                        return;
                    }
                    continue;
                }
            };
            if !self.uris().contains(uri.as_ref()) {
                continue;
            }
            let notified = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.to_string()))
                .await;
            if notified.is_err() {
                return;
            }
        }
    }
}
