//! Telling MCP clients that resources changed: `resources/subscribe` and `resources/unsubscribe`
//! of one 2025-era session (the URIs it follows, and the forwarder that tells it when one of
//! them changed), and the `subscriptions/listen` streams of protocol 2026-07-28, each following
//! the URIs its request named until the client closes it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionContext, SubscriptionSendError};
use tokio::sync::broadcast::error::RecvError;

use crate::list_changes::ListChanges;
use a2a_runtime_core::content::ResourceUpdates;

/// How often a forwarder with nothing to forward checks that its session is still there.
const SESSION_CHECK: Duration = Duration::from_secs(30);

/// The most URIs one session may follow.
pub const MAX_SUBSCRIPTIONS: usize = 1_000;

/// The subscriptions of one session.
#[derive(Default)]
pub struct Subscriptions {
    uris: Mutex<HashSet<String>>,
    forwarding: AtomicBool,
}

impl Subscriptions {
    fn uris(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.uris.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Follows `uri`; the first subscription starts forwarding `updates` to `peer`. `false` when
    /// the session already follows as many URIs as it may.
    pub fn subscribe(
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
    pub fn unsubscribe(&self, uri: &str) {
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

/// What a `subscriptions/listen` request may follow: the resources it names (at most
/// [`MAX_SUBSCRIPTIONS`]), and the tool, resource and prompt lists it asks for when they can
/// change (a remote's; no other list changes on this server).
pub fn accepted_filter(requested: &SubscriptionFilter, lists_change: bool) -> SubscriptionFilter {
    let uris = requested.resource_subscriptions.iter().flatten();
    let uris: Vec<&String> = uris.take(MAX_SUBSCRIPTIONS).collect();
    let mut accepted = SubscriptionFilter::builder();
    if !uris.is_empty() {
        accepted = accepted.resource_subscriptions(uris.into_iter().cloned());
    }
    if lists_change && requested.tools_list_changed == Some(true) {
        accepted = accepted.tools_list_changed();
    }
    if lists_change && requested.resources_list_changed == Some(true) {
        accepted = accepted.resources_list_changed();
    }
    if lists_change && requested.prompts_list_changed == Some(true) {
        accepted = accepted.prompts_list_changed();
    }
    accepted.build()
}

/// Tells `subscription` that the lists it follows changed.
async fn tell_lists_changed(
    subscription: &SubscriptionContext,
) -> Result<(), SubscriptionSendError> {
    let accepted = subscription.accepted();
    let sink = subscription.sink();
    if accepted.tools_list_changed == Some(true) {
        sink.notify_tool_list_changed().await?;
    }
    if accepted.resources_list_changed == Some(true) {
        sink.notify_resource_list_changed().await?;
    }
    if accepted.prompts_list_changed == Some(true) {
        sink.notify_prompt_list_changed().await?;
    }
    Ok(())
}

/// Runs one `subscriptions/listen` stream (acknowledged already): every change to a URI it
/// follows, and to the lists it follows (`lists`: the agents' definitions change), is sent on
/// it, tagged with its subscription id, until the client closes it.
pub async fn listen(
    updates: &ResourceUpdates,
    mut lists: Option<ListChanges>,
    subscription: SubscriptionContext,
) {
    let followed: HashSet<&str> = subscription
        .accepted()
        .resource_subscriptions
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let mut changes = updates.listen();
    loop {
        let list_change = async {
            match &mut lists {
                Some(lists) => lists.next().await,
                None => std::future::pending().await,
            }
        };
        let uri = tokio::select! {
            () = subscription.cancelled() => return,
            changed = list_change => {
                if !changed || tell_lists_changed(&subscription).await.is_err() {
                    lists = None;
                }
                continue;
            }
            change = changes.recv() => match change {
                Ok(uri) => uri,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
        };
        if !followed.contains(uri.as_ref()) {
            continue;
        }
        if subscription
            .sink()
            .notify_resource_updated(uri.as_ref())
            .await
            .is_err()
        {
            return;
        }
    }
}
