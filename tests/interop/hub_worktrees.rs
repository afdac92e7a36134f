//! Parallel agents in git worktrees as a team sets them up: `init` once in the main checkout,
//! its files committed, `init --hooks` in each worktree; then the official MCP client starts
//! the hub from each worktree's committed `.mcp.json` (`hub_worktrees.py`), and Claude Code's
//! hooks and git's pre-commit hook hold the line between the two.

use std::ffi::OsString;
use std::path::Path;

use super::*;

/// Runs `program ARGS` in `dir` with `env`, which must succeed: its standard output.
async fn run_in(dir: &Path, program: &str, args: &[&str], env: &[(&str, OsString)]) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("HUB_PROJECT_ID")
        .env_remove("HUB_SESSION")
        .env_remove("HUB_DATA_DIR")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .kill_on_drop(true)
        .output()
        .await
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{program} {args:?}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A person's machine: the hub on the PATH, its data under their `home`, git with a name.
fn a_persons_environment(home: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("HOME", home.into()),
        (
            "PATH",
            a2a_tests::path_with(Path::new(HUB).parent().unwrap()),
        ),
        ("A2A_DATA_DIR", home.join(".local/share/a2a-runtime").into()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
        ("GIT_AUTHOR_NAME", "Dev".into()),
        ("GIT_AUTHOR_EMAIL", "dev@example.com".into()),
        ("GIT_COMMITTER_NAME", "Dev".into()),
        ("GIT_COMMITTER_EMAIL", "dev@example.com".into()),
    ]
}

/// The repository `scratch/shop` as a team sets it up: `init` once in the main checkout (every
/// host and git's hook), its files committed, worktrees `shop-a` on `task/a` and `shop-b` on
/// `task/b`, and `init --hooks` in each: the committed files are unchanged by it and the hooks'
/// file stays out of git.
async fn shop_set_up_for_two_agents(scratch: &Path, env: &[(&str, OsString)]) {
    let hub = Path::new(HUB).file_name().unwrap().to_str().unwrap();
    let main = scratch.join("shop");
    std::fs::create_dir_all(main.join("src")).unwrap();
    std::fs::write(main.join("src/lib.rs"), "pub fn shop() {}\n").unwrap();
    run_in(&main, "git", &["init", "-q", "-b", "main"], env).await;
    let init = ["init", "--client", "all", "--git-hooks"];
    let printed = run_in(&main, hub, &init, env).await;
    let committed = [
        ".mcp.json",
        ".cursor/mcp.json",
        ".vscode/mcp.json",
        ".codex/config.toml",
    ];
    for file in committed {
        assert!(
            printed.contains(file),
            "init says to commit {file}: {printed}"
        );
        let text = std::fs::read_to_string(main.join(file)).unwrap();
        let machine = scratch.to_string_lossy();
        assert!(!text.contains(&*machine), "{file}: {text}");
    }
    let add = [&["add", "src"][..], &committed].concat();
    run_in(&main, "git", &add, env).await;
    run_in(&main, "git", &["commit", "-q", "-m", "the hub"], env).await;
    for (branch, folder) in [("task/a", "../shop-a"), ("task/b", "../shop-b")] {
        let add = ["worktree", "add", "-q", "-b", branch, folder];
        run_in(&main, "git", &add, env).await;
    }
    for folder in ["shop-a", "shop-b"] {
        let worktree = scratch.join(folder);
        let printed = run_in(&worktree, hub, &["init", "--hooks"], env).await;
        let unchanged = printed.contains("unchanged") && printed.contains(".mcp.json");
        assert!(unchanged, "{printed}");
        let hooks = std::fs::read_to_string(worktree.join(".claude/settings.local.json")).unwrap();
        assert!(
            !hooks.contains("--session"),
            "each acts as its branch: {hooks}"
        );
        assert!(!hooks.contains(&*scratch.to_string_lossy()), "{hooks}");
        let status = run_in(&worktree, "git", &["status", "--porcelain"], env).await;
        assert_eq!(status, "", "nothing of init's left to commit in {folder}");
    }
}

#[tokio::test]
async fn agents_in_two_worktrees_started_from_the_committed_files_coordinate_at_every_door() {
    require_packages().await;
    let scratch = a2a_tests::scratch_dir();
    let env = a_persons_environment(&scratch.join("home"));
    shop_set_up_for_two_agents(&scratch, &env).await;
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/claude-code");
    let (a, b) = (scratch.join("shop-a"), scratch.join("shop-b"));
    let script = script("hub_worktrees.py");
    let args = [script.as_path(), &a, &b, &fixtures].map(|p| p.to_str().unwrap());
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    run_interpreter_with(&python(), &args, &env).await;
}
