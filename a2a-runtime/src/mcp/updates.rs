//! Skill reports during an MCP call: progress becomes `notifications/progress` on the caller's
//! token, and artifacts published along the way join the result content.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::context::{Progress, Update, UpdateSink};
use crate::model::{Artifact, join_artifact};

/// Notifications queued per call before progress reports are dropped (never blocking the skill).
const PROGRESS_QUEUE: usize = 64;

/// Sends progress reports as `notifications/progress`, in order, with a value that always grows
/// (MCP requires it).
pub(crate) struct ProgressForwarder {
    token: ProgressToken,
    state: Mutex<ForwardState>,
    sender: Mutex<Option<mpsc::Sender<ProgressNotificationParam>>>,
    forwarder: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Default)]
struct ForwardState {
    last: Option<f64>,
    counted: bool,
}

impl ProgressForwarder {
    /// A forwarder for a call that carried `token`; `None` without one.
    pub(crate) fn new(token: Option<ProgressToken>, peer: Peer<RoleServer>) -> Option<Arc<Self>> {
        let token = token?;
        let (sender, mut receiver) = mpsc::channel::<ProgressNotificationParam>(PROGRESS_QUEUE);
        // One sender task per call keeps the notifications in order.
        let forwarder = tokio::spawn(async move {
            while let Some(param) = receiver.recv().await {
                if let Err(error) = peer.notify_progress(param).await {
                    tracing::debug!(%error, "progress notification not delivered");
                    break;
                }
            }
        });
        Some(Arc::new(Self {
            token,
            state: Mutex::new(ForwardState::default()),
            sender: Mutex::new(Some(sender)),
            forwarder: Mutex::new(Some(forwarder)),
        }))
    }

    /// Sends what is queued and stops; call before answering so every notification precedes the
    /// response on its stream.
    pub(crate) async fn finish(&self) {
        drop(
            self.sender
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        let forwarder = self
            .forwarder
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(forwarder) = forwarder {
            let _ = forwarder.await;
        }
    }

    /// The value to send for `progress`, or `None` if it would not grow. Counts are sent as
    /// they are; message-only reports count up by one until the skill first gives a count, after
    /// which they cannot be placed and are not sent.
    fn next_value(&self, progress: &Progress) -> Option<f64> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        #[allow(clippy::cast_precision_loss)]
        let value = match progress.done {
            Some(done) => {
                state.counted = true;
                done as f64
            }
            None if state.counted => return None,
            None => state.last.unwrap_or(0.0) + 1.0,
        };
        if state.last.is_some_and(|last| value <= last) {
            return None;
        }
        state.last = Some(value);
        Some(value)
    }
}

impl UpdateSink for ProgressForwarder {
    fn update(&self, update: &Update) {
        let Update::Progress(progress) = update else {
            return;
        };
        let Some(value) = self.next_value(progress) else {
            return;
        };
        let mut param = ProgressNotificationParam::new(self.token.clone(), value);
        #[allow(clippy::cast_precision_loss)]
        if let Some(total) = progress.total {
            param = param.with_total(total as f64);
        }
        if let Some(message) = &progress.message {
            param = param.with_message(message.clone());
        }
        let sender = self.sender.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = sender.as_ref()
            && sender.try_send(param).is_err()
        {
            tracing::debug!("progress notification dropped: the client is not keeping up");
        }
    }
}

/// Collects the artifacts a skill publishes during a plain `tools/call`, so their parts can
/// lead the result content.
#[derive(Default)]
pub(crate) struct ArtifactCollector {
    artifacts: Mutex<Vec<Artifact>>,
}

impl ArtifactCollector {
    /// The artifacts collected so far, chunks joined.
    pub(crate) fn take(&self) -> Vec<Artifact> {
        std::mem::take(
            &mut *self
                .artifacts
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

impl UpdateSink for ArtifactCollector {
    fn update(&self, update: &Update) {
        if let Update::Artifact {
            artifact, append, ..
        } = update
        {
            join_artifact(
                &mut self
                    .artifacts
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner),
                artifact,
                *append,
            );
        }
    }
}
