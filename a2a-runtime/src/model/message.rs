//! Messages, parts and artifacts.

use super::{JsonObject, new_id};

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The client (a user or a calling agent).
    User,
    /// This agent.
    Agent,
}

/// One turn of communication between a client and the agent.
#[derive(Debug, Clone, PartialEq)]
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

impl Message {
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

    /// The concatenated text of all text parts, or `None` if there is none.
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|part| match &part.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }
}

/// One piece of content in a message or artifact.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// What the part holds.
    pub content: PartContent,
    /// Free-form metadata.
    pub metadata: Option<JsonObject>,
    /// A file name, for file parts.
    pub filename: Option<String>,
    /// The media type of the content (`text/plain`, `application/json`, ...).
    pub media_type: Option<String>,
}

/// The content of a [`Part`]: exactly one kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PartContent {
    /// Plain text.
    Text(String),
    /// Inline bytes (a file).
    Raw(Vec<u8>),
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
#[derive(Debug, Clone, PartialEq)]
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
