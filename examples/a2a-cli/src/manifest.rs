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

/// Writes the documents of `source` under `out`; the files written.
pub(crate) async fn write(
    source: Source<'_>,
    out: &Path,
    timeout: Duration,
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
    let mut written = Vec::new();
    for (path, text) in documents {
        let file = out.join(relative(&path)?);
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        written.push(file);
    }
    Ok(written)
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

/// A served path as a path below the output folder: never above it.
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
    Ok(relative)
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
    }
}
