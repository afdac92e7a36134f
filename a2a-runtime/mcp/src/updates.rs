//! Skill reports during an MCP call: progress becomes `notifications/progress` on the caller's
//! token, and artifacts published along the way join the result content.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{
    ProgressNotification, ProgressNotificationParam, ProgressToken, ServerJsonRpcMessage,
    ServerNotification,
};
use rmcp::service::RequestContext;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::call_stream::CallOutbox;

use a2a_runtime_core::context::{Progress, Update, UpdateSink};
use a2a_runtime_types::model::{
    Artifact, ObservedTask, TaskEvent, TaskObserver, TaskState, join_artifact,
};

/// Notifications queued per call before progress reports are dropped (never blocking the skill).
const PROGRESS_QUEUE: usize = 64;

/// Sends progress reports as `notifications/progress`, in order, with a value that always grows
/// (MCP requires it).
pub struct ProgressForwarder {
    token: ProgressToken,
    counter: Mutex<ProgressCounter>,
    sender: Mutex<Option<mpsc::Sender<ProgressNotificationParam>>>,
    forwarder: Mutex<Option<JoinHandle<()>>>,
}

/// The `progress` values of one call: they must grow with every notification.
#[derive(Debug, Default)]
struct ProgressCounter {
    last: Option<f64>,
    counted: bool,
}

impl ProgressCounter {
    /// The value to send for `progress`, or `None` if it would not grow. Counts are sent as they
    /// are; message-only reports count up by one until the skill first gives a count, after
    /// which they cannot be placed and are not sent.
    fn next(&mut self, progress: &Progress) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)]
        let value = match progress.done {
            Some(done) => {
                self.counted = true;
                done as f64
            }
            None if self.counted => return None,
            None => self.last.unwrap_or(0.0) + 1.0,
        };
        if self.last.is_some_and(|last| value <= last) {
            return None;
        }
        self.last = Some(value);
        Some(value)
    }
}

impl ProgressForwarder {
    /// A forwarder for the call `context` serves, if it carried a progress token.
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Arc<Self>> {
        let token = context.meta.get_progress_token()?;
        let peer = context.peer.clone();
        let outbox = context.extensions.get::<CallOutbox>().cloned();
        let (sender, mut receiver) = mpsc::channel::<ProgressNotificationParam>(PROGRESS_QUEUE);
        // One sender task per call keeps the notifications in order.
        let forwarder = tokio::spawn(async move {
            while let Some(param) = receiver.recv().await {
                let delivered = match &outbox {
                    // Straight into the directly answered call's response.
                    Some(outbox) => {
                        let progress = ProgressNotification::new(param);
                        let notification = ServerNotification::ProgressNotification(progress);
                        let message = ServerJsonRpcMessage::notification(notification);
                        outbox.0.send(message).await.is_ok()
                    }
                    None => peer.notify_progress(param).await.is_ok(),
                };
                if !delivered {
                    tracing::debug!("progress notification not delivered: the call's client left");
                    break;
                }
            }
        });
        Some(Arc::new(Self {
            token,
            counter: Mutex::new(ProgressCounter::default()),
            sender: Mutex::new(Some(sender)),
            forwarder: Mutex::new(Some(forwarder)),
        }))
    }

    /// Sends what is queued and stops; call before answering so every notification precedes the
    /// response on its stream.
    pub async fn finish(&self) {
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
}

impl UpdateSink for ProgressForwarder {
    fn update(&self, update: &Update) {
        if let Update::Progress(progress) = update {
            self.forward(progress);
        }
    }
}

/// A call run as a task reports progress through the task's events: a WORKING status with a
/// message (and `progress`/`total` in its metadata when the skill counted).
impl TaskObserver for ProgressForwarder {
    fn observe(&self, _task: ObservedTask<'_>, event: &Arc<TaskEvent>) {
        let TaskEvent::Status(update) = event.as_ref() else {
            return;
        };
        let Some(message) = &update.status.message else {
            return;
        };
        if update.status.state != TaskState::Working {
            return;
        }
        let count = |key: &str| {
            update
                .metadata
                .as_ref()
                .and_then(|m| m.get(key))
                .and_then(serde_json::Value::as_u64)
        };
        let (done, total) = (count("progress"), count("total"));
        let text = message.text().unwrap_or_default();
        let counted = match (done, total) {
            (Some(done), Some(total)) => format!("{done}/{total}"),
            (Some(done), None) => done.to_string(),
            (None, _) => String::new(),
        };
        // A count alone was shown as `done/total`: the skill gave no message.
        let message = (!text.is_empty() && text != counted).then_some(text);
        self.forward(&Progress {
            message,
            done,
            total,
        });
    }
}

impl ProgressForwarder {
    fn forward(&self, progress: &Progress) {
        let next = self
            .counter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .next(progress);
        let Some(value) = next else {
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

/// Progress of a call that spans several requests (MRTR rounds): reports go to the forwarder of
/// the request driving the call now, and are dropped between requests.
#[derive(Default)]
pub struct ProgressRelay {
    current: Mutex<Option<Arc<ProgressForwarder>>>,
}

impl ProgressRelay {
    /// Sends reports to `forwarder` from now on (`None`: nowhere).
    pub fn set(&self, forwarder: Option<Arc<ProgressForwarder>>) {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = forwarder;
    }
}

impl UpdateSink for ProgressRelay {
    fn update(&self, update: &Update) {
        let current = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(forwarder) = current {
            forwarder.update(update);
        }
    }
}

/// Collects the artifacts a skill publishes during a plain `tools/call`, so their parts can
/// lead the result content.
#[derive(Default)]
pub struct ArtifactCollector {
    artifacts: Mutex<Vec<Artifact>>,
}

impl ArtifactCollector {
    /// The artifacts collected so far, chunks joined.
    pub fn take(&self) -> Vec<Artifact> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn message() -> Progress {
        Progress {
            message: Some("working".into()),
            ..Progress::default()
        }
    }

    fn count(done: u64) -> Progress {
        Progress {
            done: Some(done),
            total: Some(10),
            ..Progress::default()
        }
    }

    #[test]
    fn progress_values_only_ever_grow() {
        let mut counter = ProgressCounter::default();
        assert_eq!(counter.next(&message()), Some(1.0));
        assert_eq!(counter.next(&message()), Some(2.0));
        assert_eq!(
            counter.next(&count(2)),
            None,
            "not above the last value sent"
        );
        assert_eq!(counter.next(&count(3)), Some(3.0));
        assert_eq!(counter.next(&message()), None, "no count to attach it to");
        assert_eq!(counter.next(&count(3)), None);
        assert_eq!(counter.next(&count(10)), Some(10.0));
    }

    #[test]
    fn a_count_may_start_at_zero() {
        let mut counter = ProgressCounter::default();
        assert_eq!(counter.next(&count(0)), Some(0.0));
        assert_eq!(counter.next(&count(1)), Some(1.0));
    }
}
