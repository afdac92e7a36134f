//! `--remotes FILE`: the remotes a host fronts, declared in TOML with the credential the host
//! presents to each (read from a file or the environment), their timeouts and scopes; a file
//! the host cannot use is refused naming the remote and the field.

use super::*;

/// Writes `text` to a `remotes.toml` of its own directory (with `files` beside it); its path.
fn remotes_file(text: &str, files: &[(&str, &str)]) -> String {
    let dir = a2a_tests::scratch_dir();
    for (name, content) in files {
        std::fs::write(dir.join(name), content).unwrap();
    }
    let path = dir.join("remotes.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn a_remotes_file_mounts_remotes_that_see_the_hosts_credential() {
    let (_remote, remote) = a2a_tests::spawn_served_with(
        env!("CARGO_BIN_EXE_interop-currency"),
        &["--api-keys", "host=k3y-for-the-host-0001"],
    )
    .await;
    let file = remotes_file(
        &format!(
            r#"
# The currency agent requires an API key: `fx` presents the host's, `bare` none.
[[remote]]
id = "fx"
agent = "{remote}"
timeout = "10s"
connect_timeout = "5s"
credential = {{ header = "X-API-Key", value_file = "fx.key" }}

[[remote]]
id = "bare"
agent = "{remote}"
"#
        ),
        &[("fx.key", "k3y-for-the-host-0001\n")],
    );
    let (_host, base) = a2a_tests::spawn_served_with(HOST, &["--remotes", &file]).await;
    let host = TestServer::at(base);
    let sent = rpc_at(&host, "fx/", "SendMessage", convert(None)).await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    let refused = rpc_at(&host, "bare/", "SendMessage", convert(None)).await;
    let status = &refused["result"]["task"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{refused}");
    let said = status["message"].to_string();
    assert!(
        said.contains("remote agent `bare`") && said.contains("authentication required"),
        "{said}"
    );
}

/// Starts the example host with `--remotes file`: its exit status and standard error.
fn refused_with(file: &str) -> String {
    let output = std::process::Command::new(HOST)
        .args(["--bind", "127.0.0.1:0", "--remotes", file])
        .env_remove("NO_SUCH_TOKEN_VARIABLE")
        .output()
        .unwrap();
    assert!(!output.status.success(), "a host started with {file}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_remotes_file_the_host_cannot_use_is_refused_naming_the_remote_and_the_field() {
    let misspelled = remotes_file(
        "[[remote]]\nid = \"py\"\nagnet = \"http://127.0.0.1:9/\"\n",
        &[],
    );
    let said = refused_with(&misspelled);
    assert!(
        said.contains("remotes.toml") && said.contains("agnet"),
        "{said}"
    );
    let two = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\nmcp = \"http://127.0.0.1:9/mcp\"\n";
    let said = refused_with(&remotes_file(two, &[]));
    assert!(
        said.contains("remote `py`") && said.contains("exactly one of `agent`"),
        "{said}"
    );
    let unset = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\ncredential = { bearer_env = \"NO_SUCH_TOKEN_VARIABLE\" }\n";
    let said = refused_with(&remotes_file(unset, &[]));
    assert!(
        said.contains("remote `py`") && said.contains("`NO_SUCH_TOKEN_VARIABLE` is not set"),
        "{said}"
    );
    let slow = "[[remote]]\nid = \"py\"\nagent = \"http://127.0.0.1:9/\"\ntimeout = \"soon\"\n";
    let said = refused_with(&remotes_file(slow, &[]));
    assert!(
        said.contains("`timeout`") && said.contains("soon"),
        "{said}"
    );
}
