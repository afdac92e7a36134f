//! Prompts declared with `#[prompt]`: what one is (a name, a description, arguments) and the
//! messages getting it returns.

use std::any::TypeId;

use super::resource::ResourceContent;
use super::{Argument, ReadRequest, Reader};
use crate::skill_error::SkillError;

/// Who a prompt message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptRole {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// What one prompt message holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptContent {
    /// Text.
    Text(String),
    /// An image: its bytes and media type.
    Image {
        /// The encoded image.
        data: Vec<u8>,
        /// Its media type (`image/png`, …).
        mime_type: String,
    },
    /// Audio: its bytes and media type.
    Audio {
        /// The encoded audio.
        data: Vec<u8>,
        /// Its media type (`audio/wav`, …).
        mime_type: String,
    },
    /// A resource embedded with its contents.
    Resource(ResourceContent),
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    /// Who it is from.
    pub role: PromptRole,
    /// What it holds.
    pub content: PromptContent,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: PromptContent) -> Self {
        Self {
            role: PromptRole::User,
            content,
        }
    }

    /// A message from the assistant.
    pub fn assistant(content: PromptContent) -> Self {
        Self {
            role: PromptRole::Assistant,
            content,
        }
    }

    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::user(PromptContent::Text(text.into()))
    }
}

impl PromptContent {
    /// An image.
    pub fn image(data: Vec<u8>, mime_type: impl Into<String>) -> Self {
        Self::Image {
            data,
            mime_type: mime_type.into(),
        }
    }

    /// An embedded text resource.
    pub fn text_resource(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::Resource(ResourceContent::text(uri, text).with_mime_type(mime_type))
    }
}

/// A value a `#[prompt]` fn may return: text (one user message), a [`PromptMessage`], a
/// `Vec<PromptMessage>`, or a `Result` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "not prompt messages",
    note = "return text (`String`, one user message), `PromptMessage`, `Vec<PromptMessage>`, or a `Result` of one of these"
)]
pub trait IntoPromptMessages {
    /// The messages.
    fn into_messages(self) -> Result<Vec<PromptMessage>, SkillError>;
}

impl IntoPromptMessages for String {
    fn into_messages(self) -> Result<Vec<PromptMessage>, SkillError> {
        Ok(vec![PromptMessage::user_text(self)])
    }
}

impl IntoPromptMessages for &'static str {
    fn into_messages(self) -> Result<Vec<PromptMessage>, SkillError> {
        Ok(vec![PromptMessage::user_text(self)])
    }
}

impl IntoPromptMessages for PromptMessage {
    fn into_messages(self) -> Result<Vec<PromptMessage>, SkillError> {
        Ok(vec![self])
    }
}

impl IntoPromptMessages for Vec<PromptMessage> {
    fn into_messages(self) -> Result<Vec<PromptMessage>, SkillError> {
        Ok(self)
    }
}

impl<T: IntoPromptMessages, E: Into<SkillError>> IntoPromptMessages for Result<T, E> {
    fn into_messages(self) -> Result<Vec<PromptMessage>, SkillError> {
        self.map_err(Into::into)?.into_messages()
    }
}

/// A prompt, as `#[prompt]` declares it.
#[derive(Debug)]
pub struct PromptDescriptor {
    parts: PromptParts,
}

/// The fields of a [`PromptDescriptor`], spelled out by generated code.
#[doc(hidden)]
pub struct PromptParts {
    pub agent: fn() -> TypeId,
    pub agent_name: fn() -> &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub arguments: &'static [Argument],
    pub get: Reader<Vec<PromptMessage>>,
    pub rust_path: &'static str,
}

impl std::fmt::Debug for PromptParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptParts")
            .field("name", &self.name)
            .field("rust_path", &self.rust_path)
            .finish_non_exhaustive()
    }
}

impl PromptDescriptor {
    #[doc(hidden)]
    pub const fn __new(parts: PromptParts) -> Self {
        Self { parts }
    }

    /// Stands in for a prompt whose `#[prompt]` expansion failed. Never served.
    #[doc(hidden)]
    pub const INVALID: PromptDescriptor = PromptDescriptor::__new(PromptParts {
        agent: TypeId::of::<()>,
        agent_name: || "<invalid>",
        name: "",
        title: None,
        description: "",
        arguments: &[],
        get: |_| Box::pin(std::future::ready(Err(SkillError::new("invalid prompt")))),
        rust_path: "",
    });

    /// The prompt's name (the fn name unless set).
    pub fn name(&self) -> &'static str {
        self.parts.name
    }

    /// A display title.
    pub fn title(&self) -> Option<&'static str> {
        self.parts.title
    }

    /// Its description (the doc comment).
    pub fn description(&self) -> &'static str {
        self.parts.description
    }

    /// Its arguments, in parameter order.
    pub fn arguments(&self) -> &'static [Argument] {
        self.parts.arguments
    }

    pub fn agent_type(&self) -> TypeId {
        (self.parts.agent)()
    }

    pub fn agent_name(&self) -> &'static str {
        (self.parts.agent_name)()
    }

    pub fn rust_path(&self) -> &'static str {
        self.parts.rust_path
    }

    /// Gets the prompt's messages.
    pub fn get(
        &self,
        request: ReadRequest,
    ) -> a2a_runtime_types::BoxFuture<'static, Result<Vec<PromptMessage>, SkillError>> {
        (self.parts.get)(request)
    }
}

/// Implemented by `#[prompt]` for the marker type named like the fn, so a path to the fn names
/// its descriptor (`#[agent(prompts(path::to::fn))]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt",
    label = "not a `#[prompt]` function",
    note = "only functions annotated with `#[prompt(...)]` can be listed in `#[agent(prompts(...))]`"
)]
pub trait PromptDef {
    /// The prompt's descriptor.
    const DESCRIPTOR: &'static PromptDescriptor;
}
