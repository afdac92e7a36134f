//! A2A message → skill and input (design.md §3, "mapping rules").

use std::borrow::Cow;

use serde_json::Value;

use super::{A2aError, media};
use a2a_runtime_core::call::{DecodedInput, InputError, normalize_numbers};
use a2a_runtime_core::registry::{Registry, SkillEntry};
use a2a_runtime_types::model::{Message, PartContent};

/// The skill a message is for, and its input built from the message's parts: as JSON (kept, so
/// the call can be made again after a restart) and decoded.
#[derive(Debug)]
pub struct Route<'a> {
    pub skill: &'a SkillEntry,
    pub arguments: Value,
    pub input: DecodedInput,
}

/// Why a message could not be routed. Every variant maps to invalid params (-32602).
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error(
        "message.metadata.skill names unknown skill `{name}`; this agent's skills are: {known}"
    )]
    UnknownSkill { name: String, known: String },
    #[error(
        "message.metadata.skill must be a string naming a skill; this agent's skills are: {known}"
    )]
    SkillNotString { known: String },
    #[error(
        "cannot tell which skill this message is for; name one in message.metadata.skill \
         (one of: {known}), or send a data part whose object matches exactly one skill's input"
    )]
    Ambiguous { known: String },
    #[error("{reason} (skill `{skill}`)")]
    Input {
        skill: &'static str,
        field: String,
        reason: String,
    },
}

impl RouteError {
    /// The request field at fault, for `google.rpc.BadRequest`.
    pub fn field(&self) -> String {
        match self {
            Self::UnknownSkill { .. } | Self::SkillNotString { .. } => {
                "message.metadata.skill".into()
            }
            Self::Ambiguous { .. } => "message".into(),
            Self::Input { field, .. } => field.clone(),
        }
    }
}

impl From<RouteError> for A2aError {
    fn from(error: RouteError) -> Self {
        Self::invalid_params(error.field(), error.to_string())
    }
}

/// Picks the skill for `message`, checks that it reads every part (-32005 otherwise, before the
/// input is built, so an unreadable part is never reported as a missing input) and builds its
/// input:
/// 1. `message.metadata.skill` names the skill;
/// 2. otherwise the only skill, or the one marked `default`;
/// 3. otherwise the one skill whose input accepts the message's data part.
pub fn route<'a>(registry: &'a Registry, message: &Message) -> Result<Route<'a>, A2aError> {
    let named = message.metadata.as_ref().and_then(|m| m.get("skill"));
    let skill = match named {
        Some(Value::String(name)) => {
            registry.get(name).ok_or_else(|| RouteError::UnknownSkill {
                name: name.clone(),
                known: registry.id_list(),
            })?
        }
        Some(_) => {
            return Err(RouteError::SkillNotString {
                known: registry.id_list(),
            }
            .into());
        }
        None => match registry.fallback() {
            Some(skill) => skill,
            None => {
                let route = route_by_data(registry, message)?;
                media::check_parts(route.skill, message)?;
                return Ok(route);
            }
        },
    };
    media::check_parts(skill, message)?;
    let (arguments, input) = input_for(skill, message)?;
    Ok(Route {
        skill,
        arguments,
        input,
    })
}

fn route_by_data<'a>(registry: &'a Registry, message: &Message) -> Result<Route<'a>, RouteError> {
    let ambiguous = || RouteError::Ambiguous {
        known: registry.id_list(),
    };
    let (_, data) = data_object(message).ok_or_else(ambiguous)?;
    let mut matches = registry.skills().iter().filter_map(|skill| {
        let input = skill.decode_input(&data).ok()?;
        Some(Route {
            skill,
            arguments: data.clone(),
            input,
        })
    });
    match (matches.next(), matches.next()) {
        (Some(route), None) => Ok(route),
        _ => Err(ambiguous()),
    }
}

/// The first data part holding an object, normalized, with its index.
fn data_object(message: &Message) -> Option<(usize, Value)> {
    message
        .parts
        .iter()
        .enumerate()
        .find_map(|(i, part)| match &part.content {
            PartContent::Data(value @ Value::Object(_)) => {
                let mut value = value.clone();
                normalize_numbers(&mut value);
                Some((i, value))
            }
            _ => None,
        })
}

/// Text holding a JSON object, read as one (numbers normalized). Only text that starts like an
/// object is parsed: plain prose, the common case, is not, and builds no parse error.
fn text_object(text: &str) -> Option<Value> {
    let text = text.trim();
    if !text.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(mut object @ Value::Object(_)) => {
            normalize_numbers(&mut object);
            Some(object)
        }
        _ => None,
    }
}

/// Builds `skill`'s input from the message parts and decodes it into the skill's input type.
fn input_for(skill: &SkillEntry, message: &Message) -> Result<(Value, DecodedInput), RouteError> {
    let id = skill.id();
    let (input, prefix) = if let Some((index, data)) = data_object(message) {
        (data, Cow::Owned(format!("message.parts[{index}].data")))
    } else if let Some(text) = message.text() {
        match text_object(&text) {
            Some(object) => (object, Cow::Borrowed("message.parts.text")),
            None => match (&skill.text_param, skill.required.is_empty()) {
                (Some(param), _) => {
                    let object = serde_json::Map::from_iter([(param.clone(), Value::String(text))]);
                    (Value::Object(object), Cow::Borrowed("message.parts.text"))
                }
                (None, true) => (Value::Object(Default::default()), Cow::Borrowed("message")),
                (None, false) => {
                    return Err(RouteError::Input {
                        skill: id,
                        field: "message.parts".into(),
                        reason: format!(
                            "skill takes structured input (required: {}); send a data part holding a JSON object",
                            skill.required.join(", ")
                        ),
                    });
                }
            },
        }
    } else if skill.required.is_empty() {
        (Value::Object(Default::default()), Cow::Borrowed("message"))
    } else {
        return Err(RouteError::Input {
            skill: id,
            field: "message.parts".into(),
            reason: "no text or data part to read the skill's input from".into(),
        });
    };
    let decoded = skill
        .decode_input(&input)
        .map_err(|InputError { field, reason }| RouteError::Input {
            skill: id,
            field: if field.is_empty() {
                prefix.into_owned()
            } else {
                format!("{prefix}.{field}")
            },
            reason,
        })?;
    Ok((input, decoded))
}
