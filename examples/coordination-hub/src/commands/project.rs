//! Which repository and project a command works in: the repository is the nearest folder up
//! from the current one with a `.git` (a folder, or a file in a worktree), and its folder name
//! is the project unless one is named.

use std::path::{Path, PathBuf};

/// The root of the repository `dir` is in, else `dir` itself.
pub(crate) fn repository_root(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir)
        .to_path_buf()
}

/// The project of the repository at `root`: its folder name, with anything but letters,
/// digits, `.`, `_` and `-` made `-` (a project id's alphabet), at most 128 bytes.
pub(crate) fn default_project(root: &Path) -> String {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut project: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    project.truncate(128);
    if project.is_empty() || project == "." || project == ".." {
        "project".into()
    } else {
        project
    }
}
