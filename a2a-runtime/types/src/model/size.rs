//! What a task, message or part costs to hold and to send, estimated cheaply: content bytes
//! (text, file bytes, URLs, JSON strings and keys) plus a small overhead per value. Byte budgets
//! (history, artifacts, the memory store, `ListTasks` pages) are kept in these units; the
//! estimate is within a small factor of the JSON a client receives (file bytes grow by a third
//! as base64).

use serde_json::Value;

use super::{Artifact, JsonObject, Message, Part, PartContent, Task};

/// Fixed cost of a value: its framing, ids and small fields.
const OVERHEAD: usize = 64;

/// The estimated size in bytes.
#[doc(hidden)]
pub trait ByteSize {
    /// The estimated size in bytes.
    fn byte_size(&self) -> usize;
}

impl ByteSize for Value {
    fn byte_size(&self) -> usize {
        match self {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 10,
            Value::String(text) => text.len() + 2,
            Value::Array(items) => 2 + items.iter().map(|v| v.byte_size() + 1).sum::<usize>(),
            Value::Object(map) => object_size(map),
        }
    }
}

fn object_size(map: &JsonObject) -> usize {
    2 + map
        .iter()
        .map(|(key, value)| key.len() + 4 + value.byte_size())
        .sum::<usize>()
}

fn metadata_size(metadata: Option<&JsonObject>) -> usize {
    metadata.map_or(0, object_size)
}

impl ByteSize for Part {
    fn byte_size(&self) -> usize {
        let content = match &self.content {
            PartContent::Text(text) => text.len(),
            PartContent::Raw(bytes) => bytes.len(),
            PartContent::Url(url) => url.len(),
            PartContent::Data(value) => value.byte_size(),
        };
        OVERHEAD
            + content
            + self.filename.as_ref().map_or(0, String::len)
            + self.media_type.as_ref().map_or(0, String::len)
            + metadata_size(self.metadata.as_ref())
    }
}

impl ByteSize for Message {
    fn byte_size(&self) -> usize {
        // Every member a client sends counts: its ids too are as long as it makes them.
        let ids = |ids: &[String]| ids.iter().map(String::len).sum::<usize>();
        OVERHEAD
            + self.parts.iter().map(ByteSize::byte_size).sum::<usize>()
            + metadata_size(self.metadata.as_ref())
            + self.message_id.len()
            + self.context_id.as_ref().map_or(0, String::len)
            + self.task_id.as_ref().map_or(0, String::len)
            + ids(&self.extensions)
            + ids(&self.reference_task_ids)
    }
}

impl ByteSize for Artifact {
    fn byte_size(&self) -> usize {
        OVERHEAD
            + self.parts.iter().map(ByteSize::byte_size).sum::<usize>()
            + self.name.as_ref().map_or(0, String::len)
            + self.description.as_ref().map_or(0, String::len)
            + metadata_size(self.metadata.as_ref())
    }
}

impl ByteSize for Task {
    fn byte_size(&self) -> usize {
        OVERHEAD
            + self.history.iter().map(ByteSize::byte_size).sum::<usize>()
            + self
                .artifacts
                .iter()
                .map(ByteSize::byte_size)
                .sum::<usize>()
            + self.status.message.as_ref().map_or(0, ByteSize::byte_size)
            + metadata_size(self.metadata.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sizes_follow_content() {
        let big = Part::text("x".repeat(900_000));
        assert!(big.byte_size() >= 900_000 && big.byte_size() < 900_200);
        let data = Part::data(json!({"name": "Ada", "tags": ["a", "b"], "n": 1}));
        let serialized = serde_json::to_string(&json!({"name": "Ada", "tags": ["a", "b"], "n": 1}))
            .map_or(0, |s| s.len());
        assert!(data.byte_size() >= serialized);
    }
}
