//! Media types (a2a-spec.md §3.1.1): which message parts a skill can read. A part the routed
//! skill cannot read is refused with ContentTypeNotSupported (-32005), naming its media type and
//! the accepted ones, instead of being dropped or failing later as invalid input.

use super::A2aError;
use a2a_runtime_core::registry::SkillEntry;
use a2a_runtime_types::model::{Message, Part, PartContent};

/// The media type a part carries: its `mediaType`, else the type its kind implies.
fn media_type(part: &Part) -> String {
    match (&part.media_type, &part.content) {
        (Some(given), _) if !given.trim().is_empty() => essence(given),
        (_, PartContent::Text(_)) => "text/plain".into(),
        (_, PartContent::Data(_)) => "application/json".into(),
        (_, PartContent::Raw(_) | PartContent::Url(_)) => "application/octet-stream".into(),
    }
}

/// `type/subtype` in lower case, without parameters (`text/plain; charset=utf-8` → `text/plain`).
fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether `accepted` (exact, `type/*` or `*/*`) covers `given`.
pub fn covers(accepted: &str, given: &str) -> bool {
    let accepted = essence(accepted);
    accepted == "*/*"
        || accepted == given
        || accepted
            .strip_suffix("/*")
            .is_some_and(|kind| given.split('/').next() == Some(kind))
}

/// Checks that `skill` can read every part of `message`. A text part holding a JSON object is
/// read as JSON by skills that take structured input.
pub fn check_parts(skill: &SkillEntry, message: &Message) -> Result<(), A2aError> {
    let accepts = |media_type: &str| skill.input_modes.iter().any(|a| covers(a, media_type));
    for (index, part) in message.parts.iter().enumerate() {
        let media_type = media_type(part);
        let json_text = || match &part.content {
            PartContent::Text(text) => {
                media_type == "text/plain"
                    && accepts("application/json")
                    && text.trim_start().starts_with('{')
            }
            _ => false,
        };
        if !accepts(&media_type) && !json_text() {
            return Err(A2aError::ContentTypeNotSupported {
                field: format!("message.parts[{index}]"),
                media_type,
                skill: skill.id(),
                accepted: skill.input_modes.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_parameters() {
        assert!(covers("image/*", "image/png"));
        assert!(covers("*/*", "application/pdf"));
        assert!(covers("Text/Plain", "text/plain"));
        assert!(!covers("image/*", "text/plain"));
        assert_eq!(essence("text/plain; charset=utf-8"), "text/plain");
    }
}
