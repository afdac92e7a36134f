//! The A2A 1.0 JSON (ProtoJSON) of what the client returns, for printing and for tools that
//! pass results on: the wire form every A2A 1.0 implementation reads.

use serde_json::Value;

use super::{AgentCard, StreamEvent};
use a2a_runtime_types::model::{Message, Task, TaskEvent};
use a2a_runtime_types::protocol::a2a::v1;

/// A task as A2A 1.0 JSON.
pub fn task_json(task: &Task) -> Value {
    serde_json::to_value(v1::TaskOut::from(task)).unwrap_or(Value::Null)
}

/// A message as A2A 1.0 JSON.
pub fn message_json(message: &Message) -> Value {
    serde_json::to_value(v1::MessageOut::from(message)).unwrap_or(Value::Null)
}

/// A stream item as an A2A 1.0 `StreamResponse`.
pub fn event_json(event: &StreamEvent) -> Value {
    let response = match event {
        StreamEvent::Task(task) => v1::StreamResponse::Task(task.as_ref().into()),
        StreamEvent::Message(message) => v1::StreamResponse::Message(message.into()),
        StreamEvent::Status(update) => {
            return serde_json::to_value(v1::StreamResponse::from(&TaskEvent::Status(
                update.clone(),
            )))
            .unwrap_or(Value::Null);
        }
        StreamEvent::Artifact(update) => {
            return serde_json::to_value(v1::StreamResponse::from(&TaskEvent::Artifact(
                update.clone(),
            )))
            .unwrap_or(Value::Null);
        }
    };
    serde_json::to_value(response).unwrap_or(Value::Null)
}

/// A card as its agent served it.
pub fn card_json(card: &AgentCard) -> Value {
    card.raw.clone()
}
