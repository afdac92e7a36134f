//! `init --git-hooks`: installs git's `pre-commit` hook, which runs `hook pre-commit`, in the
//! hooks folder git uses for this repository (`git rev-parse --git-path hooks`: the common one
//! every worktree shares, or `core.hooksPath`), so one install covers every worktree.

use std::path::{Path, PathBuf};

use super::configs::Written;

/// The line that marks a hook this command wrote (and may replace).
const MARK: &str = "# Installed by coordination-hub init --git-hooks";

/// Writes the `pre-commit` hook running `command` (`PROGRAM hook pre-commit --project P`) for
/// the repository at `root`: where it went and what writing it did. Another hook there is kept
/// unless `force`.
pub(super) fn install(
    root: &Path,
    program: &str,
    command: &str,
    force: bool,
) -> (PathBuf, Result<Written, String>) {
    let hooks = match hooks_folder(root) {
        Ok(hooks) => hooks,
        Err(error) => return (root.join(".git/hooks"), Err(error)),
    };
    let path = hooks.join("pre-commit");
    let written = write(&path, program, command, force);
    (path, written)
}

/// The hook's file at `path`, written unless it already says the same. Without the program
/// (not installed, or not on this PATH) it lets commits through, saying so: a missing program
/// must not stop every commit.
fn write(path: &Path, program: &str, command: &str, force: bool) -> Result<Written, String> {
    let script = format!(
        "#!/bin/sh\n{MARK}: refuses a commit that touches a file another\n# active agent of \
         the project holds. Delete this file to stop it.\n\
         if ! command -v {program} >/dev/null 2>&1; then\n\
         \x20   echo \"{program} is not on the PATH: this commit is not checked\" >&2\n\
         \x20   exit 0\n\
         fi\n\
         exec {command}\n"
    );
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(format!("{} cannot be read: {error}", path.display())),
    };
    if existing.as_deref() == Some(script.as_str()) {
        return Ok(Written::Unchanged);
    }
    if let Some(text) = &existing
        && !text.contains(MARK)
        && !force
    {
        return Err(format!(
            "{} is another pre-commit hook; --force replaces it (or call `{command}` from it)",
            path.display()
        ));
    }
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("{} cannot be made: {e}", folder.display()))?;
    }
    std::fs::write(path, &script).map_err(|e| format!("{}: {e}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(if existing.is_some() {
        Written::Updated
    } else {
        Written::Created
    })
}

/// The folder git runs this repository's hooks from, as git itself says.
fn hooks_folder(root: &Path) -> Result<PathBuf, String> {
    let output = std::process::Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("git cannot be run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git does not know this repository: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let folder = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    Ok(PathBuf::from(folder))
}

/// Keeps `pattern` (`/.claude/settings.local.json`) out of git in every worktree of the
/// repository at `root`, as Claude Code does for the file it creates: a line in the clone's
/// own `info/exclude`, which is never committed. Nothing outside a repository.
pub(super) fn exclude(root: &Path, pattern: &str) -> Result<(), String> {
    let Some(checkout) = crate::repository::Checkout::find(root) else {
        return Ok(());
    };
    let path = checkout.common_dir.join("info").join("exclude");
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(format!("{} cannot be read: {error}", path.display())),
    };
    if existing.lines().any(|line| line.trim() == pattern) {
        return Ok(());
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(pattern);
    text.push('\n');
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("{} cannot be made: {e}", folder.display()))?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}
