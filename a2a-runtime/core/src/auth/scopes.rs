//! Scope hierarchies: which granted scopes satisfy a required one besides itself. A granted
//! wildcard `prefix:*` covers every scope below `prefix:` (`mcp:tools:*` covers
//! `mcp:tools:search`), and configured implications make one scope grant others (`admin`
//! grants `notes:read` and `notes:write`), so an identity provider's coarse scopes can meet a
//! skill's fine ones.

use std::collections::{BTreeMap, BTreeSet};

/// The characters after which a trailing `*` makes a scope a wildcard.
const SEPARATORS: [char; 3] = [':', '.', '/'];

/// Whether granted scope `granted` covers `required`: the same scope, or a wildcard
/// (`prefix:*`, `prefix.*`, `prefix/*`) over it.
pub fn covers(granted: &str, required: &str) -> bool {
    if granted == required {
        return true;
    }
    let Some(prefix) = granted.strip_suffix('*') else {
        return false;
    };
    prefix.ends_with(SEPARATORS) && required.len() > prefix.len() && required.starts_with(prefix)
}

/// Scopes that grant others (configured with the builder or `--scope-implies`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeImplications(BTreeMap<String, BTreeSet<String>>);

impl ScopeImplications {
    /// No implications.
    pub fn new() -> Self {
        Self::default()
    }

    /// A caller granted `parent` is granted `children` too (and whatever they imply).
    #[must_use]
    pub fn imply<S: Into<String>>(
        mut self,
        parent: impl Into<String>,
        children: impl IntoIterator<Item = S>,
    ) -> Self {
        self.0
            .entry(parent.into())
            .or_default()
            .extend(children.into_iter().map(Into::into));
        self
    }

    /// Reads `parent=child child,parent2=child` (the flag's form: implications separated by
    /// commas, each parent's scopes by spaces or `+`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut implications = Self::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let Some((parent, children)) = entry.split_once('=') else {
                return Err(format!(
                    "scope implication `{entry}` is not `parent=child child`"
                ));
            };
            let children: Vec<&str> = children
                .split([' ', '+'])
                .filter(|child| !child.is_empty())
                .collect();
            if parent.trim().is_empty() || children.is_empty() {
                return Err(format!(
                    "scope implication `{entry}` needs a parent scope and at least one it grants"
                ));
            }
            implications = implications.imply(parent.trim(), children);
        }
        Ok(implications)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds `other`'s implications to these.
    pub fn extend(&mut self, other: &Self) {
        for (parent, children) in &other.0 {
            self.0
                .entry(parent.clone())
                .or_default()
                .extend(children.iter().cloned());
        }
    }

    /// `granted` with every scope it implies, transitively; `None` when it implies nothing
    /// new.
    pub fn expand(&self, granted: &BTreeSet<String>) -> Option<BTreeSet<String>> {
        let mut all = granted.clone();
        let mut pending: Vec<&String> = granted.iter().collect();
        while let Some(scope) = pending.pop() {
            for child in self.0.get(scope).into_iter().flatten() {
                if all.insert(child.clone()) {
                    pending.push(child);
                }
            }
        }
        (all.len() > granted.len()).then_some(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_covers_the_scopes_below_it_only() {
        assert!(covers("mcp:tools:*", "mcp:tools:search"));
        assert!(covers("mcp:tools:*", "mcp:tools:search:deep"));
        assert!(covers("notes.*", "notes.read"));
        assert!(covers("read", "read"));
        assert!(!covers("mcp:tools:*", "mcp:tools:"));
        assert!(!covers("mcp:tools:*", "mcp:toolsX"));
        assert!(!covers("mcp:tools:*", "mcp:prompts:get"));
        assert!(
            !covers("admin*", "administrator"),
            "a star after no separator is literal"
        );
        assert!(
            !covers("*", "anything"),
            "a bare star grants nothing but itself"
        );
    }

    #[test]
    fn implications_expand_transitively_and_parse_from_the_flag() {
        let implications =
            ScopeImplications::parse("admin=notes:write+notes:read, notes:write=notes:read")
                .unwrap();
        let granted: BTreeSet<String> = ["admin".to_owned()].into();
        let expanded = implications.expand(&granted).unwrap();
        assert_eq!(
            expanded.into_iter().collect::<Vec<_>>(),
            ["admin", "notes:read", "notes:write"]
        );
        let plain: BTreeSet<String> = ["other".to_owned()].into();
        assert_eq!(implications.expand(&plain), None);
        assert!(ScopeImplications::parse("admin").is_err());
        assert!(ScopeImplications::parse("=a").is_err());
        assert!(ScopeImplications::parse("a=").is_err());
    }
}
