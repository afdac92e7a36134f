//! `a2a manifest`: a server's discovery documents written into a folder at the paths it serves
//! them at, from the running server or from its binary's `--print-manifests`.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use a2a_runtime::client::{ClientError, Manifest, fetch_manifests};
use serde_json::Value;

/// How long an agent's binary may take to print its documents.
const PRINT_TIMEOUT: Duration = Duration::from_secs(60);

/// Where the documents come from.
pub(crate) enum Source<'a> {
    /// A running server.
    Url(&'a str),
    /// An agent's binary with its flags.
    Binary(&'a Path, &'a [String]),
}

/// Writes the documents of `source` under `out`; the files written. Only discovery documents
/// are written (a catalog may name any path: the server chooses them), and no existing file is
/// replaced unless `force`; every path is checked before anything is written.
pub(crate) async fn write(
    source: Source<'_>,
    out: &Path,
    timeout: Duration,
    force: bool,
) -> Result<Vec<PathBuf>, String> {
    let documents = match source {
        Source::Url(url) => fetch_manifests(url, timeout)
            .await
            .map_err(|e: ClientError| e.to_string())?
            .into_iter()
            .map(|m: Manifest| (m.path, m.text))
            .collect(),
        Source::Binary(binary, flags) => printed(binary, flags).await?,
    };
    let mut planned = Vec::new();
    for (path, text) in documents {
        let relative = relative(&path)?;
        let file = out.join(&relative);
        check_target(out, &relative, force)?;
        planned.push((file, text));
    }
    let mut written = Vec::new();
    for (file, text) in planned {
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        write_file(&file, &text, force)?;
        written.push(file);
    }
    Ok(written)
}

/// Refuses to write `relative` below `out` through a symbolic link (it could lead anywhere), or
/// over an existing file unless `force`.
fn check_target(out: &Path, relative: &Path, force: bool) -> Result<(), String> {
    let mut at = out.to_path_buf();
    for part in relative.components() {
        at.push(part);
        let Ok(meta) = std::fs::symlink_metadata(&at) else {
            return Ok(());
        };
        if meta.file_type().is_symlink() {
            return Err(format!(
                "refusing to write through {}: it is a symbolic link",
                at.display()
            ));
        }
    }
    if !force {
        return Err(format!(
            "refusing to replace {}: it exists (--force replaces the documents)",
            at.display()
        ));
    }
    Ok(())
}

/// Writes `text` to `file`, which must not exist unless `force` (checked again as it is
/// created, so a file appearing meanwhile is not replaced either).
fn write_file(file: &Path, text: &str, force: bool) -> Result<(), String> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let failed = |e: std::io::Error| format!("cannot write {}: {e}", file.display());
    let mut handle = options.open(file).map_err(failed)?;
    handle.write_all(text.as_bytes()).map_err(failed)
}

/// What `binary --print-manifests FLAGS` prints: path → text.
async fn printed(binary: &Path, flags: &[String]) -> Result<Vec<(String, String)>, String> {
    let run = tokio::process::Command::new(binary)
        .arg("--print-manifests")
        .args(flags)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(PRINT_TIMEOUT, run)
        .await
        .map_err(|_| format!("{} printed nothing in {PRINT_TIMEOUT:?}", binary.display()))?
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} --print-manifests failed: {}",
            binary.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let printed: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "{} printed no manifests ({e}); is it an a2a-runtime agent?",
            binary.display()
        )
    })?;
    let files = printed
        .get("files")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{} printed no `files`", binary.display()))?;
    Ok(files
        .iter()
        .filter_map(|(path, text)| Some((path.clone(), text.as_str()?.to_owned())))
        .collect())
}

/// A served path as a path below the output folder: a discovery document's path (below the
/// agent's own path, if any), never above the folder, nothing else.
fn relative(path: &str) -> Result<PathBuf, String> {
    let relative = PathBuf::from(path.trim_start_matches('/'));
    let plain = relative
        .components()
        .all(|part| matches!(part, Component::Normal(_)));
    if !plain || relative.as_os_str().is_empty() {
        return Err(format!(
            "refusing to write `{path}`: not a plain path below the folder"
        ));
    }
    if !is_discovery_path(path) {
        return Err(format!(
            "refusing to write `{path}`: not a discovery document's path (the agent card, \
             the AI and MCP catalogs, the skills index and SKILL.md files, MCP server cards \
             and server.json)"
        ));
    }
    Ok(relative)
}

/// Whether `path` ends in a discovery document's own path, below plain folders (an agent's
/// path on a host: `/currency/mcp/server.json`).
fn is_discovery_path(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let name = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
    };
    let tail = match segments.as_slice() {
        [.., ".well-known", "agent-card.json" | "ai-catalog.json"] => 2,
        [.., ".well-known", "mcp", "catalog.json"] => 3,
        [.., ".well-known", "agent-skills", "index.json"] => 3,
        [.., ".well-known", "agent-skills", skill, "SKILL.md"] if name(skill) => 4,
        [.., "mcp", "server-card" | "server.json"] => 2,
        _ => return false,
    };
    let prefix = &segments[..segments.len() - tail];
    prefix.iter().all(|segment| name(segment))
}

/// The line a crate's README carries for the MCP Registry to accept `server.json` under its
/// name, for each registry entry written.
pub(crate) fn registry_lines(written: &[PathBuf]) -> Vec<String> {
    written
        .iter()
        .filter(|file| file.file_name().is_some_and(|name| name == "server.json"))
        .filter_map(|file| {
            let entry: Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
            let name = entry.get("name")?.as_str()?;
            Some(format!("mcp-name: {name}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_paths_stay_below_the_folder() {
        assert_eq!(
            relative("/mcp/server-card").unwrap(),
            PathBuf::from("mcp/server-card")
        );
        for bad in ["/../etc/passwd", "/a/../../b", "/", ""] {
            assert!(relative(bad).is_err(), "{bad}");
        }
        for good in [
            "/.well-known/agent-card.json",
            "/currency/.well-known/agent-skills/currency-agent/SKILL.md",
            "/agents/fx/mcp/server.json",
        ] {
            assert!(relative(good).is_ok(), "{good}");
        }
        for hostile in [
            "/.git/hooks/pre-commit",
            "/README.md",
            "/src/main.rs",
            "/.git/mcp/server.json",
            "/.well-known/agent-skills/../x/SKILL.md",
            "/.well-known/agent-skills/.hidden/SKILL.md",
        ] {
            assert!(relative(hostile).is_err(), "{hostile}");
        }
    }
}
