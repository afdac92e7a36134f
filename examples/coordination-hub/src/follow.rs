//! What the hub does as records change, whichever process or replica changed them: it tells
//! subscribed MCP clients their inbox (or an interface) changed, and releases the reservations
//! of an agent whose registration expired (a reaped agent).

use a2a_runtime::mcp::ResourceUpdates;
use a2a_runtime::records::{Change, ChangeKind};
use a2a_runtime::tokio;

use crate::{Hub, inbox_uri, interface_uri};

/// Follows the hub's records until the process ends: new inbox messages and interfaces become
/// `notifications/resources/updated` through `updates`, expired agents are reaped.
pub fn follow(hub: &Hub, updates: ResourceUpdates) -> tokio::task::JoinHandle<()> {
    let hub = hub.clone();
    tokio::spawn(async move {
        let mut changes = loop {
            match hub.records().watch("hub/").await {
                Ok(changes) => break changes,
                Err(error) => {
                    a2a_runtime::tracing::warn!(%error, "cannot follow the hub's records yet");
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                }
            }
        };
        loop {
            // Missed changes cannot be replayed; the next ones still count.
            if let Ok(change) = changes.next().await {
                hub.changed(&change, &updates).await;
            }
        }
    })
}

impl Hub {
    async fn changed(&self, change: &Change, updates: &ResourceUpdates) {
        let Some(rest) = change.collection.strip_prefix("hub/") else {
            return;
        };
        let Some((project, what)) = rest.split_once('/') else {
            return;
        };
        match what.split_once('/') {
            Some(("inbox", session)) => updates.notify(inbox_uri(project, session)),
            None if what == "interfaces" => updates.notify(interface_uri(project, &change.key)),
            None if what == "agents" && change.kind == ChangeKind::Expired => {
                match self.release_all(project, &change.key).await {
                    Ok(_) => a2a_runtime::tracing::info!(
                        project,
                        session = change.key,
                        "reaped a silent agent, its reservations released"
                    ),
                    Err(error) => a2a_runtime::tracing::warn!(
                        project,
                        session = change.key,
                        %error,
                        "could not release a reaped agent's reservations"
                    ),
                }
            }
            _ => {}
        }
    }
}
