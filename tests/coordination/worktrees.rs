//! Parallel agents in git worktrees of one repository, as Claude Code (`isolation: "worktree"`)
//! and orchestrators run them: a real repository made by the `git` binary, hubs and hooks
//! started in each worktree with no project or session named.

use std::path::{Path, PathBuf};

use tokio::io::AsyncWriteExt as _;

use super::*;

/// Runs `git ARGS` in `dir`, which must succeed.
fn git(dir: &Path, args: &[&str]) {
    let output = std::process::Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A repository `shop` on `main` with one commit, and a worktree `shop-task-2` on the new
/// branch `task/2` beside it: both folders.
fn shop_with_a_worktree() -> (PathBuf, PathBuf) {
    let dir = a2a_tests::scratch_dir();
    let main = dir.join("shop");
    std::fs::create_dir_all(main.join("src")).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    std::fs::write(main.join("src/lib.rs"), "pub fn shop() {}\n").unwrap();
    git(&main, &["add", "."]);
    git(&main, &["commit", "-q", "-m", "first"]);
    git(
        &main,
        &["worktree", "add", "-q", "-b", "task/2", "../shop-task-2"],
    );
    (main, dir.join("shop-task-2"))
}

/// A stdio hub started in `dir` as an MCP host starts it there, naming no project.
fn stdio_hub_in(dir: &Path, data: &Path) -> a2a_tests::StdioServer {
    let mut command = tokio::process::Command::new(HUB);
    command
        .args(["--stdio", "--data-dir", data.to_str().unwrap()])
        .current_dir(dir)
        .env_remove("HUB_PROJECT_ID");
    a2a_tests::spawn_stdio_command(command)
}

/// Calls tool `name` with `arguments` over `server`'s stdio (initializing it first when `id`
/// is 2): the tool's structured answer.
async fn call(server: &mut a2a_tests::StdioServer, id: u64, name: &str, arguments: Value) -> Value {
    let mut lines = Vec::new();
    if id == 2 {
        lines.push(
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}}),
        );
        lines.push(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
    lines.push(
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}}),
    );
    for line in lines {
        let line = format!("{line}\n");
        server.stdin.write_all(line.as_bytes()).await.unwrap();
    }
    loop {
        let line = tokio::time::timeout(Duration::from_secs(20), server.stdout.next_line())
            .await
            .expect("the hub answers")
            .unwrap()
            .expect("the hub is running");
        let reply: Value = serde_json::from_str(&line).unwrap();
        if reply["id"] == id {
            let result = &reply["result"];
            assert_ne!(result["isError"], true, "{name}: {reply}");
            return result["structuredContent"].clone();
        }
    }
}

/// What Claude Code sends a `PreToolUse` hook for an `Edit` of `file`, run in `worktree`.
fn edit_in(worktree: &Path, file: &str) -> String {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/claude-code/pre-tool-use-edit.json");
    std::fs::read_to_string(fixture)
        .unwrap()
        .replace("REPOSITORY/FILE", &format!("{}/{file}", worktree.display()))
        .replace("REPOSITORY", &worktree.display().to_string())
}

/// Runs `hook pre-edit` in `dir` on `input`, naming neither project nor session: exit code and
/// stderr.
async fn pre_edit(dir: &Path, data: &Path, input: &str) -> (i32, String) {
    let mut command = tokio::process::Command::new(HUB);
    command
        .args(["hook", "pre-edit", "--data-dir", data.to_str().unwrap()])
        .current_dir(dir)
        .env_remove("HUB_PROJECT_ID")
        .env_remove("HUB_SESSION");
    let output = a2a_tests::run_with_input(command, input).await;
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn agents_in_every_worktree_of_a_repository_share_its_project_and_hooks_act_as_the_branch() {
    let (main, worktree) = shop_with_a_worktree();
    let data = a2a_tests::scratch_dir();
    let registration = |session: &str| {
        serde_json::json!({"session_name": session, "task_id": "t", "branch": session,
                           "description": "works"})
    };
    // Ann's host starts a hub in the main checkout, task/2's host one in the worktree.
    let mut ann_hub = stdio_hub_in(&main, &data);
    call(&mut ann_hub, 2, "register_agent", registration("ann")).await;
    let reserve = serde_json::json!({"session_name": "ann", "file_path": "src/lib.rs",
        "change_type": "modify", "description": "refactor"});
    call(&mut ann_hub, 3, "announce_file_change", reserve).await;
    let mut task_hub = stdio_hub_in(&worktree, &data);
    call(&mut task_hub, 2, "register_agent", registration("task-2")).await;
    let overview = call(&mut task_hub, 3, "project_overview", serde_json::json!({})).await;
    let sessions: Vec<&str> = overview["agents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|agent| agent["session_name"].as_str())
        .collect();
    assert_eq!(overview["project_id"], "shop", "{overview}");
    assert!(
        sessions.contains(&"ann") && sessions.contains(&"task-2"),
        "one project from both worktrees: {overview}"
    );

    // The worktree's hook acts as its branch (`task/2` as `task-2`) in the same project.
    let (code, stderr) = pre_edit(&worktree, &data, &edit_in(&worktree, "src/lib.rs")).await;
    assert_eq!(
        code, 2,
        "ann's file is blocked in the other worktree: {stderr}"
    );
    assert!(stderr.contains("ann"), "{stderr}");
    let (code, stderr) = pre_edit(&worktree, &data, &edit_in(&worktree, "src/new.rs")).await;
    assert_eq!(code, 0, "a free file goes through: {stderr}");
    let overview = call(&mut ann_hub, 4, "project_overview", serde_json::json!({})).await;
    let task = overview["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|agent| agent["session_name"] == "task-2")
        .cloned()
        .unwrap();
    assert_eq!(
        task["reservations"][0]["file_path"], "src/new.rs",
        "and is reserved for task-2, seen from the main checkout: {overview}"
    );
}

/// The `claude mcp add` line `init` prints, pasted into a shell and run by Claude Code's own CLI
/// (from npm, pinned by scripts/test; it only writes `.mcp.json`, offline), writes the entry
/// `init` wrote: the server's name is not swallowed by `--env` (nor, for a team's HTTP hub, by
/// `--header`), quoting survives the shell, the token stays a variable.
#[tokio::test]
async fn the_printed_claude_mcp_add_line_run_by_claude_code_writes_the_entry_init_wrote() {
    let Ok(claude) = std::env::var("A2A_TEST_CLAUDE") else {
        println!("skipped: A2A_TEST_CLAUDE (scripts/test installs Claude Code and sets it)");
        return;
    };
    let scratch = a2a_tests::scratch_dir();
    let data = scratch.join("hub data");
    let stdio = ["--data-dir", data.to_str().unwrap()];
    let team = [
        "--hub",
        "http://127.0.0.1:9/mcp",
        "--token-env",
        "HUB_TOKEN",
    ];
    for (n, flags) in [stdio.as_slice(), team.as_slice()].into_iter().enumerate() {
        let (main, _) = shop_with_a_worktree();
        let args = [&["--client", "claude-code"][..], flags].concat();
        let (code, printed, said) = init_in(&main, &args, &[]).await;
        assert_eq!(code, 0, "{printed}{said}");
        let line = printed
            .lines()
            .map(str::trim)
            .find(|line| line.starts_with("claude mcp add "))
            .unwrap_or_else(|| panic!("init prints the line: {printed}"));
        let by_hand = scratch.join(format!("by-hand-{n}"));
        run_claude(&claude, line, &by_hand, &scratch).await;
        let entry = |dir: &Path| -> Value {
            let text = std::fs::read_to_string(dir.join(".mcp.json")).unwrap();
            serde_json::from_str::<Value>(&text).unwrap()["mcpServers"]["coordination-hub"].clone()
        };
        let (written, by_claude) = (entry(&main), entry(&by_hand));
        // Claude Code adds `"type": "stdio"`, which a stdio entry may leave out.
        for (key, value) in written.as_object().unwrap() {
            assert_eq!(&by_claude[key], value, "{key} of {line}: {by_claude}");
        }
    }
}

/// Runs `line` through a shell as a person would (`claude` on the PATH, in a new folder `dir`).
async fn run_claude(claude: &str, line: &str, dir: &Path, scratch: &Path) {
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    if !bin.join("claude").exists() {
        std::os::unix::fs::symlink(claude, bin.join("claude")).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = tokio::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", scratch.join("home"))
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .kill_on_drop(true)
        .output();
    let ran = tokio::time::timeout(Duration::from_secs(60), ran)
        .await
        .expect("claude mcp add finishes")
        .unwrap();
    let said = String::from_utf8_lossy(&ran.stderr).into_owned();
    assert!(ran.status.success(), "{line}\n{said}");
}

/// Runs `git ARGS` in `dir` with `path` as the `PATH` (where git's hooks find the hub by name):
/// its output, whatever its status.
fn git_with_path(dir: &Path, args: &[&str], path: &std::ffi::OsStr) -> std::process::Output {
    std::process::Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("PATH", path)
        .env_remove("HUB_PROJECT_ID")
        .env_remove("HUB_SESSION")
        .output()
        .expect("git runs")
}

/// git's pre-commit hook, installed once by `init --git-hooks` in the main checkout, refuses a
/// commit in another worktree that touches a file an agent holds — whatever changed it (no
/// edit hook saw this write) — naming the file and its holder, and lets the rest through.
#[tokio::test]
async fn a_commit_touching_a_file_another_agent_holds_is_refused_from_every_worktree() {
    let (main, worktree) = shop_with_a_worktree();
    let data = a2a_tests::scratch_dir();
    // The hook runs the hub by its name, as after `cargo install`: its folder on the PATH.
    let path = a2a_tests::path_with(Path::new(HUB).parent().unwrap());
    let args = ["--client", "claude-code", "--git-hooks", "--data-dir"];
    let args = [&args[..], &[data.to_str().unwrap()]].concat();
    let (code, printed, said) = init_in(&main, &args, &[("PATH", &path)]).await;
    assert_eq!(code, 0, "{printed}{said}");
    assert!(main.join(".git/hooks/pre-commit").exists(), "{printed}");

    let mut ann_hub = stdio_hub_in(&main, &data);
    let registration = serde_json::json!({"session_name": "ann", "task_id": "t",
        "branch": "main", "description": "works"});
    call(&mut ann_hub, 2, "register_agent", registration).await;
    let reserve = serde_json::json!({"session_name": "ann", "file_path": "src/lib.rs",
        "change_type": "modify", "description": "refactor"});
    call(&mut ann_hub, 3, "announce_file_change", reserve).await;

    // In the other worktree, a change no edit hook saw (a shell's, another tool's).
    std::fs::write(worktree.join("src/lib.rs"), "pub fn shop() { todo!() }\n").unwrap();
    git(&worktree, &["add", "src/lib.rs"]);
    let refused = git_with_path(&worktree, &["commit", "-q", "-m", "mine"], &path);
    let said = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(!refused.status.success(), "the commit is refused: {said}");
    assert!(
        said.contains("src/lib.rs") && said.contains("held by ann"),
        "{said}"
    );

    git(&worktree, &["restore", "--staged", "src/lib.rs"]);
    std::fs::write(worktree.join("NOTES.md"), "free\n").unwrap();
    git(&worktree, &["add", "NOTES.md"]);
    let committed = git_with_path(&worktree, &["commit", "-q", "-m", "notes"], &path);
    let said = String::from_utf8_lossy(&committed.stderr).into_owned();
    assert!(committed.status.success(), "a free file commits: {said}");
}

/// Runs `coordination-hub init ARGS` in `dir`: exit code, stdout, stderr.
async fn init_in(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> (i32, String, String) {
    let output = tokio::process::Command::new(HUB)
        .arg("init")
        .args(args)
        .current_dir(dir)
        .env_remove("HUB_PROJECT_ID")
        .env_remove("HUB_SESSION")
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let code = output.status.code().unwrap_or(-1);
    (code, text(&output.stdout), text(&output.stderr))
}

/// `init --hub URL --token-env VAR` writes each host's entry for the team's HTTP hub with the
/// token as that host expands a variable, never the token; its hooks check with that hub as
/// the person whose token the variable holds.
#[tokio::test]
async fn init_for_a_team_hub_writes_each_hosts_http_entry_and_hooks_that_use_its_token() {
    use a2a_tests::tokens::{SECRET, claims, hs256};
    let (_hub, base) = a2a_tests::spawn_served_with(HUB, &["--jwt-secret", SECRET]).await;
    let url = format!("{}/mcp", base.trim_end_matches('/'));
    let (ann_token, task_token) = (hs256(&claims("ann", "")), hs256(&claims("task-2", "")));
    let (main, worktree) = shop_with_a_worktree();
    let args = ["--client", "all", "--hooks", "--hub", &url];
    let args = [&args[..], &["--token-env", "HUB_TOKEN"]].concat();
    let (code, printed, said) = init_in(&main, &args, &[("HUB_TOKEN", ann_token.as_ref())]).await;
    assert_eq!(code, 0, "{printed}{said}");

    let json = |file: &str, key: &str| -> Value {
        let text = std::fs::read_to_string(main.join(file)).unwrap();
        assert!(!text.contains(&ann_token), "{file} holds no token: {text}");
        serde_json::from_str::<Value>(&text).unwrap()[key]["coordination-hub"].clone()
    };
    let bearer =
        |expansion: &str| serde_json::json!({"Authorization": format!("Bearer {expansion}")});
    assert_eq!(
        json(".mcp.json", "mcpServers"),
        serde_json::json!({"type": "http", "url": url, "headers": bearer("${HUB_TOKEN}")})
    );
    assert_eq!(
        json(".cursor/mcp.json", "mcpServers"),
        serde_json::json!({"url": url, "headers": bearer("${env:HUB_TOKEN}")})
    );
    assert_eq!(
        json(".vscode/mcp.json", "servers"),
        serde_json::json!({"type": "http", "url": url, "headers": bearer("${env:HUB_TOKEN}")})
    );
    let codex = std::fs::read_to_string(main.join(".codex/config.toml")).unwrap();
    let entry = format!(
        "[mcp_servers.coordination-hub]\nurl = \"{url}\"\nbearer_token_env_var = \"HUB_TOKEN\"\n"
    );
    assert!(codex.contains(&entry), "{codex}");
    assert!(!codex.contains(&ann_token), "{codex}");

    // ann holds src/lib.rs; the worktree's person (task-2) has the same hooks and their token.
    let ann = a2a_runtime::client::SkillClient::connect_mcp_as(
        url.clone(),
        a2a_runtime::client::McpCredential::Bearer(ann_token.clone()),
    );
    let ann = HubClient::from_skills(ann.await.unwrap());
    register(&ann, "shop", "ann").await;
    reserve(&ann, "shop", "ann", "src/lib.rs", None)
        .await
        .unwrap();
    let (code, _, said) = init_in(&worktree, &args, &[]).await;
    assert_eq!(code, 0, "{said}");
    let settings = std::fs::read_to_string(worktree.join(".claude/settings.local.json")).unwrap();
    let settings: Value = serde_json::from_str(&settings).unwrap();
    let pre_edit = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        // The hub by its name on the PATH: this build's.
        .replacen("hub-under-test", HUB, 1);
    assert!(pre_edit.contains("--token-env HUB_TOKEN"), "{pre_edit}");
    let input = edit_in(&worktree, "src/lib.rs");
    let hook = |token: Option<String>| {
        let mut command = tokio::process::Command::new("sh");
        command.args(["-c", &pre_edit]).current_dir(&worktree);
        command.env_remove("HUB_TOKEN").env_remove("HUB_SESSION");
        if let Some(token) = token {
            command.env("HUB_TOKEN", token);
        }
        a2a_tests::run_with_input(command, &input)
    };
    let blocked = hook(Some(task_token)).await;
    let said = String::from_utf8_lossy(&blocked.stderr);
    assert_eq!(blocked.status.code(), Some(2), "{said}");
    assert!(said.contains("ann"), "{said}");
    let unset = hook(None).await;
    let said = String::from_utf8_lossy(&unset.stderr);
    assert_eq!(
        unset.status.code(),
        Some(1),
        "never blocks on its own failure: {said}"
    );
    assert!(said.contains("HUB_TOKEN is not set"), "{said}");
}

/// A host's file `init` cannot parse is named and left as it was; the others are written.
#[tokio::test]
async fn init_refuses_a_file_it_cannot_parse_by_name_and_writes_the_others() {
    let (main, _) = shop_with_a_worktree();
    std::fs::create_dir_all(main.join(".cursor")).unwrap();
    std::fs::write(main.join(".cursor/mcp.json"), "{ \"mcpServers\": oops }\n").unwrap();
    let (code, printed, said) = init_in(&main, &["--client", "all"], &[]).await;
    assert_ne!(code, 0, "{printed}");
    assert!(
        said.contains(".cursor/mcp.json") && said.contains("--force"),
        "{said}"
    );
    let kept = std::fs::read_to_string(main.join(".cursor/mcp.json")).unwrap();
    assert_eq!(kept, "{ \"mcpServers\": oops }\n");
    for written in [".mcp.json", ".vscode/mcp.json", ".codex/config.toml"] {
        assert!(main.join(written).exists(), "{written}: {printed}");
    }
}

/// The hooks compare paths as the stdio hub of the repository was told to: started with
/// `--paths-case-insensitive`, its reservation of `src/lib.rs` blocks a hook's `src/LIB.rs`
/// (the same file on macOS), though the hook was given no such flag.
#[tokio::test]
async fn the_hooks_apply_the_settings_the_repositorys_stdio_hub_was_started_with() {
    let (main, worktree) = shop_with_a_worktree();
    let data = a2a_tests::scratch_dir();
    let mut command = tokio::process::Command::new(HUB);
    command
        .args(["--stdio", "--paths-case-insensitive", "--data-dir"])
        .arg(&data)
        .current_dir(&main)
        .env_remove("HUB_PROJECT_ID")
        .env_remove("HUB_PATHS_CASE_INSENSITIVE");
    let mut hub = a2a_tests::spawn_stdio_command(command);
    let registration = serde_json::json!({"session_name": "ann", "task_id": "t",
        "branch": "main", "description": "works"});
    call(&mut hub, 2, "register_agent", registration).await;
    let reserve = serde_json::json!({"session_name": "ann", "file_path": "src/lib.rs",
        "change_type": "modify", "description": "refactor"});
    call(&mut hub, 3, "announce_file_change", reserve).await;
    let (code, stderr) = pre_edit(&worktree, &data, &edit_in(&worktree, "src/LIB.rs")).await;
    assert_eq!(code, 2, "one file whatever its case: {stderr}");
    assert!(stderr.contains("ann"), "{stderr}");
}

/// Git's own files, laid out by hand as git leaves them, read with no `git` binary.
mod layouts {
    use std::path::Path;

    use coordination_hub::repository::Checkout;

    fn write_file(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The layout `git worktree add ../shop-task-2 task-2` leaves, by hand.
    #[test]
    fn every_worktree_of_a_repository_is_one_project_and_a_session_per_branch() {
        let dir = a2a_tests::scratch_dir();
        let main = dir.join("shop");
        write_file(&main.join(".git/HEAD"), "ref: refs/heads/main\n");
        let linked = dir.join("shop-task-2");
        let admin = main.join(".git/worktrees/shop-task-2");
        write_file(&admin.join("HEAD"), "ref: refs/heads/feature/login\n");
        write_file(&admin.join("commondir"), "../..\n");
        write_file(
            &linked.join(".git"),
            "gitdir: ../shop/.git/worktrees/shop-task-2\n",
        );
        std::fs::create_dir_all(linked.join("src/app")).unwrap();

        let from_main = Checkout::find(&main).unwrap();
        let from_linked = Checkout::find(&linked.join("src/app")).unwrap();
        assert_eq!(from_main.project(), "shop");
        assert_eq!(from_linked.project(), "shop");
        assert_eq!(from_linked.root, linked);
        assert_eq!(from_linked.common_dir, from_main.common_dir);
        assert_eq!(from_main.session(), "main");
        assert_eq!(from_linked.session(), "feature-login");
        // Detached: the worktree's folder names the session.
        write_file(
            &admin.join("HEAD"),
            "0123456789abcdef0123456789abcdef01234567\n",
        );
        assert_eq!(from_linked.session(), "shop-task-2");
    }

    #[test]
    fn a_bare_repository_names_its_worktrees_project_without_dot_git() {
        let dir = a2a_tests::scratch_dir();
        let bare = dir.join("shop.git");
        let admin = bare.join("worktrees/wt");
        write_file(&admin.join("HEAD"), "ref: refs/heads/fix\n");
        write_file(&admin.join("commondir"), "../..\n");
        write_file(
            &dir.join("wt/.git"),
            &format!("gitdir: {}\n", admin.display()),
        );
        let checkout = Checkout::find(&dir.join("wt")).unwrap();
        assert_eq!(checkout.project(), "shop");
        assert_eq!(checkout.session(), "fix");
    }

    #[test]
    fn a_dot_git_file_naming_no_git_directory_is_no_checkout() {
        let dir = a2a_tests::scratch_dir();
        let folder = dir.join("my notes");
        std::fs::create_dir_all(&folder).unwrap();
        // A `.git` file naming nothing is not a checkout (git skips it too).
        write_file(&folder.join(".git"), "gitdir: /nowhere/at/all\n");
        assert_eq!(Checkout::find(&folder).map(|c| c.root), None);
    }
}

/// Outside a git repository `preflight` refuses, saying why (exit 2, never a report), and an
/// HTTP hub, which was started in no repository, refuses `check_branch` pointing at `preflight`.
#[tokio::test]
async fn preflight_outside_a_repository_and_check_branch_on_an_http_hub_are_refused_clearly() {
    let plain = a2a_tests::scratch_dir();
    let output = tokio::process::Command::new(HUB)
        .args(["preflight", "--data-dir"])
        .arg(a2a_tests::scratch_dir())
        .current_dir(&plain)
        .env_remove("HUB_PROJECT_ID")
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("not in a git repository"), "{said}");
    assert!(output.stdout.is_empty());

    let (_hub, base) = a2a_tests::spawn_served_with(HUB, &[]).await;
    let hub = HubClient::connect_mcp(format!("{}/mcp", base.trim_end_matches('/')))
        .await
        .unwrap();
    register(&hub, "shop", "ann").await;
    let refused = hub
        .check_branch(Some(s("shop")), s("ann"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("coordination-hub preflight"),
        "{refused}"
    );
}
