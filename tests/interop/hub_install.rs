//! The coordination hub as a new user gets it: installed with `cargo install` from this
//! checkout, configured with `init --client all` in a repository, started by the official MCP
//! client exactly as the generated `.mcp.json` says (`hub_field.py`).

use std::path::{Path, PathBuf};

use super::*;

/// The target directory the tests were built in: `cargo install` builds there too, so the
/// install reuses this build instead of compiling everything again.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary");
    // target/<profile>/deps/<test binary>
    exe.ancestors()
        .nth(3)
        .expect("a target directory")
        .to_path_buf()
}

/// `cargo install --path examples/coordination-hub --root ROOT`, offline and locked to this
/// checkout's `Cargo.lock`: the installed binary.
async fn install_hub(root: &Path) -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let status = Command::new(env!("CARGO"))
        .args([
            "install",
            "--quiet",
            "--offline",
            "--locked",
            "--debug",
            "--path",
        ])
        .arg(workspace.join("examples").join("coordination-hub"))
        .arg("--root")
        .arg(root)
        .env("CARGO_TARGET_DIR", target_dir())
        .kill_on_drop(true)
        .status();
    let status = tokio::time::timeout(Duration::from_secs(900), status)
        .await
        .expect("cargo install finished in time")
        .expect("cargo runs");
    assert!(status.success(), "cargo install failed");
    root.join("bin").join("coordination-hub")
}

#[tokio::test]
async fn an_installed_hub_configured_by_init_is_started_as_written_by_the_official_client() {
    require_packages().await;
    let scratch = a2a_tests::scratch_dir();
    let hub = install_hub(&scratch.join("installed")).await;
    let version = Command::new(&hub).arg("--version").output().await.unwrap();
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    assert!(version.starts_with("coordination-hub "), "{version}");

    let repository = scratch.join("my-shop");
    std::fs::create_dir_all(repository.join(".git")).unwrap();
    // A person's machine: the installed binary on the PATH, the hub's data under their home.
    let home = scratch.join("home");
    let path = a2a_tests::path_with(hub.parent().unwrap());
    let init = Command::new(&hub)
        .args(["init", "--client", "all", "--hooks"])
        .current_dir(&repository)
        .env_remove("HUB_PROJECT_ID")
        .env_remove("HUB_DATA_DIR")
        .env_remove("XDG_DATA_HOME")
        .env("HOME", &home)
        .env("PATH", &path)
        .output()
        .await
        .unwrap();
    let printed = String::from_utf8_lossy(&init.stdout).into_owned();
    assert!(
        init.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&init.stderr)
    );
    assert!(printed.contains("claude mcp add"), "{printed}");
    assert!(!printed.contains("not on this PATH"), "{printed}");
    // The files a team commits hold nothing of this machine; the hooks are the person's own.
    for file in [
        ".mcp.json",
        ".cursor/mcp.json",
        ".vscode/mcp.json",
        ".codex/config.toml",
    ] {
        let text = std::fs::read_to_string(repository.join(file)).unwrap();
        assert!(text.contains("\"coordination-hub\""), "{file}: {text}");
        assert!(
            !text.contains(&*scratch.to_string_lossy()),
            "{file}: {text}"
        );
        assert!(text.contains("my-shop"), "{file} names the project: {text}");
        assert!(
            printed.contains(file),
            "init says to commit {file}: {printed}"
        );
    }
    assert!(!repository.join(".claude/settings.json").exists());
    let hooks = std::fs::read_to_string(repository.join(".claude/settings.local.json")).unwrap();
    assert!(
        hooks.contains("coordination-hub hook pre-edit --project my-shop"),
        "{hooks}"
    );
    // A second run changes nothing.
    let again = Command::new(&hub)
        .args(["init", "--client", "all", "--hooks"])
        .current_dir(&repository)
        .env_remove("HUB_PROJECT_ID")
        .env("HOME", &home)
        .env("PATH", &path)
        .output()
        .await
        .unwrap();
    let printed = String::from_utf8_lossy(&again.stdout).into_owned();
    assert_eq!(printed.matches("unchanged ").count(), 5, "{printed}");
    let field_script = script("hub_field.py");
    let field = [field_script.to_str().unwrap(), repository.to_str().unwrap()];
    let env = [("HOME", home.as_os_str()), ("PATH", path.as_os_str())];
    run_interpreter_with(&python(), &field, &env).await;
}
