//! Telling MCP clients that the lists changed, for an endpoint serving an agent defined at run
//! time (a remote, whose tools, resources and prompts come and go): the `list_changed`
//! notification of each list on each 2025-era session, from its initialization until it closes,
//! and on each 2026-07-28 `subscriptions/listen` stream of the lists it asked for. An endpoint
//! of compiled agents only, whose lists never change, declares no `listChanged` and sends
//! nothing.

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::watch;

use a2a_runtime_core::app::App;

/// The replacements of the lists (tools, resources, prompts) of an endpoint's agents.
pub struct ListChanges {
    receivers: Vec<watch::Receiver<u64>>,
}

impl ListChanges {
    /// The changes of `apps`' lists; `None` when none can change.
    pub fn of<'a>(apps: impl IntoIterator<Item = &'a App>) -> Option<Self> {
        let receivers: Vec<_> = apps
            .into_iter()
            .filter_map(|app| app.dispatcher.registry_replacements())
            .collect();
        (!receivers.is_empty()).then_some(Self { receivers })
    }

    /// Waits for the next change of any list: `false` once no list can change any more (their
    /// agents are gone).
    pub async fn next(&mut self) -> bool {
        while !self.receivers.is_empty() {
            let changes = self.receivers.iter_mut().map(|r| Box::pin(r.changed()));
            let (changed, at, _) = futures::future::select_all(changes).await;
            if changed.is_ok() {
                return true;
            }
            self.receivers.swap_remove(at);
        }
        false
    }

    /// Tells `peer` (a 2025-era session) of every change of each list, until it closes.
    pub async fn forward(mut self, peer: Peer<RoleServer>) {
        while self.next().await {
            let told = async {
                peer.notify_tool_list_changed().await?;
                peer.notify_resource_list_changed().await?;
                peer.notify_prompt_list_changed().await
            };
            if told.await.is_err() {
                return;
            }
        }
    }
}
