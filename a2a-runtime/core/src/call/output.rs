//! Skill return values: [`IntoSkillOutput`] and the version-neutral [`SkillOutput`].

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;

use super::SkillResult;
use crate::skill_error::SkillError;
use a2a_runtime_types::model::{Artifact, ByteSize, Message, Part};

/// What text outputs produce.
pub const TEXT: &[&str] = &["text/plain"];
/// What structured outputs produce.
pub const JSON: &[&str] = &["application/json"];

/// What a skill produced, before a protocol renders it.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillOutput {
    /// Nothing beyond success.
    Empty,
    /// Plain text.
    Text(String),
    /// Structured data described by the skill's output schema.
    Data(serde_json::Value),
    /// Parts, sent as one artifact.
    Parts(Vec<Part>),
    /// A complete artifact.
    Artifact(Artifact),
    /// A direct reply: the A2A caller gets this message and no task is created (streaming:
    /// the stream is this one message). The skill's return type must be [`Message`] or
    /// `SkillOutput` for the runtime to hold back the task; a task whose id was already told
    /// (by progress, an artifact or a question first) completes with the message's parts as its
    /// artifact instead. MCP callers get the parts as the tool result.
    Message(Message),
}

impl SkillOutput {
    /// The output's size, as the server measures content against its limits.
    pub fn byte_size(&self) -> usize {
        match self {
            Self::Empty => 0,
            Self::Text(text) => text.len(),
            Self::Data(value) => value.byte_size(),
            Self::Parts(parts) => parts.iter().map(ByteSize::byte_size).sum(),
            Self::Artifact(artifact) => artifact.byte_size(),
            Self::Message(message) => message.byte_size(),
        }
    }
}

/// A return type a skill may have. Structured types (`T: Serialize + JsonSchema`) need no impl:
/// `#[skill]` serializes them and publishes their schema. This trait covers the rest.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a skill",
    label = "not a skill output",
    note = "return text (`String`), a type that implements `Serialize` and `JsonSchema`, `Json<T>`, `Artifact`, `Vec<Part>`, `impl Stream<Item = String>`, or a `Result` of one of these"
)]
pub trait IntoSkillOutput {
    /// The media types of the parts this output produces: the skill's `outputModes` on the
    /// agent card. Empty (the default) when it varies; the agent's default output modes apply.
    const OUTPUT_MODES: &'static [&'static str] = &[];
    /// Whether a value may be a direct message reply ([`SkillOutput::Message`]): an A2A
    /// request for such a skill creates no task until the skill shows it needs one.
    const REPLIES: bool = false;
    /// The JSON Schema of the output, for structured outputs.
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema>;
    /// Converts the value.
    fn into_skill_output(self) -> SkillResult;
}

/// Structured output, explicitly: `Json(value)` is serialized and described by `T`'s schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoSkillOutput for Json<T> {
    const OUTPUT_MODES: &'static [&'static str] = JSON;
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.root_schema_for::<T>())
    }
    fn into_skill_output(self) -> SkillResult {
        structured_output(self.0)
    }
}

impl IntoSkillOutput for String {
    const OUTPUT_MODES: &'static [&'static str] = TEXT;
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Text(self))
    }
}

impl IntoSkillOutput for &'static str {
    const OUTPUT_MODES: &'static [&'static str] = TEXT;
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Text(self.to_owned()))
    }
}

impl IntoSkillOutput for Cow<'static, str> {
    const OUTPUT_MODES: &'static [&'static str] = TEXT;
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Text(self.into_owned()))
    }
}

impl IntoSkillOutput for () {
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Empty)
    }
}

impl IntoSkillOutput for Artifact {
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Artifact(self))
    }
}

impl IntoSkillOutput for Part {
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Parts(vec![self]))
    }
}

impl IntoSkillOutput for Vec<Part> {
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Parts(self))
    }
}

impl IntoSkillOutput for SkillOutput {
    const REPLIES: bool = true;
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(self)
    }
}

/// A direct reply: the message is the answer and no task is created (see
/// [`SkillOutput::Message`]). The runtime fills in its context id and marks it an agent message.
impl IntoSkillOutput for Message {
    const REPLIES: bool = true;
    fn output_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    fn into_skill_output(self) -> SkillResult {
        Ok(SkillOutput::Message(self))
    }
}

/// A structured return type: anything `Serialize + JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a skill: it must implement `Serialize` and `JsonSchema`",
    label = "not serializable as a skill output",
    note = "add `#[derive(Serialize, JsonSchema)]` to the type, or return text (`String`), `Artifact`, `Vec<Part>` or `impl Stream<Item = String>`"
)]
pub trait StructuredOutput: Serialize + JsonSchema {}

impl<T: Serialize + JsonSchema> StructuredOutput for T {}

/// Used by generated shims for structured return types.
pub fn structured_output<T: StructuredOutput>(value: T) -> SkillResult {
    serde_json::to_value(value)
        .map(SkillOutput::Data)
        .map_err(|e| {
            SkillError::internal(format!("the skill's output could not be serialized: {e}"))
        })
}

/// Used by generated descriptors for structured return types.
pub fn structured_schema<T: StructuredOutput>(generator: &mut SchemaGenerator) -> Option<Schema> {
    Some(generator.root_schema_for::<T>())
}

/// Used by generated shims for return types with their own [`IntoSkillOutput`] impl.
pub fn direct_output<T: IntoSkillOutput>(value: T) -> SkillResult {
    value.into_skill_output()
}

/// Used by generated descriptors for return types with their own [`IntoSkillOutput`] impl.
pub fn direct_schema<T: IntoSkillOutput>(generator: &mut SchemaGenerator) -> Option<Schema> {
    T::output_schema(generator)
}
