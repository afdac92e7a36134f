//! What a skill may ask of its caller besides answers: a completion from the caller's model
//! (`ctx.sample`) and the roots it shares (`ctx.roots`). Only an MCP client that declared the
//! capability can answer; every other caller (A2A, MCP clients without it) gets a clear
//! [`AskError::Unsupported`](super::AskError::Unsupported).

use crate::content::{PromptContent, PromptMessage};

/// A request to the caller's model: the conversation so far and how long the answer may be.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    pub key: Option<String>,
    pub messages: Vec<PromptMessage>,
    pub max_tokens: u32,
    pub system_prompt: Option<String>,
    pub temperature: Option<f32>,
}

impl Sampling {
    /// One user message, answered in at most 1 000 tokens.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self {
            key: None,
            messages: vec![PromptMessage::user_text(prompt)],
            max_tokens: 1_000,
            system_prompt: None,
            temperature: None,
        }
    }

    /// A conversation (user and assistant messages, text, images or audio).
    pub fn conversation(messages: Vec<PromptMessage>) -> Self {
        Self {
            messages,
            ..Self::new("")
        }
    }

    /// A name for the request: the key of its MCP input request (2026-07-28), as with
    /// [`ask_named`](crate::context::TaskContext::ask_named).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.key = Some(name.into()).filter(|n: &String| !n.is_empty());
        self
    }

    /// The most tokens the answer may have.
    #[must_use]
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// A system prompt the client may use.
    #[must_use]
    pub fn system_prompt(mut self, system_prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(system_prompt.into());
        self
    }

    /// The sampling temperature the client may use.
    #[must_use]
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// The first message's text, to name the request in errors.
    pub fn summary(&self) -> String {
        self.messages
            .iter()
            .find_map(|m| match &m.content {
                PromptContent::Text(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }
}

/// What the caller's model answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    /// The answer's text (empty if the model answered with something else, an image say).
    pub text: String,
    /// The model that answered, as the client names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, …), if the client says.
    pub stop_reason: Option<String>,
}

/// A root the caller shares: a directory or file (usually a `file://` URI) it lets the agent
/// work within (MCP roots).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its URI.
    pub uri: String,
    /// A display name, if the client gives one.
    pub name: Option<String>,
}
