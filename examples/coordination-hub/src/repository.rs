//! Which repository, project and session a hub process or command works in, read from git's
//! own files (no `git` binary): the checkout is the nearest folder up from the current one with
//! a `.git` — a folder in a main checkout, a `gitdir:` file in a linked worktree or a
//! submodule. Every worktree of one repository shares the repository's *common* git directory,
//! so the project is named after that, not after the worktree's folder: agents in `shop`,
//! `shop-task-2` and `shop-task-3` coordinate in one project `shop`. A session started in a
//! worktree is named after its branch (else the worktree's folder).
//!
//! The order, for the MCP server and every command alike: `--project` (or `HUB_PROJECT_ID`),
//! else the repository's name; `--session` (or `HUB_SESSION`), else the worktree's branch, else
//! its folder.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The most of a `.git` file, `commondir` or `HEAD` read: each holds one line.
const MAX_POINTER: u64 = 4096;

/// A checkout: the main one or a linked worktree of a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The folder holding `.git`: where the checkout's files are.
    pub root: PathBuf,
    /// The checkout's own git directory (`.git`, or `.git/worktrees/NAME` for a worktree).
    pub git_dir: PathBuf,
    /// The repository's git directory, which all its worktrees share.
    pub common_dir: PathBuf,
}

impl Checkout {
    /// The checkout `dir` is in, if any: the nearest folder up with a `.git` whose git
    /// directory can be read. A `.git` file that names no readable directory is skipped, as
    /// git skips it.
    pub fn find(dir: &Path) -> Option<Checkout> {
        dir.ancestors().find_map(Self::at)
    }

    /// The checkout whose files are in `root`, if `root/.git` is one.
    fn at(root: &Path) -> Option<Checkout> {
        let dot_git = root.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else {
            let pointer = read_line(&dot_git)?;
            let named = pointer.strip_prefix("gitdir:")?.trim();
            let git_dir = root.join(named);
            if !git_dir.is_dir() {
                return None;
            }
            git_dir
        };
        // A linked worktree's git directory names the common one in `commondir` (relative to
        // itself); a main checkout's and a submodule's is its own.
        let common_dir = match read_line(&git_dir.join("commondir")) {
            Some(common) => git_dir.join(common.trim()),
            None => git_dir.clone(),
        };
        Some(Checkout {
            root: root.to_path_buf(),
            common_dir: tidy(&common_dir),
            git_dir: tidy(&git_dir),
        })
    }

    /// The project of this checkout's repository: the folder of its common git directory (the
    /// main checkout's folder, `shop` for `shop/.git`; a bare repository's name without
    /// `.git`, `shop` for `shop.git`), in a project id's alphabet.
    pub fn project(&self) -> String {
        let name = |path: &Path| path.file_name().map(|n| n.to_string_lossy().into_owned());
        let repository = match name(&self.common_dir) {
            Some(folder) if folder == ".git" => self.common_dir.parent().and_then(name),
            Some(folder) => Some(folder.strip_suffix(".git").unwrap_or(&folder).to_owned()),
            None => None,
        };
        identifier(&repository.unwrap_or_default(), "project")
    }

    /// The branch checked out here, if `HEAD` names one (not a detached `HEAD`).
    pub fn branch(&self) -> Option<String> {
        let head = read_line(&self.git_dir.join("HEAD"))?;
        let branch = head
            .strip_prefix("ref:")?
            .trim()
            .strip_prefix("refs/heads/")?;
        (!branch.is_empty()).then(|| branch.to_owned())
    }

    /// The default session name of an agent working here: the branch (`feature/login` as
    /// `feature-login`), else the checkout's folder, in a session name's alphabet.
    pub fn session(&self) -> String {
        let folder = || {
            self.root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        identifier(&self.branch().unwrap_or_else(folder), "agent")
    }
}

/// The repository root `dir` is in (the checkout's folder), else `dir` itself.
pub(crate) fn repository_root(dir: &Path) -> PathBuf {
    Checkout::find(dir).map_or_else(|| dir.to_path_buf(), |checkout| checkout.root)
}

/// The project of the repository `dir` is in, else of the folder `dir` itself.
pub(crate) fn default_project(dir: &Path) -> String {
    match Checkout::find(dir) {
        Some(checkout) => checkout.project(),
        None => identifier(
            &dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            "project",
        ),
    }
}

/// The session of an agent working in `dir` that named none: its worktree's (`agent` outside
/// any repository).
pub(crate) fn default_session(dir: &Path) -> String {
    Checkout::find(dir).map_or_else(|| "agent".into(), |checkout| checkout.session())
}

/// `name` in the alphabet of project ids and session names (letters, digits, `.`, `_`, `-`;
/// anything else made `-`), at most 128 bytes; `fallback` for a name with nothing left.
fn identifier(name: &str, fallback: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    id.truncate(128);
    if id.is_empty() || id == "." || id == ".." {
        fallback.into()
    } else {
        id
    }
}

/// The first line of a small file, if it is one.
fn read_line(path: &Path) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_POINTER)
        .read_to_string(&mut text)
        .ok()?;
    Some(text.lines().next().unwrap_or_default().to_owned())
}

/// `path` without `.` and `..` segments where the file system can say (a `gitdir:` pointer is
/// often relative, `../shop/.git/worktrees/task-2`), else as it is.
fn tidy(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
