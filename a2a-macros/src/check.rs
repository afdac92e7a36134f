//! Checks on values that darling parsed but cannot judge: identifiers that must be legal MCP tool
//! names, tags, media types. Each check reports into the shared accumulator.

use darling::Error;
use proc_macro2::Span;

use crate::model::{ResumePolicy, TaskSupport};

/// The longest tool name MCP clients accept.
const MAX_TOOL_NAME: usize = 128;

/// A skill id doubles as an MCP tool name, so it must match `^[A-Za-z0-9_.-]{1,128}$`.
pub(crate) fn tool_name(id: &str, span: Span) -> Result<(), Error> {
    if id.is_empty() {
        return Err(Error::custom("skill id must not be empty").with_span(&span));
    }
    if id.len() > MAX_TOOL_NAME {
        return Err(Error::custom(format!(
            "skill id is {} characters long; MCP tool names allow at most {MAX_TOOL_NAME}",
            id.len()
        ))
        .with_span(&span));
    }
    if let Some(bad) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        let suggestion: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        return Err(Error::custom(format!(
            "skill id `{id}` is not a legal MCP tool name: {bad:?} is not allowed; \
             use only ASCII letters, digits, `_`, `.` and `-` (for example `{suggestion}`)"
        ))
        .with_span(&span));
    }
    Ok(())
}

/// Tags are short keywords; blank or padded ones are almost always a typo.
pub(crate) fn tag(tag: &syn::LitStr) -> Result<String, Error> {
    let value = tag.value();
    if value.trim().is_empty() {
        return Err(Error::custom("skill tags must not be empty").with_span(tag));
    }
    if value.trim() != value {
        return Err(Error::custom(format!(
            "skill tag {value:?} has leading or trailing whitespace"
        ))
        .with_span(tag));
    }
    Ok(value)
}

/// `resume` names one of the restart policies.
pub(crate) fn resume(policy: &syn::LitStr) -> Result<ResumePolicy, Error> {
    let value = policy.value();
    ResumePolicy::NAMES
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, policy)| *policy)
        .ok_or_else(|| {
            Error::custom(format!(
                "unknown resume policy {value:?}; expected \"answers\" (the default: a task \
                 waiting for an answer survives a restart), \"rerun\" (a task that was working is \
                 also run again) or \"never\" (unfinished tasks fail after a restart)"
            ))
            .with_span(policy)
        })
}

/// `task_support` names one of the MCP task modes.
pub(crate) fn task_support(mode: &syn::LitStr) -> Result<TaskSupport, Error> {
    let value = mode.value();
    TaskSupport::NAMES
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, mode)| *mode)
        .ok_or_else(|| {
            Error::custom(format!(
                "unknown task support {value:?}; expected \"optional\" (the default: a call from \
                 a client of the MCP tasks extension becomes a task unless it ends at once), \
                 \"required\" (always a task; other clients are refused) or \"forbidden\" (never \
                 a task)"
            ))
            .with_span(mode)
        })
}

/// Input and output modes are media types such as `text/plain` or `application/json`.
pub(crate) fn media_type(mode: &syn::LitStr) -> Result<String, Error> {
    let value = mode.value();
    let valid = value.split_once('/').is_some_and(|(kind, sub)| {
        !kind.is_empty() && !sub.is_empty() && !value.contains(char::is_whitespace)
    });
    if valid {
        Ok(value)
    } else {
        Err(Error::custom(format!(
            "{value:?} is not a media type; expected something like \"text/plain\" or \"application/json\""
        ))
        .with_span(mode))
    }
}

/// An OAuth scope is an RFC 6749 scope-token: printable ASCII without spaces, `"` or `\\`.
pub(crate) fn scope(scope: &syn::LitStr) -> Result<String, Error> {
    let value = scope.value();
    if value.is_empty() {
        return Err(Error::custom("a scope must not be empty").with_span(scope));
    }
    match value
        .chars()
        .find(|&c| !matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E'))
    {
        None => Ok(value),
        Some(bad) => Err(Error::custom(format!(
            "scope {value:?} is not an OAuth scope token: {bad:?} is not allowed (scopes are \
             printable ASCII without spaces, `\"` or `\\`; list several scopes as separate \
             strings: `scopes = [\"a:read\", \"a:write\"]`)"
        ))
        .with_span(scope)),
    }
}

/// URLs in the agent card must be absolute.
/// An extension URI: an absolute URI (`https://…`, `urn:…`), as the card's `uri` field and the
/// `A2A-Extensions` header carry it (a comma-separated list, hence no commas or spaces).
pub(crate) fn extension_uri(uri: &syn::LitStr) -> Result<(), Error> {
    let value = uri.value();
    let scheme_ok = value.split_once(':').is_some_and(|(scheme, rest)| {
        !rest.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !scheme_ok {
        return Err(Error::custom(format!(
            "extension uri {value:?} is not an absolute URI; expected something like \
             \"https://example.com/ext/v1\" or \"urn:example:ext:v1\""
        ))
        .with_span(uri));
    }
    if let Some(bad) = value.chars().find(|c| c.is_whitespace() || *c == ',') {
        return Err(Error::custom(format!(
            "extension uri {value:?} contains {bad:?}; clients list extension URIs in one \
             comma-separated `A2A-Extensions` header, so a URI cannot hold spaces or commas"
        ))
        .with_span(uri));
    }
    Ok(())
}

/// A resource URI or URI template: an absolute URI whose `{name}` variables (RFC 6570 level 1)
/// are plain names, each once, never two in a row; returns the variable names in order.
pub(crate) fn uri_template(uri: &syn::LitStr) -> Result<Vec<String>, Error> {
    let value = uri.value();
    template_variables(&value).map_err(|message| Error::custom(message).with_span(uri))
}

/// Whether `value` starts with a URI scheme (`notes:`, `file:`).
fn has_scheme(value: &str) -> bool {
    value.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// The variables of the URI template `value` (see [`uri_template`]), or what is wrong with it.
fn template_variables(value: &str) -> Result<Vec<String>, String> {
    if !has_scheme(value) {
        return Err(format!(
            "resource uri {value:?} is not an absolute URI; expected something like \
             \"notes://{{id}}\" or \"file:///docs/readme.md\""
        ));
    }
    if let Some(bad) = value.chars().find(|c| c.is_whitespace()) {
        return Err(format!("resource uri {value:?} contains {bad:?}"));
    }
    let mut variables = Vec::new();
    let mut rest = value;
    let mut last_was_variable = false;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('{') {
            let Some(close) = after.find('}') else {
                return Err(format!("resource uri {value:?} has an unclosed `{{`"));
            };
            let name = &after[..close];
            check_variable(value, name, &variables, last_was_variable)?;
            variables.push(name.to_owned());
            last_was_variable = true;
            rest = &after[close + 1..];
        } else if rest.starts_with('}') {
            return Err(format!("resource uri {value:?} has a `}}` without `{{`"));
        } else {
            let next = rest.find(['{', '}']).unwrap_or(rest.len());
            rest = &rest[next..];
            last_was_variable = false;
        }
    }
    Ok(variables)
}

/// Variable `name` of template `value`: a plain name, not right after another variable, not
/// one of the `earlier` ones.
fn check_variable(
    value: &str,
    name: &str,
    earlier: &[String],
    after_variable: bool,
) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "URI template variable `{{{name}}}` is not a plain name: only `{{name}}` \
             variables (letters, digits, `_`) are supported, not RFC 6570 operators"
        ));
    }
    if after_variable {
        return Err(format!(
            "URI template {value:?} has two variables in a row; separate them with a \
             literal (`{{a}}/{{b}}`) so a URI can be matched"
        ));
    }
    if earlier.iter().any(|v| v == name) {
        return Err(format!("URI template variable `{name}` appears twice"));
    }
    Ok(())
}

/// A prompt name: not empty, no whitespace (clients type it).
pub(crate) fn prompt_name(name: &str, span: Span) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::custom("prompt name must not be empty").with_span(&span));
    }
    match name.chars().find(|c| c.is_whitespace() || c.is_control()) {
        Some(bad) => Err(Error::custom(format!(
            "prompt name {name:?} contains {bad:?}; use a name without spaces, like \"summarize_notes\""
        ))
        .with_span(&span)),
        None => Ok(()),
    }
}

/// An extension's `params`: a JSON object, as the card embeds it.
pub(crate) fn json_object(params: &syn::LitStr) -> Result<(), Error> {
    match crate::json_shape::kind(&params.value()) {
        Ok("an object") => Ok(()),
        Ok(other) => Err(Error::custom(format!(
            "extension params must be a JSON object, like r#\"{{\"key\": 1}}\"#; got {other}"
        ))
        .with_span(params)),
        Err(e) => Err(
            Error::custom(format!("extension params are not valid JSON: {e}")).with_span(params),
        ),
    }
}

pub(crate) fn absolute_url(url: &str, key: &str, span: Span) -> Result<(), Error> {
    if url.starts_with("https://") || url.starts_with("http://") {
        Ok(())
    } else {
        Err(Error::custom(format!(
            "`{key}` must be an absolute http(s) URL, got {url:?}"
        ))
        .with_span(&span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_tool_names_pass() {
        for id in ["convert", "get.rates", "a-b_c", "X9"] {
            assert!(tool_name(id, Span::call_site()).is_ok(), "{id}");
        }
    }

    #[test]
    fn scopes_are_rfc_6749_scope_tokens() {
        let lit = |s: &str| syn::LitStr::new(s, Span::call_site());
        for good in ["vault:open", "read", "https://api.example/x.read", "a!#[]~"] {
            assert!(scope(&lit(good)).is_ok(), "{good}");
        }
        for bad in ["", "two scopes", "quote\"d", "back\\slash", "tab\t", "é"] {
            assert!(scope(&lit(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn illegal_tool_names_fail() {
        for id in ["", "two words", "ünïcode", "slash/name", &"x".repeat(129)] {
            assert!(tool_name(id, Span::call_site()).is_err(), "{id}");
        }
    }
}
