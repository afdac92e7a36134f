//! Registry → MCP tool descriptors.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use a2a_runtime_core::registry::{Registry, SkillEntry};
use a2a_runtime_core::schema;

/// The tools of an agent, in the registry's (sorted, deterministic) order.
pub fn tool_list(registry: &Registry) -> Vec<Tool> {
    registry.skills().iter().map(tool).collect()
}

fn tool(skill: &SkillEntry) -> Tool {
    let d = skill.descriptor;
    let input = match &*skill.input_schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let mut tool = Tool::new_with_raw(d.id(), Some(d.description().into()), Arc::new(input))
        .with_title(d.name());
    if let Some(output) = mcp_output_schema(skill) {
        tool = tool.with_raw_output_schema(Arc::new(output));
    }
    let hints = d.hints();
    if hints != Default::default() {
        let mut annotations = ToolAnnotations::with_title(d.name());
        annotations.read_only_hint = hints.read_only;
        annotations.destructive_hint = hints.destructive;
        annotations.idempotent_hint = hints.idempotent;
        annotations.open_world_hint = hints.open_world;
        tool = tool.with_annotations(annotations);
    }
    tool
}

/// MCP clients of the 2025 revisions require `structuredContent` to be an object, so a
/// non-object output is published (and returned) wrapped as `{"result": …}`.
pub fn mcp_output_schema(skill: &SkillEntry) -> Option<Map<String, Value>> {
    let output = skill.output_schema.as_deref()?;
    if schema::is_object(output) {
        return output.as_object().cloned();
    }
    let mut inner = output.clone();
    let defs = inner.as_object_mut().and_then(|m| {
        m.remove("$schema");
        m.remove("$defs")
    });
    let mut wrapped = json!({
        "type": "object",
        "properties": { "result": inner },
        "required": ["result"],
    });
    if let (Some(defs), Some(map)) = (defs, wrapped.as_object_mut()) {
        map.insert("$defs".into(), defs);
    }
    wrapped.as_object().cloned()
}

/// Whether `skill`'s structured output is wrapped for MCP.
pub fn wraps_output(skill: &SkillEntry) -> bool {
    skill
        .output_schema
        .as_deref()
        .is_some_and(|s| !schema::is_object(s))
}
