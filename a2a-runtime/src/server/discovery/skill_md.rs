//! An agent as an Agent Skills `SKILL.md`, written for a model to read: what the agent and each
//! of its skills do, their inputs and outputs as JSON Schema, what calling takes, and one
//! example call per protocol generated from the skill's examples and schemas.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Urls;
use super::sample::sample;
use a2a_runtime_core::app::App;
use a2a_runtime_core::auth::{ApiKeyLocation, SecurityScheme};
use a2a_runtime_core::registry::SkillEntry;

/// The longest `description` the Agent Skills format allows.
const MAX_DESCRIPTION: usize = 1024;

/// The skill's `description`: what the agent does and when to use it.
pub(crate) fn description(app: &App) -> String {
    let agent = app.dispatcher.about();
    let skills: Vec<String> = app
        .dispatcher
        .registry()
        .skills()
        .iter()
        .map(|skill| skill.name().trim_end_matches('.').to_lowercase())
        .collect();
    let text = format!(
        "{}. Use this agent (over A2A or MCP) to {}.",
        agent.description().trim().trim_end_matches('.'),
        skills.join("; ")
    );
    super::names::clip(&text, MAX_DESCRIPTION, agent.name())
}

/// The `SKILL.md` of `app`, named `name`, its front matter's `description` (see
/// [`description`]) as given.
pub(crate) fn skill_md(name: &str, description: &str, app: &App, urls: &Urls) -> String {
    let agent = app.dispatcher.about();
    let mut md = String::new();
    let description = serde_json::to_string(description).unwrap_or_default();
    // A JSON string is a YAML double-quoted scalar: whatever the text, the front matter parses.
    let _ = write!(
        md,
        "---\nname: {name}\ndescription: {description}\n---\n\n# {}\n\n{}\n\n",
        agent.name(),
        agent.description()
    );
    let _ = writeln!(md, "Version {}. Reach it at:\n", agent.version());
    let _ = writeln!(
        md,
        "- A2A 1.0 JSON-RPC: `POST {}` with `A2A-Version: 1.0`",
        urls.jsonrpc
    );
    let _ = writeln!(md, "- A2A 1.0 HTTP+JSON: `POST {}/message:send`", urls.rest);
    if let Some(grpc) = &urls.grpc {
        let _ = writeln!(
            md,
            "- A2A 1.0 gRPC: `{grpc}`, service `lf.a2a.v1.A2AService`"
        );
    }
    let _ = writeln!(md, "- Agent card: `GET {}`", urls.card);
    let _ = writeln!(
        md,
        "- MCP (streamable HTTP, revisions 2026-07-28 and 2025-11-25): `POST {}` with \
         `Accept: application/json, text/event-stream`",
        urls.mcp
    );
    let _ = writeln!(md, "\n{}\n\n## Skills", credentials(app));
    for skill in app.dispatcher.registry().skills() {
        write_skill(&mut md, skill);
    }
    md
}

/// What calling the agent takes.
fn credentials(app: &App) -> String {
    let ways: Vec<String> = app
        .security
        .schemes()
        .map(|named| match &named.scheme {
            SecurityScheme::ApiKey { location, name } => match location {
                ApiKeyLocation::Header => format!("an API key in the `{name}` header"),
                ApiKeyLocation::Query => format!("an API key in the `{name}` query parameter"),
                ApiKeyLocation::Cookie => format!("an API key in the `{name}` cookie"),
            },
            SecurityScheme::Bearer => "`Authorization: Bearer <JWT>`".to_owned(),
            SecurityScheme::OAuth2 { .. } | SecurityScheme::OpenIdConnect { .. } => {
                "an OAuth access token (`Authorization: Bearer …`; MCP clients sign in through \
                 the endpoint's protected-resource metadata)"
                    .to_owned()
            }
            SecurityScheme::MutualTls => "a client certificate (mutual TLS)".to_owned(),
        })
        .collect();
    if ways.is_empty() {
        "Calls need no credentials.".to_owned()
    } else {
        format!("Calls need one of: {}.", ways.join("; "))
    }
}

/// One skill's section.
fn write_skill(md: &mut String, skill: &SkillEntry) {
    let _ = write!(
        md,
        "\n### `{}`: {}\n\n{}\n\n",
        skill.id(),
        skill.name(),
        skill.description()
    );
    if skill.is_public() {
        md.push_str("Callable without credentials.\n\n");
    } else if !skill.scopes().is_empty() {
        let _ = write!(
            md,
            "Needs the scopes: `{}`.\n\n",
            skill.scopes().join("`, `")
        );
    }
    let compact = |value: &Value| serde_json::to_string(value).unwrap_or_default();
    let _ = write!(
        md,
        "Input (JSON Schema): `{}`\n\n",
        schema_text(&skill.input_schema)
    );
    match &skill.output_schema {
        Some(output) => {
            let _ = write!(md, "Output (JSON Schema): `{}`\n\n", schema_text(output));
        }
        None => {
            let _ = write!(md, "Output: {}\n\n", output_modes(skill));
        }
    }
    if !skill.examples().is_empty() {
        let _ = write!(
            md,
            "Asked for like: \"{}\"\n\n",
            skill.examples().join("\"; \"")
        );
    }
    let (part, arguments) = example_input(skill);
    let a2a = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": { "message": {
            "role": "ROLE_USER", "messageId": "m-1", "parts": [part],
            "metadata": { "skill": skill.id() },
        } },
    });
    let mcp = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": skill.id(), "arguments": arguments },
    });
    let _ = write!(
        md,
        "Over A2A (JSON-RPC; `message.metadata.skill` names the skill):\n\n```json\n{}\n```\n\n\
         Over MCP (the tool `{}`):\n\n```json\n{}\n```\n",
        compact(&a2a),
        skill.id(),
        compact(&mcp)
    );
}

/// A schema on one line, without the dialect every one of them declares.
fn schema_text(schema: &Value) -> String {
    let mut schema = schema.clone();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
    }
    serde_json::to_string(&schema).unwrap_or_default()
}

/// What the skill answers with, when it has no structured output.
fn output_modes(skill: &SkillEntry) -> String {
    if skill.output_modes.is_empty() {
        "text".to_owned()
    } else {
        format!("`{}`", skill.output_modes.join("`, `"))
    }
}

/// An example input: the A2A part and the MCP arguments. A skill that a plain text fills and
/// that has an example is asked in words; any other gets a data part sampled from its schema.
fn example_input(skill: &SkillEntry) -> (Value, Value) {
    let example = skill.examples().first();
    if let (Some(param), Some(example)) = (&skill.text_param, example) {
        return (
            json!({ "text": example }),
            json!({ param.as_str(): example }),
        );
    }
    let arguments = sample(&skill.input_schema, &skill.input_schema);
    (
        json!({ "data": arguments, "mediaType": "application/json" }),
        arguments,
    )
}
