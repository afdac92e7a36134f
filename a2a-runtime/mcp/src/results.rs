//! Skill outcomes as MCP `CallToolResult`s: from a plain call's output, or from what a task
//! kept. Both put published artifacts first and the returned value last.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents};
use serde_json::{Value, json};

use super::tools::wraps_output;
use a2a_runtime_core::call::{SkillOutput, SkillResult};
use a2a_runtime_core::registry::{Registry, SkillEntry};
use a2a_runtime_types::model::{Artifact, Part, PartContent, Task, TaskState};

/// The result of a plain `tools/call`: the parts of artifacts the skill published while it ran,
/// then its return value (structured when the skill has an output schema).
pub fn call_result(
    skill: &SkillEntry,
    published: &[Artifact],
    result: SkillResult,
) -> CallToolResult {
    let output = match result {
        Ok(output) => output,
        Err(error) => return failed(error.message().to_owned(), error.data().cloned()),
    };
    let last = match output {
        SkillOutput::Data(value) => structured(value, wraps_output(skill)),
        SkillOutput::Text(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        SkillOutput::Empty => CallToolResult::success(Vec::new()),
        SkillOutput::Parts(parts) => CallToolResult::success(blocks(&parts)),
        SkillOutput::Artifact(artifact) => CallToolResult::success(blocks(&artifact.parts)),
        SkillOutput::Message(message) => CallToolResult::success(blocks(&message.parts)),
    };
    after_published(published, last)
}

/// The result of a finished task. A failed task is a tool error carrying its status message; a
/// completed one lists its artifacts, the last one structured when it is the skill's data output.
pub fn task_result(task: &Task, registry: &Registry) -> CallToolResult {
    if task.status.state != TaskState::Completed {
        let parts = task
            .status
            .message
            .as_ref()
            .map(|m| m.parts.as_slice())
            .unwrap_or_default();
        let text = parts
            .iter()
            .filter_map(|p| match &p.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let data = parts.iter().find_map(|p| match &p.content {
            PartContent::Data(value) => Some(value.clone()),
            _ => None,
        });
        return failed(text, data);
    }
    let (published, last) = match task.artifacts.split_last() {
        Some((last, earlier)) => match (last.parts.as_slice(), &last.name) {
            (
                [
                    Part {
                        content: PartContent::Data(value),
                        ..
                    },
                ],
                Some(name),
            ) => {
                let wrap = registry
                    .get(name)
                    .map_or(!value.is_object(), |skill| wraps_output(skill));
                (earlier, structured(value.clone(), wrap))
            }
            _ => (
                task.artifacts.as_slice(),
                CallToolResult::success(Vec::new()),
            ),
        },
        None => (&[][..], CallToolResult::success(Vec::new())),
    };
    after_published(published, last)
}

/// A tool error: its message, or, when the failure carries details, those details as JSON, the
/// same as its `structuredContent`. Claude Code and Cursor show a model only the text, so the
/// details (who holds a lock, what to try instead) must be there for it to act on them.
fn failed(message: String, data: Option<Value>) -> CallToolResult {
    let text = data.as_ref().map_or(message, Value::to_string);
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    result.structured_content = data;
    result
}

/// A structured result. A wrapped output's text mirror is the value itself (the list a model
/// expects, not `{"result": [...]}`): the wrapper exists only because 2025 clients require
/// `structuredContent` to be an object.
fn structured(value: Value, wrap: bool) -> CallToolResult {
    if !wrap {
        return CallToolResult::structured(value);
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(json!({ "result": value }));
    result
}

fn after_published(published: &[Artifact], mut last: CallToolResult) -> CallToolResult {
    if published.is_empty() {
        return last;
    }
    let mut content: Vec<ContentBlock> = published.iter().flat_map(joined_blocks).collect();
    content.append(&mut last.content);
    last.content = content;
    last
}

/// A published artifact's content: text chunks are pieces of one text, so consecutive text parts
/// are joined into one block.
fn joined_blocks(artifact: &Artifact) -> Vec<ContentBlock> {
    let mut blocks = Vec::new();
    let mut text: Option<String> = None;
    for part in &artifact.parts {
        match &part.content {
            PartContent::Text(chunk) => text.get_or_insert_with(String::new).push_str(chunk),
            _ => {
                blocks.extend(text.take().map(ContentBlock::text));
                blocks.push(content(part));
            }
        }
    }
    blocks.extend(text.take().map(ContentBlock::text));
    blocks
}

fn blocks(parts: &[Part]) -> Vec<ContentBlock> {
    parts.iter().map(content).collect()
}

/// One part as MCP content, chosen by media type: inline images and audio as `image` / `audio`
/// content, other inline bytes as an embedded blob resource, a URL as a `resource_link`.
fn content(part: &Part) -> ContentBlock {
    let media_type = part.media_type.as_deref();
    match &part.content {
        PartContent::Text(text) => ContentBlock::text(text.clone()),
        PartContent::Data(value) => ContentBlock::text(value.to_string()),
        PartContent::Url(url) => {
            let name = part.filename.clone().unwrap_or_else(|| url.clone());
            let mut link = Resource::new(url.clone(), name);
            if let Some(media_type) = media_type {
                link = link.with_mime_type(media_type);
            }
            ContentBlock::resource_link(link)
        }
        PartContent::Raw(bytes) => {
            let data = STANDARD.encode(bytes);
            let media_type = media_type.unwrap_or(OCTET_STREAM);
            match media_type.split('/').next().map(str::to_ascii_lowercase) {
                Some(kind) if kind == "image" => ContentBlock::image(data, media_type),
                Some(kind) if kind == "audio" => ContentBlock::audio(data, media_type),
                _ => {
                    // Embedded resources need a URI; inline bytes have none, so the part is named.
                    let name = part.filename.as_deref().unwrap_or("part");
                    let uri = format!(
                        "attachment:{}",
                        a2a_runtime_types::util::percent_encode(name)
                    );
                    ContentBlock::resource(
                        ResourceContents::blob(data, uri).with_mime_type(media_type),
                    )
                }
            }
        }
    }
}

const OCTET_STREAM: &str = "application/octet-stream";
