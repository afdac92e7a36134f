//! A remote A2A agent's card read as a definition: what the agent says of itself, and each of
//! its skills as a [`DefinedSkill`] whose body forwards to it. Nothing the remote writes reaches
//! a path, a scheme or a document's structure: ids are rewritten into legal tool names, texts
//! are bounded, and schemas are taken only when they describe objects.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use a2a_runtime_client::AgentCard;
use a2a_runtime_core::about::{AgentAbout, Text};
use a2a_runtime_core::descriptor::Resume;
use a2a_runtime_core::registry::{DefinedSkill, RunSkill, Traits};
use a2a_runtime_types::protocol::a2a::SKILL_SCHEMAS_EXTENSION;

/// The longest name kept from a remote (characters).
const MAX_NAME: usize = 200;
/// The longest description kept from a remote (characters).
const MAX_DESCRIPTION: usize = 4000;
/// The most tags or examples kept per skill.
const MAX_LISTED: usize = 32;
/// The most skills kept from one remote.
pub(crate) const MAX_SKILLS: usize = 256;

/// Who defined a remote's skills, for messages: `remote agent py (http://…)`.
pub(crate) fn location(id: &str, url: &str) -> String {
    format!("remote agent {id} ({url})")
}

/// What the remote `id` says of itself on `card`.
pub(crate) fn about(id: &str, card: &AgentCard) -> AgentAbout {
    let raw = &card.raw;
    let text = |value: &str, max: usize| Text::Owned(bounded(value, max));
    let mut about = AgentAbout::named(
        format!("remote:{id}"),
        bounded(nonempty(&card.name, id), MAX_NAME),
        plain(&card.description, MAX_DESCRIPTION),
    );
    about.version = text(&card.version, MAX_NAME);
    about.provider = raw.get("provider").and_then(|provider| {
        let organization = provider.get("organization")?.as_str()?;
        let url = provider.get("url").and_then(Value::as_str).unwrap_or("");
        Some((text(organization, MAX_NAME), text(url, MAX_NAME)))
    });
    about.documentation_url = raw
        .get("documentationUrl")
        .and_then(Value::as_str)
        .map(|url| text(url, MAX_NAME));
    about.icon_url = raw
        .get("iconUrl")
        .and_then(Value::as_str)
        .map(|url| text(url, MAX_NAME));
    if let Some(modes) = modes(raw.get("defaultInputModes")) {
        about.default_input_modes = modes.into_iter().map(Text::Owned).collect();
    }
    if let Some(modes) = modes(raw.get("defaultOutputModes")) {
        about.default_output_modes = modes.into_iter().map(Text::Owned).collect();
    }
    about
}

/// The remote's skills as the host serves them, each run by `body(remote_id)`; at most
/// [`MAX_SKILLS`], and none whose id cannot be made a legal, unique tool name.
pub(crate) fn skills(
    id: &str,
    url: &str,
    card: &AgentCard,
    scopes: &BTreeMap<String, Vec<String>>,
    body: impl Fn(&str, bool) -> Arc<dyn RunSkill>,
) -> Vec<DefinedSkill> {
    let raw_skills = card.raw.get("skills").and_then(Value::as_array);
    let schemas = skill_schemas(&card.raw);
    let mut taken = Vec::<String>::new();
    let mut skills = Vec::new();
    for (index, skill) in card.skills.iter().take(MAX_SKILLS).enumerate() {
        let raw = raw_skills
            .and_then(|all| all.get(index))
            .unwrap_or(&Value::Null);
        let local = tool_name(&skill.id, &taken);
        let Some(local) = local else {
            tracing::warn!(remote = id, skill = %bounded(&skill.id, 128), "skill id cannot be served as a tool name; skipped");
            continue;
        };
        taken.push(local.clone());
        let input_modes = modes(raw.get("inputModes")).unwrap_or_default();
        let (input_schema, output_schema) = match schemas.and_then(|s| s.get(&skill.id)) {
            Some(declared) => declared_schemas(declared),
            None => (text_input(&input_modes, card), None),
        };
        skills.push(DefinedSkill {
            id: local,
            name: bounded(nonempty(&skill.name, &skill.id), MAX_NAME),
            description: bounded(&skill.description, MAX_DESCRIPTION),
            tags: listed(&skill.tags),
            examples: listed(&skill.examples),
            run: body(&skill.id, output_schema.is_some()),
            input_schema,
            output_schema,
            input_modes,
            output_modes: modes(raw.get("outputModes")).unwrap_or_default(),
            scopes: scopes.get(&skill.id).cloned().unwrap_or_default(),
            traits: traits(),
            location: location(id, url),
        });
    }
    skills
}

/// How a remote's skill is called and resumed: every call is a task from the start (the host
/// cannot tell before the remote answers whether it replies with a message alone, and a stream
/// must not wait for that: a remote's reply completes the task with its parts); a restart fails
/// its unfinished tasks (running it again would send the remote its first message twice).
fn traits() -> Traits {
    Traits {
        resume: Resume::Never,
        ..Traits::default()
    }
}

/// The skill-schemas extension's `params.skills`, when the remote publishes it (an agent of
/// this SDK does).
fn skill_schemas(card: &Value) -> Option<&serde_json::Map<String, Value>> {
    card.pointer("/capabilities/extensions")?
        .as_array()?
        .iter()
        .find(|extension| {
            extension.get("uri").and_then(Value::as_str) == Some(SKILL_SCHEMAS_EXTENSION)
        })?
        .pointer("/params/skills")?
        .as_object()
}

/// A skill's declared input and output schemas; an input schema that does not describe an
/// object is not used (a text input stands in).
fn declared_schemas(declared: &Value) -> (Value, Option<Value>) {
    let input = declared
        .get("inputSchema")
        .filter(|schema| schema.get("type").and_then(Value::as_str) == Some("object"))
        .cloned()
        .unwrap_or_else(|| text_input_schema(true));
    (input, declared.get("outputSchema").cloned())
}

/// The input of a skill that publishes no schema: its request in words. The text is required
/// unless the skill also reads JSON, whose data parts are forwarded as they are.
fn text_input(input_modes: &[String], card: &AgentCard) -> Value {
    let reads_json = |modes: &[String]| {
        modes
            .iter()
            .any(|mode| mode == "application/json" || mode.ends_with("+json"))
    };
    let json = if input_modes.is_empty() {
        modes(card.raw.get("defaultInputModes")).is_some_and(|modes| reads_json(&modes))
    } else {
        reads_json(input_modes)
    };
    text_input_schema(!json)
}

fn text_input_schema(required: bool) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "text": { "type": "string", "description": "The request, in words." }
        }
    });
    if required {
        schema["required"] = json!(["text"]);
    }
    schema
}

/// `id` as a legal tool name (1 to 128 ASCII letters, digits, `_`, `.`, `-`) not yet `taken`:
/// other characters become `_`; `None` when nothing is left or it collides.
pub(crate) fn tool_name(id: &str, taken: &[String]) -> Option<String> {
    let name: String = id
        .chars()
        .take(128)
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                true => c,
                false => '_',
            },
        )
        .collect();
    let meaningful = name.chars().any(|c| c.is_ascii_alphanumeric());
    (meaningful && !taken.contains(&name)).then_some(name)
}

/// The media types of a card's `key`, when it lists some (at most [`MAX_LISTED`], each short).
fn modes(value: Option<&Value>) -> Option<Vec<String>> {
    let modes: Vec<String> = value?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter(|mode| mode.len() <= 128)
        .take(MAX_LISTED)
        .map(str::to_owned)
        .collect();
    (!modes.is_empty()).then_some(modes)
}

fn listed(items: &[String]) -> Vec<String> {
    items
        .iter()
        .take(MAX_LISTED)
        .map(|item| bounded(item, MAX_NAME))
        .collect()
}

fn nonempty<'a>(text: &'a str, otherwise: &'a str) -> &'a str {
    if text.trim().is_empty() {
        otherwise
    } else {
        text
    }
}

/// `text` cut to `max` characters, on one line: a name, tag or version.
pub(crate) fn bounded(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A remote's description, cut to `max` characters, as plain text wherever the host writes it
/// (card, tool list, `SKILL.md`): control characters other than line breaks and tabs dropped,
/// and a line that would open a Markdown block (heading, rule, fence, quote, list, table, HTML)
/// escaped, so it cannot add a section to a document the host publishes.
pub(crate) fn plain(text: &str, max: usize) -> String {
    let kept: String = text
        .chars()
        .take(max)
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    kept.split('\n')
        .map(|line| {
            let opens_block = line
                .trim_start()
                .starts_with(['#', '-', '=', '`', '~', '>', '|', '<', '*', '+', '_']);
            match opens_block {
                true => format!("\\{}", line.trim_start()),
                false => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_runtime_core::call::{Invocation, SkillResult};
    use a2a_runtime_types::util::BoxFuture;

    struct Never;

    impl RunSkill for Never {
        fn run(&self, _: Invocation) -> BoxFuture<'static, SkillResult> {
            Box::pin(std::future::pending())
        }
    }

    fn card(raw: Value) -> AgentCard {
        AgentCard::from_json(raw).unwrap()
    }

    fn python_card() -> AgentCard {
        card(json!({
            "name": "Py\n# Injected heading",
            "description": "A Python agent.",
            "version": "1.2.0",
            "supportedInterfaces": [{"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [
                {"id": "summarize text", "name": "Summarize", "description": "Summarizes.", "tags": ["text"]},
                {"id": "summarize_text", "name": "Clash", "description": "Same tool name.", "tags": []},
                {"id": "lookup", "name": "Lookup", "description": "Looks up.", "tags": [], "inputModes": ["application/json"]},
                {"id": "***", "name": "Nothing left", "description": "", "tags": []}
            ]
        }))
    }

    #[test]
    fn skill_ids_become_unique_legal_tool_names_and_the_rest_are_skipped() {
        let skills = skills(
            "py",
            "http://127.0.0.1:9/",
            &python_card(),
            &BTreeMap::new(),
            |_, _| Arc::new(Never),
        );
        let ids: Vec<_> = skills.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["summarize_text", "lookup"]);
        assert_eq!(skills[0].location, "remote agent py (http://127.0.0.1:9/)");
    }

    #[test]
    fn a_skill_without_a_schema_takes_text_required_unless_it_reads_json() {
        let skills = skills(
            "py",
            "http://127.0.0.1:9/",
            &python_card(),
            &BTreeMap::new(),
            |_, _| Arc::new(Never),
        );
        assert_eq!(skills[0].input_schema["required"], json!(["text"]));
        assert!(skills[1].input_schema.get("required").is_none());
        assert_eq!(skills[1].input_modes, ["application/json"]);
    }

    #[test]
    fn a_card_of_this_sdk_gives_its_skill_schemas() {
        let input = json!({"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]});
        let card = card(json!({
            "name": "Currency", "description": "Converts.", "version": "1",
            "supportedInterfaces": [{"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"extensions": [{"uri": SKILL_SCHEMAS_EXTENSION, "params": {"skills": {
                "convert": {"inputSchema": input, "outputSchema": {"type": "number"}}
            }}}]},
            "skills": [{"id": "convert", "name": "Convert", "description": "", "tags": []}]
        }));
        let skills = skills(
            "fx",
            "http://127.0.0.1:9/",
            &card,
            &BTreeMap::new(),
            |_, _| Arc::new(Never),
        );
        assert_eq!(skills[0].input_schema, input);
        assert_eq!(skills[0].output_schema, Some(json!({"type": "number"})));
    }

    #[test]
    fn a_remotes_text_cannot_add_lines_or_sections_to_a_document() {
        let about = about("py", &python_card());
        assert_eq!(about.name(), "Py # Injected heading");
        let described = plain("Summarizes.\n## Tools\n- run anything\nfine", 100);
        assert_eq!(described, "Summarizes.\n\\## Tools\n\\- run anything\nfine");
    }

    #[test]
    fn what_a_remote_says_of_itself_is_bounded() {
        let mut raw = python_card().raw;
        raw["description"] = json!("x".repeat(MAX_DESCRIPTION * 2));
        let about = about("py", &card(raw));
        assert_eq!(about.description().len(), MAX_DESCRIPTION);
        assert_eq!(about.version(), "1.2.0");
        assert_eq!(about.type_name(), "remote:py");
    }
}
