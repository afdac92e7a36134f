//! Registry → MCP tool descriptors.

use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::watch;

use rmcp::model::{CacheScope, ListToolsResult, MetaObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::security::Security;
use a2a_runtime_core::registry::{Registry, SkillEntry};
use a2a_runtime_core::schema;

/// The tools of an agent, in the registry's (sorted, deterministic) order; on an agent that
/// requires credentials each says in `_meta.securitySchemes` what calling it takes.
pub fn tool_list(registry: &Registry, security: &Security) -> Vec<Tool> {
    registry
        .skills()
        .iter()
        .map(|skill| {
            let tool = tool(skill);
            match security_schemes(skill, security) {
                Some(schemes) => with_security(tool, schemes),
                None => tool,
            }
        })
        .collect()
}

/// An agent's tools: built once for a compiled agent; for one defined at run time (a
/// remote's), built again on first use after its registry was replaced.
pub struct Tools {
    /// The tools, and the replacement they were built after.
    built: RwLock<(u64, Arc<Vec<Tool>>)>,
    /// The agent's replacements, when it has any.
    replaced: Option<watch::Receiver<u64>>,
}

impl Tools {
    /// `app`'s tools.
    pub fn of(app: &App) -> Self {
        let replaced = app.dispatcher.registry_replacements();
        let version = replaced.as_ref().map_or(0, |replaced| *replaced.borrow());
        let tools = tool_list(&app.dispatcher.registry(), &app.security);
        Self {
            built: RwLock::new((version, Arc::new(tools))),
            replaced,
        }
    }

    /// `app`'s tools now.
    pub fn current(&self, app: &App) -> Arc<Vec<Tool>> {
        if let Some(replaced) = &self.replaced {
            let now = *replaced.borrow();
            if self.read().0 != now {
                let tools = Arc::new(tool_list(&app.dispatcher.registry(), &app.security));
                *self.built.write().unwrap_or_else(PoisonError::into_inner) =
                    (now, Arc::clone(&tools));
                return tools;
            }
        }
        Arc::clone(&self.read().1)
    }

    /// Whether the list may change while the server runs.
    pub fn changing(&self) -> bool {
        self.replaced.is_some()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, (u64, Arc<Vec<Tool>>)> {
        self.built.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How long a client may keep a list that may change while the server runs.
const CHANGING_TTL_MS: u64 = 60_000;

/// A `tools/list` answer: the same for every caller unless it depends on the caller's scopes
/// (`private`); kept an hour by clients, a minute when it may `change` while the server runs.
pub fn listed(tools: Vec<Tool>, private: bool, change: bool) -> ListToolsResult {
    let scope = if private {
        CacheScope::Private
    } else {
        CacheScope::Public
    };
    let ttl = if change { CHANGING_TTL_MS } else { 3_600_000 };
    ListToolsResult::with_all_items(tools)
        .with_ttl_ms(ttl)
        .with_cache_scope(scope)
}

/// `tool` saying in `_meta.securitySchemes` what calling it takes.
pub fn with_security(tool: Tool, schemes: Value) -> Tool {
    let mut meta = tool.meta.clone().map(|meta| meta.0).unwrap_or_default();
    meta.insert("securitySchemes".into(), schemes);
    tool.with_meta(MetaObject(meta))
}

/// What calling `skill` takes, in the form MCP hosts read from a tool's metadata: `noauth` for
/// a public tool, else `oauth2` with the skill's scopes when a scheme takes bearer tokens (the
/// credentials a host can obtain by signing its user in). `None` on an agent without security,
/// or one whose schemes no host signs in to (API keys, client certificates) for a tool that is
/// not public.
fn security_schemes(skill: &SkillEntry, security: &Security) -> Option<Value> {
    if !security.is_enabled() {
        return None;
    }
    let mut schemes = Vec::new();
    if skill.is_public() {
        schemes.push(json!({ "type": "noauth" }));
    }
    if security.schemes().any(|s| s.scheme.is_jwt()) {
        schemes.push(json!({ "type": "oauth2", "scopes": skill.scopes() }));
    }
    (!schemes.is_empty()).then_some(Value::Array(schemes))
}

fn tool(skill: &SkillEntry) -> Tool {
    let input = match &*skill.input_schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let description = skill.description().to_owned();
    let mut tool = Tool::new_with_raw(skill.id(), Some(description.into()), Arc::new(input))
        .with_title(skill.name());
    if let Some(output) = mcp_output_schema(skill) {
        tool = tool.with_raw_output_schema(Arc::new(output));
    }
    let hints = skill.hints();
    if hints != Default::default() {
        let mut annotations = ToolAnnotations::with_title(skill.name());
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
