//! The names the discovery documents give an agent, each derived from what the agent already
//! declares: a skill name for the Agent Skills index, a reverse-DNS name for MCP server cards and
//! the MCP Registry, `urn:air:` identifiers for the catalogs, and texts clipped to the lengths
//! the schemas allow.

use axum::http::Uri;

use a2a_runtime_core::descriptor::Package;

/// `text` as an Agent Skills name: lowercase letters, digits and single hyphens, neither first
/// nor last, at most 64 characters (`agent` when nothing is left).
pub(crate) fn skill_name(text: &str) -> String {
    let mut name = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    name.truncate(64);
    let name = name.trim_end_matches('-');
    if name.is_empty() {
        "agent".to_owned()
    } else {
        name.to_owned()
    }
}

/// The host of `url`, lowercase, without its port.
pub(crate) fn host_of(url: &str) -> Option<String> {
    let uri: Uri = url.parse().ok()?;
    let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The domain that publishes the agent: its provider's, else the server's own.
pub(crate) fn publisher(provider_url: Option<&str>, base_url: &str) -> String {
    provider_url
        .and_then(host_of)
        .or_else(|| host_of(base_url))
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The GitHub owner of a repository URL (`https://github.com/{owner}/…`).
fn github_owner(repository: &str) -> Option<&str> {
    let rest = repository
        .strip_prefix("https://github.com/")
        .or_else(|| repository.strip_prefix("http://github.com/"))?;
    let owner = rest.split('/').next()?;
    let valid = !owner.is_empty() && owner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    valid.then_some(owner)
}

/// A server name in reverse-DNS form (`namespace/name`), as the MCP Registry and server cards
/// want it: the namespace a registry lets the crate's owner publish under (`io.github.{owner}`
/// for a GitHub repository), else the publisher's domain reversed; a name that is no domain
/// (`localhost`, an IP address) is kept as it is.
pub(crate) fn registry_name(package: &Package, publisher: &str, name: &str) -> String {
    let namespace = match github_owner(package.repository) {
        Some(owner) => format!("io.github.{owner}"),
        None if is_domain(publisher) => publisher.rsplit('.').collect::<Vec<_>>().join("."),
        None => publisher
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' => c,
                _ => '-',
            })
            .collect(),
    };
    format!("{namespace}/{name}")
}

/// Whether `host` is a DNS name of more than one label (not an IP address).
fn is_domain(host: &str) -> bool {
    host.contains('.') && host.parse::<std::net::IpAddr>().is_err()
}

/// An AI Catalog identifier anchored on the publisher's domain:
/// `urn:air:{publisher}:{namespace}:{name}`.
pub(crate) fn urn(publisher: &str, namespace: &str, name: &str) -> String {
    format!("urn:air:{publisher}:{namespace}:{name}")
}

/// `text` cut to at most `max` characters at a word boundary, ending in `…` when cut; never
/// empty (`fallback` stands in for an empty text).
pub(crate) fn clip(text: &str, max: usize, fallback: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = if text.is_empty() { fallback } else { &text };
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let at_word = match cut.rfind(' ') {
        Some(space) if space > cut.len() / 2 => &cut[..space],
        _ => &cut,
    };
    format!("{}…", at_word.trim_end_matches([' ', ',', ';', ':', '.']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_names_keep_to_the_agent_skills_alphabet() {
        assert_eq!(skill_name("Currency Agent"), "currency-agent");
        assert_eq!(skill_name("  --Hello__World!! "), "hello-world");
        assert_eq!(skill_name("日本"), "agent");
        assert_eq!(skill_name(&"a".repeat(80)).len(), 64);
        assert!(!skill_name(&format!("{}-b", "a".repeat(63))).ends_with('-'));
    }

    #[test]
    fn registry_names_prefer_the_github_namespace_then_the_domain() {
        let github = Package {
            name: "currency",
            version: "1.0.0",
            repository: "https://github.com/acme-labs/agents",
            homepage: "",
            on_crates_io: true,
        };
        let none = Package::default();
        assert_eq!(
            registry_name(&github, "example.com", "fx"),
            "io.github.acme-labs/fx"
        );
        assert_eq!(
            registry_name(&none, "agents.example.com", "fx"),
            "com.example.agents/fx"
        );
        assert_eq!(registry_name(&none, "localhost", "fx"), "localhost/fx");
        assert_eq!(registry_name(&none, "127.0.0.1", "fx"), "127.0.0.1/fx");
        assert_eq!(registry_name(&none, "::1", "fx"), "--1/fx");
    }

    #[test]
    fn publishers_are_hosts_without_ports() {
        assert_eq!(
            publisher(Some("https://Acme.example/about"), "http://127.0.0.1:8080/"),
            "acme.example"
        );
        assert_eq!(publisher(None, "http://127.0.0.1:8080/"), "127.0.0.1");
        assert_eq!(publisher(Some("not a url"), "http://[::1]:80/"), "::1");
    }

    #[test]
    fn clipped_texts_fit_and_end_at_a_word() {
        assert_eq!(clip("short", 100, "x"), "short");
        assert_eq!(clip("", 100, "fallback"), "fallback");
        let long =
            "Converts amounts between currencies at reference rates, with history and alerts";
        let clipped = clip(long, 40, "x");
        assert!(clipped.chars().count() <= 40, "{clipped}");
        assert!(
            clipped.ends_with('…') && !clipped.contains(" …"),
            "{clipped}"
        );
        assert_eq!(clip(&"é".repeat(150), 100, "x").chars().count(), 100);
    }
}
