//! Where an agent's files go by default: its own directory under the data directory, for the
//! SQLite task store and its records.

use std::path::PathBuf;

/// The directory of the agent named `agent_name` under `data_dir` (else the default data
/// directory): where its SQLite files go.
pub fn agent_data_dir(data_dir: Option<PathBuf>, agent_name: &str) -> PathBuf {
    data_dir
        .unwrap_or_else(default_data_dir)
        .join(slug(agent_name))
}

/// `$XDG_DATA_HOME/a2a-runtime`, else `~/.local/share/a2a-runtime`, else `./a2a-data`.
pub fn default_data_dir() -> PathBuf {
    let from = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(xdg) = from("XDG_DATA_HOME") {
        return xdg.join("a2a-runtime");
    }
    if let Some(home) = from("HOME").or_else(|| from("USERPROFILE")) {
        return home.join(".local").join("share").join("a2a-runtime");
    }
    PathBuf::from("a2a-data")
}

/// A directory name for an agent: `Currency Agent` → `currency-agent`.
fn slug(name: &str) -> String {
    let mut slug = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "agent".into()
    } else {
        slug.into()
    }
}
