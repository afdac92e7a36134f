//! Resources whose contents changed: the application says so for its own
//! ([`ResourceUpdates::notify`]), and every new artifact of a task says so for
//! `a2a://tasks/{taskId}/artifacts/{artifactId}`. MCP sessions subscribed to a URI are told.

use std::sync::Arc;

use tokio::sync::broadcast;

use a2a_runtime_types::model::{ObservedTask, TaskEvent, TaskObserver};
use a2a_runtime_types::util::percent_encode;

/// The template task artifacts are read through.
pub const ARTIFACT_TEMPLATE: &str = "a2a://tasks/{taskId}/artifacts/{artifactId}";

/// How many changes a slow subscriber may fall behind before it misses some.
const BACKLOG: usize = 256;

/// Announces that resources changed, to the MCP clients subscribed to them
/// (`notifications/resources/updated`). Take it from
/// `AgentServer::resource_updates`; cheap to clone,
/// usable from anywhere (a skill that edited a file, a watcher).
#[derive(Clone)]
pub struct ResourceUpdates {
    sender: broadcast::Sender<Arc<str>>,
}

impl std::fmt::Debug for ResourceUpdates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceUpdates")
            .field("listeners", &self.sender.receiver_count())
            .finish()
    }
}

impl Default for ResourceUpdates {
    fn default() -> Self {
        Self::new()
    }
}

impl ResourceUpdates {
    /// A channel nobody listens to yet.
    pub fn new() -> Self {
        Self {
            sender: broadcast::channel(BACKLOG).0,
        }
    }

    /// Resource `uri` changed: subscribed clients are told to read it again. Free when nobody
    /// is subscribed.
    pub fn notify(&self, uri: impl Into<String>) {
        if self.sender.receiver_count() > 0 {
            let _ = self.sender.send(Arc::from(uri.into()));
        }
    }

    /// The changes from now on.
    pub fn listen(&self) -> broadcast::Receiver<Arc<str>> {
        self.sender.subscribe()
    }
}

/// Every artifact event is a change of that artifact's resource.
impl TaskObserver for ResourceUpdates {
    fn observe(&self, observed: ObservedTask<'_>, event: &Arc<TaskEvent>) {
        if self.sender.receiver_count() == 0 {
            return;
        }
        if let TaskEvent::Artifact(update) = event.as_ref() {
            self.notify(artifact_uri(
                &observed.task.id,
                &update.artifact.artifact_id,
            ));
        }
    }

    /// Only while some client listens for resource changes.
    fn wants(&self, _observed: ObservedTask<'_>) -> bool {
        self.sender.receiver_count() > 0
    }
}

/// The URI of one artifact of a task.
pub fn artifact_uri(task_id: &str, artifact_id: &str) -> String {
    format!(
        "a2a://tasks/{}/artifacts/{}",
        percent_encode(task_id),
        percent_encode(artifact_id)
    )
}
