//! A remote MCP server's tool list read as a definition: what the server says of itself, and
//! each tool as a [`DefinedSkill`] calling it. As for remote agents, nothing the remote writes
//! reaches a path or a document's structure: names become legal, unique tool names, texts are
//! bounded, and schemas are kept only when they describe objects and are of sane size.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::Value;

use crate::definition::{bounded, plain, tool_name};
use a2a_runtime_core::about::{AgentAbout, Text};
use a2a_runtime_core::descriptor::{Resume, ToolHints};
use a2a_runtime_core::registry::{DefinedSkill, RunSkill, Traits};

/// The longest name kept from a remote (characters).
const MAX_NAME: usize = 200;
/// The longest description kept from a remote (characters).
const MAX_DESCRIPTION: usize = 4000;
/// The largest schema kept, as JSON text (a larger one drops its tool).
const MAX_SCHEMA_BYTES: usize = 64 << 10;

/// Who defined a remote's tools, for messages.
pub(crate) fn location(id: &str, label: &str) -> String {
    format!("remote MCP server {id} ({label})")
}

/// What the server `id` said of itself when its session opened (`serverInfo`, `instructions`).
pub(crate) fn about(id: &str, label: &str, info: Option<&Value>) -> AgentAbout {
    let field = |pointer: &str| {
        info.and_then(|info| info.pointer(pointer))
            .and_then(Value::as_str)
            .filter(|text| !text.trim().is_empty())
    };
    let name = field("/serverInfo/title")
        .or_else(|| field("/serverInfo/name"))
        .unwrap_or(id);
    let description = match field("/instructions") {
        Some(instructions) => plain(instructions, MAX_DESCRIPTION),
        None => format!("The MCP server {}.", bounded(label, MAX_NAME)),
    };
    let mut about = AgentAbout::named(
        format!("remote-mcp:{id}"),
        bounded(name, MAX_NAME),
        description,
    );
    if let Some(version) = field("/serverInfo/version") {
        about.version = Text::Owned(bounded(version, MAX_NAME));
    }
    about
}

/// The tools as the host serves them, each run by `body(tool name)`; a tool whose name cannot
/// be a unique, legal tool name or whose schema is unusable is left out, and logged.
pub(crate) fn skills(
    id: &str,
    label: &str,
    tools: &[Tool],
    scopes: &std::collections::BTreeMap<String, Vec<String>>,
    body: impl Fn(&str) -> Arc<dyn RunSkill>,
) -> Vec<DefinedSkill> {
    let mut taken = Vec::<String>::new();
    let mut skills = Vec::new();
    for tool in tools {
        let Some(local) = tool_name(&tool.name, &taken) else {
            tracing::warn!(remote = id, tool = %bounded(&tool.name, 128), "tool name cannot be served; skipped");
            continue;
        };
        let input_schema = Value::Object((*tool.input_schema).clone());
        let output_schema = tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone()));
        if !usable(&input_schema) || output_schema.as_ref().is_some_and(|s| !usable(s)) {
            tracing::warn!(remote = id, tool = %local, "tool schema is not an object of sane size; skipped");
            continue;
        }
        taken.push(local.clone());
        let title = tool
            .title
            .as_deref()
            .or_else(|| tool.annotations.as_ref()?.title.as_deref())
            .filter(|title| !title.trim().is_empty())
            .unwrap_or(&tool.name);
        skills.push(DefinedSkill {
            id: local,
            name: bounded(title, MAX_NAME),
            description: bounded(tool.description.as_deref().unwrap_or(""), MAX_DESCRIPTION),
            tags: Vec::new(),
            examples: Vec::new(),
            run: body(&tool.name),
            input_schema,
            output_schema,
            input_modes: Vec::new(),
            output_modes: Vec::new(),
            scopes: scopes.get(tool.name.as_ref()).cloned().unwrap_or_default(),
            traits: traits(tool),
            location: location(id, label),
        });
    }
    skills
}

/// Whether a schema describes an object and is small enough to serve.
fn usable(schema: &Value) -> bool {
    let object = schema.get("type").and_then(Value::as_str) == Some("object");
    object && serde_json::to_vec(schema).is_ok_and(|text| text.len() <= MAX_SCHEMA_BYTES)
}

/// How a remote tool is called and listed: its annotations as the host's hints; a restart fails
/// its unfinished calls (calling it again could repeat what it did).
fn traits(tool: &Tool) -> Traits {
    let annotations = tool.annotations.as_ref();
    let hints = ToolHints {
        read_only: annotations.and_then(|a| a.read_only_hint),
        destructive: annotations.and_then(|a| a.destructive_hint),
        idempotent: annotations.and_then(|a| a.idempotent_hint),
        open_world: annotations.and_then(|a| a.open_world_hint),
    };
    Traits {
        resume: Resume::Never,
        hints,
        ..Traits::default()
    }
}
