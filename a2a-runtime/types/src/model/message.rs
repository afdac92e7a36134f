//! Messages, parts and artifacts.

use serde::{Deserialize, Serialize};

use super::{JsonObject, new_id};

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The client (a user or a calling agent).
    User,
    /// This agent.
    Agent,
}

/// One turn of communication between a client and the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Sender-chosen identifier.
    pub message_id: String,
    /// The conversation this message belongs to.
    pub context_id: Option<String>,
    /// The task this message belongs to.
    pub task_id: Option<String>,
    /// Who sent it.
    pub role: Role,
    /// The content; never empty.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    pub metadata: Option<JsonObject>,
    /// URIs of the extensions this message uses.
    pub extensions: Vec<String>,
    /// Tasks this message refers to.
    pub reference_task_ids: Vec<String>,
}

/// The status-message metadata key that marks a task that failed through no fault of its skill's
/// logic (the skill panicked, the server shut down): MCP reports such a task `failed` with a
/// JSON-RPC error, where a skill's own error is a tool error (`completed`, `isError`).
const RUNTIME_FAILURE: &str = "a2a-runtime/runtimeFailure";

impl Message {
    /// The message of a call made by a protocol other than A2A, as an A2A client would have
    /// sent it: the input as a data part, and the skill named in `metadata.skill`.
    #[doc(hidden)]
    pub fn synthesized(skill_id: &str, input: serde_json::Value) -> Self {
        let mut metadata = serde_json::Map::new();
        metadata.insert("skill".into(), serde_json::Value::String(skill_id.into()));
        Self {
            metadata: Some(metadata),
            ..Self::user(vec![Part::data(input)])
        }
    }

    /// The same message, marked as the reason for a runtime failure.
    #[doc(hidden)]
    pub fn runtime_failure(mut self) -> Self {
        self.metadata
            .get_or_insert_with(JsonObject::new)
            .insert(RUNTIME_FAILURE.into(), serde_json::Value::Bool(true));
        self
    }

    /// Whether this is the reason for a runtime failure.
    #[doc(hidden)]
    pub fn is_runtime_failure(&self) -> bool {
        self.metadata
            .as_ref()
            .and_then(|metadata| metadata.get(RUNTIME_FAILURE))
            .is_some_and(|marked| marked == &serde_json::Value::Bool(true))
    }

    /// A message from a client (the user role) with the given parts: what a client sends.
    pub fn user(parts: Vec<Part>) -> Self {
        Self {
            role: Role::User,
            ..Self::agent(parts)
        }
    }

    /// A client message holding one text part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::user(vec![Part::text(text)])
    }

    /// A message from this agent with the given parts.
    pub fn agent(parts: Vec<Part>) -> Self {
        Self {
            message_id: new_id(),
            context_id: None,
            task_id: None,
            role: Role::Agent,
            parts,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
        }
    }

    /// A message from this agent holding one text part.
    pub fn agent_text(text: impl Into<String>) -> Self {
        Self::agent(vec![Part::text(text)])
    }

    /// The concatenated text of all text parts, one per line, or `None` if there is none.
    pub fn text(&self) -> Option<String> {
        // Joined as it is read: the one-part message every send starts from is one allocation.
        let mut texts = self.parts.iter().filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        });
        let mut joined = texts.next()?.to_owned();
        for text in texts {
            joined.push('\n');
            joined.push_str(text);
        }
        Some(joined)
    }
}

/// One piece of content in a message or artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// What the part holds.
    #[serde(flatten)]
    pub content: PartContent,
    /// Free-form metadata.
    pub metadata: Option<JsonObject>,
    /// A file name, for file parts.
    pub filename: Option<String>,
    /// The media type of the content (`text/plain`, `application/json`, ...).
    pub media_type: Option<String>,
}

/// The content of a [`Part`]: exactly one kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PartContent {
    /// Plain text.
    Text(String),
    /// Inline bytes (a file); base64 in the serde form.
    Raw(#[serde(with = "base64_bytes")] Vec<u8>),
    /// A reference to a file.
    Url(String),
    /// Any JSON value.
    Data(serde_json::Value),
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(PartContent::Text(text.into()))
    }

    /// A structured-data part with media type `application/json`.
    pub fn data(value: serde_json::Value) -> Self {
        Self {
            media_type: Some("application/json".into()),
            ..Self::new(PartContent::Data(value))
        }
    }

    /// A part holding inline bytes.
    pub fn raw(bytes: Vec<u8>, media_type: impl Into<String>) -> Self {
        Self {
            media_type: Some(media_type.into()),
            ..Self::new(PartContent::Raw(bytes))
        }
    }

    /// A part referring to a file by URL.
    pub fn url(url: impl Into<String>) -> Self {
        Self::new(PartContent::Url(url.into()))
    }

    fn new(content: PartContent) -> Self {
        Self {
            content,
            metadata: None,
            filename: None,
            media_type: None,
        }
    }
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Unique within its task.
    pub artifact_id: String,
    /// A short name.
    pub name: Option<String>,
    /// A description.
    pub description: Option<String>,
    /// The content; never empty.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    pub metadata: Option<JsonObject>,
    /// URIs of the extensions this artifact uses.
    pub extensions: Vec<String>,
}

impl Artifact {
    /// An artifact with a fresh id holding `parts`.
    pub fn new(parts: Vec<Part>) -> Self {
        Self {
            artifact_id: new_id(),
            name: None,
            description: None,
            parts,
            metadata: None,
            extensions: Vec::new(),
        }
    }

    /// Sets the artifact's name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

impl From<String> for Part {
    fn from(text: String) -> Self {
        Part::text(text)
    }
}

impl From<&str> for Part {
    fn from(text: &str) -> Self {
        Part::text(text)
    }
}

impl From<Part> for Artifact {
    fn from(part: Part) -> Self {
        Artifact::new(vec![part])
    }
}

/// Bytes as standard base64 text in the serde form, as every A2A wire format carries them.
mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod serde_tests {
    use super::*;

    #[test]
    fn the_serde_form_round_trips_every_part_kind() {
        let message = Message {
            parts: vec![
                Part::text("hi"),
                Part::raw(vec![0, 1, 255], "application/octet-stream"),
                Part::url("https://example.com/a.pdf"),
                Part::data(serde_json::json!({"a": [1, 2]})),
            ],
            ..Message::agent_text("")
        };
        let json = serde_json::to_value(&message).expect("serializes");
        assert_eq!(json["parts"][0]["text"], "hi", "{json}");
        assert_eq!(json["parts"][1]["raw"], "AAH/", "{json}");
        assert_eq!(json["role"], "agent", "{json}");
        let back: Message = serde_json::from_value(json).expect("deserializes");
        assert_eq!(back, message);
    }

    #[test]
    fn a_messages_text_joins_its_text_parts_one_per_line() {
        assert_eq!(Message::user(vec![]).text(), None);
        let data = Part::data(serde_json::json!({"a": 1}));
        assert_eq!(Message::user(vec![data.clone()]).text(), None);
        assert_eq!(Message::user_text("Ada").text().as_deref(), Some("Ada"));
        let mixed = Message::user(vec![Part::text("a"), data, Part::text("b")]);
        assert_eq!(mixed.text().as_deref(), Some("a\nb"));
    }
}
