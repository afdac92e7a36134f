//! What the documentation tells a new user to install and enable, held against the workspace:
//! every `cargo install` line is `--locked` (so the user builds the dependency set
//! `Cargo.lock` pins and this suite tested), names features its crate has, and every
//! example a configuration starts by command has an install line; the README's features table
//! lists exactly the facade's features.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's root.
fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
}

/// Every file a user reads install lines in: the README, the guides, the examples' sources.
fn documents() -> Vec<PathBuf> {
    let root = workspace();
    let mut files = vec![root.join("README.md")];
    let guides = root.join("a2a-runtime").join("docs");
    files.extend(markdown_in(&guides));
    for example in read_dir(&root.join("examples")) {
        files.extend(
            read_dir(&example.join("src"))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "rs" || e == "md")),
        );
    }
    files
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    paths
}

fn markdown_in(dir: &Path) -> Vec<PathBuf> {
    read_dir(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect()
}

/// The text of `path`, with doc-comment markers dropped and lines joined, so an install line
/// wrapped over two lines of prose or of a doc comment reads as one.
fn joined_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable document");
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let prose = trimmed
                .strip_prefix("//!")
                .or_else(|| trimmed.strip_prefix("///"));
            prose.unwrap_or(trimmed).trim()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each `cargo install …` command in `text`: from `cargo install` to the first character that
/// ends a command in prose or markup (a backtick, a closing parenthesis, a quote).
fn install_commands(text: &str) -> Vec<String> {
    text.match_indices("cargo install")
        .map(|(at, _)| {
            let rest = &text[at..];
            let end = rest.find(['`', ')', '"', ';', '#']).unwrap_or(rest.len());
            rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// The features `[features]` of the manifest at `path` declares.
fn features_of(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("a manifest");
    let Some(start) = text.find("\n[features]\n") else {
        return BTreeSet::new();
    };
    let section = &text[start + "\n[features]\n".len()..];
    let section = section.split("\n[").next().unwrap_or_default();
    section
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(' '))
        .filter_map(|l| l.split_once(" = "))
        .map(|(name, _)| name.trim().to_owned())
        .collect()
}

/// `--path X` and `--features A,B` of an install command.
fn path_and_features(command: &str) -> (Option<String>, Vec<String>) {
    let words: Vec<&str> = command.split_whitespace().collect();
    let after = |flag: &str| {
        words
            .iter()
            .position(|w| *w == flag)
            .and_then(|i| words.get(i + 1))
            .map(|w| (*w).to_owned())
    };
    let features = after("--features")
        .map(|f| f.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    (after("--path"), features)
}

#[test]
fn every_documented_cargo_install_is_locked_and_names_features_its_crate_has() {
    let mut seen = Vec::new();
    for document in documents() {
        let text = joined_text(&document);
        for command in install_commands(&text) {
            let at = document.strip_prefix(workspace()).unwrap_or(&document);
            let at = at.display();
            assert!(
                command.split_whitespace().any(|w| w == "--locked"),
                "{at}: `{command}` builds without Cargo.lock (add --locked)"
            );
            let (path, features) = path_and_features(&command);
            let Some(path) = path else {
                panic!("{at}: `{command}` names no --path of this repository");
            };
            let declared = features_of(&workspace().join(&path).join("Cargo.toml"));
            for feature in &features {
                assert!(
                    declared.contains(feature),
                    "{at}: `{command}`: {path} has no feature `{feature}` ({declared:?})"
                );
            }
            seen.push((path, features));
        }
    }
    // The uses that need a feature say so: a team's hub on Postgres, a host signing people in.
    for (path, feature) in [
        ("examples/coordination-hub", "postgres"),
        ("examples/agent-host", "oauth-server"),
    ] {
        assert!(
            seen.iter()
                .any(|(p, f)| p == path && f.iter().any(|f| f == feature)),
            "no install line of {path} with --features {feature}: {seen:?}"
        );
    }
    // The programs the guides install or configure, each with an install line.
    for program in ["a2a-cli", "a2a-bridge", "agent-host", "coordination-hub"] {
        let path = format!("examples/{program}");
        assert!(
            seen.iter().any(|(p, _)| *p == path),
            "no install line of {path}: {seen:?}"
        );
    }
}

#[test]
fn every_program_a_documented_configuration_starts_has_an_install_line() {
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("a readable document");
        let installs: Vec<(Option<String>, Vec<String>)> =
            install_commands(&joined_text(&document))
                .iter()
                .map(|c| path_and_features(c))
                .collect();
        for (at, _) in text.match_indices("\"command\": \"") {
            let rest = &text[at + "\"command\": \"".len()..];
            let program = rest.split('"').next().unwrap_or_default();
            if !workspace().join("examples").join(program).is_dir() {
                continue;
            }
            let path = format!("examples/{program}");
            assert!(
                installs.iter().any(|(p, _)| p.as_deref() == Some(&path)),
                "{}: configures `{program}` without saying how to install it",
                document.display()
            );
        }
    }
}

#[test]
fn the_readmes_features_table_lists_every_feature_of_the_crate() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("the README");
    let table: BTreeSet<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`'))
        .map(|(name, _)| name.to_owned())
        .collect();
    let mut declared = features_of(&workspace().join("a2a-runtime").join("Cargo.toml"));
    declared.remove("default");
    assert_eq!(
        table, declared,
        "README's features table against a2a-runtime's [features]"
    );
}
