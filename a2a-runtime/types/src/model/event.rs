//! What happens to a task while it runs: status and artifact updates, in the order subscribers
//! see them.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{Artifact, JsonObject, Task, TaskStatus};

/// One change to a task, as streamed to subscribers after the initial [`Task`] snapshot. The
/// `serde` form is this crate's own (replicas forward events in it), not a wire format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskEvent {
    /// The task's status changed (including progress reports while it works).
    Status(TaskStatusUpdate),
    /// An artifact was produced, or a chunk was added to one.
    Artifact(TaskArtifactUpdate),
}

/// The task entered a status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdate {
    /// The task.
    pub task_id: String,
    /// The task's conversation.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// Free-form metadata; progress reports carry `progress` and `total` here.
    pub metadata: Option<JsonObject>,
}

/// An artifact, or one chunk of an artifact that is sent in pieces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdate {
    /// The task.
    pub task_id: String,
    /// The task's conversation.
    pub context_id: String,
    /// The artifact; for a chunk, only the new parts.
    pub artifact: Artifact,
    /// Whether `artifact.parts` are appended to the artifact already sent with the same id.
    pub append: bool,
    /// Whether this is the artifact's last chunk.
    pub last_chunk: bool,
}

impl TaskEvent {
    /// The state this event leaves the task in, for status events.
    pub fn state(&self) -> Option<super::TaskState> {
        match self {
            Self::Status(update) => Some(update.status.state),
            Self::Artifact(_) => None,
        }
    }

    /// A copy of a status event's message, for keeping in history.
    #[doc(hidden)]
    pub fn status_message(&self) -> Option<super::Message> {
        match self {
            Self::Status(update) => update.status.message.clone(),
            Self::Artifact(_) => None,
        }
    }
}

impl Task {
    /// Applies an event to this task: a status replaces the current one; an artifact is added,
    /// replaces the artifact with the same id, or (when `append`) extends it.
    pub fn apply(&mut self, event: &TaskEvent) {
        match event {
            TaskEvent::Status(update) => self.status = update.status.clone(),
            TaskEvent::Artifact(update) => {
                join(
                    &mut self.artifacts,
                    Cow::Borrowed(&update.artifact),
                    update.append,
                );
            }
        }
    }

    /// [`apply`](Self::apply), taking the event: its status or artifact moves into the task
    /// rather than being copied.
    pub fn apply_owned(&mut self, event: TaskEvent) {
        match event {
            TaskEvent::Status(update) => self.status = update.status,
            TaskEvent::Artifact(update) => {
                join(
                    &mut self.artifacts,
                    Cow::Owned(update.artifact),
                    update.append,
                );
            }
        }
    }
}

/// Adds `incoming` to `artifacts`: it replaces the artifact with the same id, or with `append`
/// extends its parts; a new id is added at the end.
#[doc(hidden)]
pub fn join_artifact(artifacts: &mut Vec<Artifact>, incoming: &Artifact, append: bool) {
    join(artifacts, Cow::Borrowed(incoming), append);
}

/// [`join_artifact`], copying `incoming` only where it is borrowed.
fn join(artifacts: &mut Vec<Artifact>, incoming: Cow<'_, Artifact>, append: bool) {
    match artifacts
        .iter_mut()
        .find(|a| a.artifact_id == incoming.artifact_id)
    {
        Some(existing) if append => match incoming {
            Cow::Borrowed(incoming) => existing.parts.extend(incoming.parts.iter().cloned()),
            Cow::Owned(incoming) => existing.parts.extend(incoming.parts),
        },
        Some(existing) => *existing = incoming.into_owned(),
        None => artifacts.push(incoming.into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Part, TaskState};

    fn task() -> Task {
        Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus::now(TaskState::Working, None),
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
            created_at: chrono::Utc::now(),
        }
    }

    fn chunk(id: &str, text: &str, append: bool) -> TaskEvent {
        let mut artifact = Artifact::new(vec![Part::text(text)]);
        artifact.artifact_id = id.into();
        TaskEvent::Artifact(TaskArtifactUpdate {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact,
            append,
            last_chunk: false,
        })
    }

    #[test]
    fn chunks_with_append_extend_the_artifact_with_the_same_id() {
        let mut task = task();
        task.apply(&chunk("a", "one", false));
        task.apply(&chunk("a", "two", true));
        task.apply(&chunk("b", "other", false));
        assert_eq!(task.artifacts.len(), 2);
        assert_eq!(
            task.artifacts[0].parts,
            vec![Part::text("one"), Part::text("two")]
        );
        task.apply(&chunk("a", "fresh", false));
        assert_eq!(task.artifacts[0].parts, vec![Part::text("fresh")]);
    }

    #[test]
    fn an_event_applied_by_value_leaves_the_task_as_one_applied_by_reference() {
        let events = [
            chunk("a", "one", false),
            chunk("a", "two", true),
            chunk("b", "other", false),
            chunk("a", "fresh", false),
            TaskEvent::Status(TaskStatusUpdate {
                task_id: "t".into(),
                context_id: "c".into(),
                status: TaskStatus::now(TaskState::Completed, None),
                metadata: None,
            }),
        ];
        let mut borrowed = task();
        let mut owned = borrowed.clone();
        for event in events {
            borrowed.apply(&event);
            owned.apply_owned(event);
        }
        assert_eq!(borrowed, owned);
        assert_eq!(owned.status.state, TaskState::Completed);
        assert_eq!(owned.artifacts.len(), 2);
    }
}
