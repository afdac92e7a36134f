//! Skills that return a `Stream`: each item becomes one chunk of a streamed artifact.

use std::borrow::Cow;

use futures::{Stream, StreamExt};
use serde::Serialize;

use super::output::{JSON, TEXT};
use super::{Json, SkillOutput, SkillResult};
use crate::context::TaskContext;
use crate::skill_error::SkillError;
use a2a_runtime_types::model::Part;

/// An item a skill's stream may yield: text, a [`Part`], [`Json`] data, or a `Result` of one of
/// these (an `Err` ends the stream and fails the task).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be streamed from a skill",
    label = "not a stream chunk",
    note = "stream items are `String`, `&'static str`, `Part`, `Json<T>`, or a `Result` of one of these"
)]
pub trait IntoChunk {
    /// The media types of the chunks: the skill's `outputModes` on the agent card. Empty (the
    /// default) when it varies; the agent's default output modes apply.
    const OUTPUT_MODES: &'static [&'static str] = &[];
    /// Converts the item into the part sent as one chunk.
    fn into_chunk(self) -> Result<Part, SkillError>;
}

impl IntoChunk for String {
    const OUTPUT_MODES: &'static [&'static str] = TEXT;
    fn into_chunk(self) -> Result<Part, SkillError> {
        Ok(Part::text(self))
    }
}

impl IntoChunk for &'static str {
    const OUTPUT_MODES: &'static [&'static str] = TEXT;
    fn into_chunk(self) -> Result<Part, SkillError> {
        Ok(Part::text(self))
    }
}

impl IntoChunk for Cow<'static, str> {
    const OUTPUT_MODES: &'static [&'static str] = TEXT;
    fn into_chunk(self) -> Result<Part, SkillError> {
        Ok(Part::text(self.into_owned()))
    }
}

impl IntoChunk for Part {
    fn into_chunk(self) -> Result<Part, SkillError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoChunk for Json<T> {
    const OUTPUT_MODES: &'static [&'static str] = JSON;
    fn into_chunk(self) -> Result<Part, SkillError> {
        serde_json::to_value(self.0).map(Part::data).map_err(|e| {
            SkillError::internal(format!("a streamed item could not be serialized: {e}"))
        })
    }
}

impl<T: IntoChunk, E: Into<SkillError>> IntoChunk for Result<T, E> {
    const OUTPUT_MODES: &'static [&'static str] = T::OUTPUT_MODES;
    fn into_chunk(self) -> Result<Part, SkillError> {
        self.map_err(Into::into).and_then(IntoChunk::into_chunk)
    }
}

/// Drives a skill's stream: every item is sent at once as a chunk of one artifact named after
/// the skill, and the artifact is closed when the stream ends. Stops early on cancellation.
pub async fn drive<S>(
    context: TaskContext,
    stream: S,
    chunk: fn(S::Item) -> Result<Part, SkillError>,
) -> SkillResult
where
    S: Stream + Send,
{
    let mut writer = context.artifact_writer(context.skill_id());
    let mut stream = std::pin::pin!(stream);
    loop {
        let item = tokio::select! {
            biased;
            () = context.cancelled() => return Err(SkillError::new("the task was canceled")),
            item = stream.next() => item,
        };
        match item {
            Some(item) => writer.append(chunk(item)?),
            None => break,
        }
    }
    writer.finish();
    Ok(SkillOutput::Empty)
}
