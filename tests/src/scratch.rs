//! Files the tests write: every test process keeps them under one directory of its own,
//! `$TMPDIR/a2a-tests-<pid>`, and the first test process of a later run removes the directories
//! of processes that have ended. A test binary cannot run code at its exit, and its servers and
//! child processes may still hold these files while it runs, so the run after it sweeps instead:
//! what a run leaves is bounded by one run, not by every run since the machine started.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

const PREFIX: &str = "a2a-tests-";

/// A fresh, empty directory for one test's files.
pub fn scratch_dir() -> PathBuf {
    scratch_named("scratch")
}

/// A fresh, empty directory whose name starts with `name` (for reading a failed run's files).
pub fn scratch_named(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = process_root().join(format!("{name}-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// This process's directory, made (after the sweep) on first use.
fn process_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let temp = std::env::temp_dir();
        sweep_ended(&temp);
        let root = temp.join(format!("{PREFIX}{}", std::process::id()));
        std::fs::create_dir_all(&root).expect("the tests' temporary directory");
        root
    })
}

/// Removes the `a2a-tests-<pid>` directories (and the older `a2a-tests-<pid>-<n>`) of processes
/// that no longer run. Where processes cannot be looked up (no `/proc`), nothing is removed.
fn sweep_ended(temp: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            // Another run's sweep may be removing it too: either removal is enough.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The process id in a directory name this module writes.
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    rest.split('-').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::owner_pid;

    #[test]
    fn owner_pids_are_read_from_both_layouts_and_nothing_else() {
        assert_eq!(owner_pid("a2a-tests-4242"), Some(4242));
        assert_eq!(owner_pid("a2a-tests-4242-7"), Some(4242));
        assert_eq!(owner_pid("a2a-tests-x"), None);
        assert_eq!(owner_pid("a2a-store-suite-4242"), None);
    }
}
