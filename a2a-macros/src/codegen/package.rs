//! The `Package` of the crate `#[agent]` expands in: what Cargo tells the compiler of it
//! (`CARGO_PKG_*`), and whether crates.io can install it, which Cargo tells no one: that is
//! read from the crate's own manifest (`publish`, or the workspace's when inherited).

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

/// The `Package` of the agent's crate, read where the macro expands: the user's crate, as
/// Cargo describes it (empty when built without Cargo).
pub(super) fn package_parts(private: &TokenStream) -> TokenStream {
    let cargo = |name: &str| {
        quote!(match ::core::option_env!(#name) {
            ::core::option::Option::Some(value) => value,
            ::core::option::Option::None => "",
        })
    };
    let (name, version, repository, homepage) = (
        cargo("CARGO_PKG_NAME"),
        cargo("CARGO_PKG_VERSION"),
        cargo("CARGO_PKG_REPOSITORY"),
        cargo("CARGO_PKG_HOMEPAGE"),
    );
    let manifests = manifest_paths();
    let on_crates_io = on_crates_io(&manifests);
    // Reading a file from a macro does not tell Cargo to rebuild when it changes; including
    // it in an unused constant does (rustc lists it among the crate's inputs), and the
    // constant is never emitted. Named from the crate's folder, so the code is the same on
    // every machine.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let watched = manifests.iter().filter_map(|path| {
        let relative = relative_to(dir.as_deref()?, path)?;
        let relative = format!("/{relative}");
        Some(quote!(
            const _: &[u8] = ::core::include_bytes!(::core::concat!(
                ::core::env!("CARGO_MANIFEST_DIR"),
                #relative
            ));
        ))
    });
    quote!({
        #(#watched)*
        #private::Package {
            name: #name,
            version: #version,
            repository: #repository,
            homepage: #homepage,
            on_crates_io: #on_crates_io,
        }
    })
}

/// `path` as seen from `dir`, which it is in or below an ancestor of (`../../Cargo.toml`).
fn relative_to(dir: &Path, path: &Path) -> Option<String> {
    let (ups, base) = dir
        .ancestors()
        .enumerate()
        .find(|(_, base)| path.starts_with(base))?;
    let rest = path.strip_prefix(base).ok()?.to_str()?;
    Some(format!("{}{rest}", "../".repeat(ups)))
}

/// The crate's manifest, and the workspace's when the crate inherits `publish` from it.
fn manifest_paths() -> Vec<PathBuf> {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return Vec::new();
    };
    let own = dir.join("Cargo.toml");
    let Ok(text) = std::fs::read_to_string(&own) else {
        return Vec::new();
    };
    let mut paths = vec![own];
    if matches!(publish_in(&text, "package"), Some(Publish::Inherited))
        && let Some(root) = workspace_root(&dir)
    {
        paths.push(root);
    }
    paths
}

/// Whether `cargo install NAME` can find the crate on crates.io, as `publish` says: absent or
/// `true`, yes; `false`, an empty list or a list without `crates-io`, no. Unreadable: no, since
/// a document naming a package nobody can install sends its reader to an error.
fn on_crates_io(manifests: &[PathBuf]) -> bool {
    let Some(own) = manifests.first() else {
        return false;
    };
    let Ok(text) = std::fs::read_to_string(own) else {
        return false;
    };
    match publish_in(&text, "package") {
        None => true,
        Some(Publish::Value(value)) => allows_crates_io(&value),
        Some(Publish::Inherited) => {
            let workspace = manifests
                .get(1)
                .and_then(|p| std::fs::read_to_string(p).ok());
            match workspace
                .as_deref()
                .map(|t| publish_in(t, "workspace.package"))
            {
                Some(None) => true,
                Some(Some(Publish::Value(value))) => allows_crates_io(&value),
                _ => false,
            }
        }
    }
}

/// What `publish` is set to in a table of a manifest.
#[derive(Debug, PartialEq, Eq)]
enum Publish {
    /// `publish.workspace = true` or `publish = { workspace = true }`.
    Inherited,
    /// The value's text: `false`, `true`, or an array of registry names.
    Value(String),
}

/// `publish` in table `[table]` of `manifest`, if set there. A line scan, not a TOML parser:
/// Cargo's own forms of the key are one line each, an array possibly over several.
fn publish_in(manifest: &str, table: &str) -> Option<Publish> {
    let header = format!("[{table}]");
    let mut lines = manifest.lines().map(without_comment);
    lines.by_ref().find(|l| l.trim() == header)?;
    let mut body = lines.take_while(|l| !l.trim_start().starts_with('['));
    while let Some(line) = body.next() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        if key == "publish.workspace" {
            return (value == "true").then_some(Publish::Inherited);
        }
        if key != "publish" {
            continue;
        }
        if value.starts_with('{') {
            let inherited = value.replace(' ', "").contains("workspace=true");
            return inherited.then_some(Publish::Inherited);
        }
        let mut value = value.to_owned();
        // An array over several lines ends at its closing bracket.
        while value.starts_with('[') && !value.contains(']') {
            let Some(more) = body.next() else { break };
            value.push_str(more.trim());
        }
        return Some(Publish::Value(value));
    }
    None
}

/// A line without a trailing `#` comment (a `#` inside a quoted registry name is not one: such
/// names are lowercase words and hyphens).
fn without_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(code, _)| code)
}

/// Whether a `publish` value lets the crate reach crates.io.
fn allows_crates_io(value: &str) -> bool {
    match value {
        "true" => true,
        "false" => false,
        list => list.contains("\"crates-io\"") || list.contains("'crates-io'"),
    }
}

/// The nearest folder above `dir` whose manifest declares `[workspace]`: its manifest.
fn workspace_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().skip(1).find_map(|folder| {
        let manifest = folder.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).ok()?;
        text.lines()
            .any(|l| l.trim() == "[workspace]")
            .then_some(manifest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_is_read_in_each_of_cargos_forms() {
        let read = |manifest: &str| publish_in(manifest, "package");
        assert_eq!(read("[package]\nname = \"a\"\n"), None);
        let value = |v: &str| Some(Publish::Value(v.into()));
        assert_eq!(
            read("[package]\npublish = false # private\n"),
            value("false")
        );
        assert_eq!(
            read("[package]\npublish = [\n  \"crates-io\",\n]\n"),
            value("[\"crates-io\",]")
        );
        assert_eq!(
            read("[package]\npublish.workspace = true\n"),
            Some(Publish::Inherited)
        );
        let inline = "[package]\npublish = { workspace = true }\n";
        assert_eq!(read(inline), Some(Publish::Inherited));
        // A key of another table is not the package's.
        assert_eq!(
            read("[package]\nname = \"a\"\n[features]\npublish = []\n"),
            None
        );
        let workspace = "[workspace]\n[workspace.package]\npublish = false\n";
        assert_eq!(publish_in(workspace, "workspace.package"), value("false"));
    }

    #[test]
    fn only_a_value_naming_crates_io_or_true_reaches_it() {
        assert!(allows_crates_io("true"));
        assert!(allows_crates_io("[\"crates-io\"]"));
        assert!(!allows_crates_io("false"));
        assert!(!allows_crates_io("[]"));
        assert!(!allows_crates_io("[\"my-registry\"]"));
    }
}
