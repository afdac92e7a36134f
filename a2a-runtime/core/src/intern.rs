//! Names given at run time made `'static`, once each: the ids and scopes of skills defined while
//! the server runs (a remote agent's skills, a remote MCP server's tools) travel through calls,
//! tasks and meters as `&'static str`, as compiled ones do. Each distinct name is kept for the
//! life of the process, so the names a process ever keeps are capped: a remote that invents new
//! names without end is refused once the cap is reached, instead of growing the process.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

/// The most bytes of names kept (about ten thousand 100-character names).
pub const NAME_BUDGET: usize = 1 << 20;

/// The names kept so far and their total size.
#[derive(Default)]
struct Names {
    kept: HashSet<&'static str>,
    bytes: usize,
}

/// The cap on kept names is reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no room for the name `{name}`: this process already keeps {NAME_BUDGET} bytes of names \
     defined at run time (skill ids, scopes); a remote that keeps renaming its skills or tools \
     is refused past that"
)]
pub struct NamesFull {
    /// The name refused (at most 128 characters of it).
    pub name: String,
}

fn names() -> &'static Mutex<Names> {
    static NAMES: OnceLock<Mutex<Names>> = OnceLock::new();
    NAMES.get_or_init(Mutex::default)
}

/// `name`, kept for the life of the process; the same `&'static str` every time it is asked
/// for the same text.
pub fn intern(name: &str) -> Result<&'static str, NamesFull> {
    let mut names = names().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(kept) = names.kept.get(name) {
        return Ok(kept);
    }
    if names.bytes + name.len() > NAME_BUDGET {
        return Err(NamesFull {
            name: name.chars().take(128).collect(),
        });
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.bytes += kept.len();
    names.kept.insert(kept);
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_kept_once() {
        let first = intern("weather.forecast").unwrap();
        let second = intern(&String::from("weather.forecast")).unwrap();
        assert!(std::ptr::eq(first, second));
    }

    #[test]
    fn a_name_past_the_budget_is_refused() {
        let huge = "x".repeat(NAME_BUDGET + 1);
        let refused = intern(&huge).unwrap_err();
        assert_eq!(refused.name.len(), 128);
    }
}
