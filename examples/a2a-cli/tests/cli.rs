//! The `a2a` binary against a served agent over real sockets. `--json` outputs are compared with
//! the snapshots in `tests/snapshots/` once ids, ports and times are replaced by placeholders;
//! `SNAPSHOTS=overwrite` rewrites them.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::path::PathBuf;
use std::process::Output;

use a2a_tests::lab::Lab;
use a2a_tests::start;
use serde_json::Value;
use tokio::process::Command;

const A2A: &str = env!("CARGO_BIN_EXE_a2a");

#[path = "cli/login.rs"]
mod login;

#[path = "cli/manifest.rs"]
mod manifest;

async fn a2a(args: &[&str]) -> Output {
    a2a_in(&config_dir("none"), args).await
}

/// `a2a ARGS` keeping its sign-ins in `config` (never the user's own).
async fn a2a_in(config: &std::path::Path, args: &[&str]) -> Output {
    Command::new(A2A)
        .args(args)
        .env("A2A_CONFIG_DIR", config)
        .output()
        .await
        .unwrap()
}

/// A configuration directory of this test run's own, named `name`.
fn config_dir(name: &str) -> PathBuf {
    a2a_tests::scratch_named(&format!("cli-{name}"))
}

/// `a2a COMMAND BASE --skill SKILL --data DATA [EXTRA…]`'s standard output.
async fn call(command: &str, base: &str, skill: &str, data: &str, extra: &[&str]) -> String {
    let mut args = vec![command, base, "--skill", skill, "--data", data];
    args.extend_from_slice(extra);
    stdout(&a2a(&args).await)
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "a2a failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// `text` with what changes from run to run replaced: the server's address, UUIDs and RFC 3339
/// times.
fn normalized(text: &str, base: &str) -> String {
    let mut out = text.replace(base.trim_end_matches('/'), "http://AGENT");
    // UUIDs (8-4-4-4-12 hex) and timestamps, without a regex engine.
    let mut result = String::with_capacity(out.len());
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let rest: String = chars[i..chars.len().min(i + 36)].iter().collect();
        let is_uuid = rest.len() == 36
            && rest.char_indices().all(|(k, c)| match k {
                8 | 13 | 18 | 23 => c == '-',
                _ => c.is_ascii_hexdigit(),
            });
        let stamp: String = chars[i..chars.len().min(i + 24)].iter().collect();
        let is_time = stamp.len() == 24
            && stamp.ends_with('Z')
            && stamp.as_bytes()[4] == b'-'
            && stamp.as_bytes()[10] == b'T';
        if is_uuid {
            result.push_str("<ID>");
            i += 36;
        } else if is_time {
            result.push_str("<TIME>");
            i += 24;
        } else {
            result.push(chars[i]);
            i += 1;
        }
    }
    out = result;
    out
}

fn check_snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}; run with SNAPSHOTS=overwrite",
            path.display()
        )
    });
    assert_eq!(actual, expected, "snapshot {name} differs");
}

#[tokio::test]
async fn card_and_validate_print_the_card_and_its_findings() {
    let server = start(Lab.server()).await;
    let card = stdout(&a2a(&["card", &server.base, "--json"]).await);
    let parsed: Value = serde_json::from_str(&card).unwrap();
    assert_eq!(parsed["name"], "Lab");
    let human = stdout(&a2a(&["card", &server.base]).await);
    assert!(human.contains("skill      echo"), "{human}");
    let valid = stdout(&a2a(&["validate", &server.base, "--json"]).await);
    check_snapshot("validate", &valid);
}

#[tokio::test]
async fn send_get_list_and_cancel_print_a2a_json() {
    let server = start(Lab.server()).await;
    let base = &server.base;
    let sent = call("send", base, "echo", r#"{"text":"hi"}"#, &["--json"]).await;
    check_snapshot("send", &normalized(&sent, &server.base));
    let task: Value = serde_json::from_str(&sent).unwrap();
    let id = task["id"].as_str().unwrap();
    let read = stdout(&a2a(&["get", &server.base, id, "--json"]).await);
    assert_eq!(
        normalized(&read, &server.base),
        normalized(&sent, &server.base)
    );
    let listed = stdout(&a2a(&["list", &server.base, "--state", "completed", "--json"]).await);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    let wait = r#"{"millis":30000}"#;
    let working = call("send", base, "wait", wait, &["--no-wait", "--json"]).await;
    let working: Value = serde_json::from_str(&working).unwrap();
    let canceled = stdout(&a2a(&["cancel", &server.base, working["id"].as_str().unwrap()]).await);
    assert!(canceled.contains("Canceled"), "{canceled}");
}

#[tokio::test]
async fn stream_prints_one_json_line_per_event() {
    let server = start(Lab.server()).await;
    let (base, twice) = (&server.base, r#"{"times":2}"#);
    let streamed = call("stream", base, "tick", twice, &["--json"]).await;
    check_snapshot("stream", &normalized(&streamed, &server.base));
    let human = call("stream", base, "tick", twice, &[]).await;
    // Progress as a bar.
    assert!(
        human.contains("status Working [##########..........] 1/2"),
        "{human}"
    );
    assert!(
        human.contains("status Working [####################] 2/2"),
        "{human}"
    );
    assert!(human.trim_end().ends_with("status Completed"), "{human}");
}

#[tokio::test]
async fn errors_are_the_agents_and_exit_nonzero() {
    let server = start(Lab.server()).await;
    let missing = a2a(&["get", &server.base, "no-such-task"]).await;
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("TASK_NOT_FOUND"), "{stderr}");
    let usage = a2a(&["send", &server.base]).await;
    assert_eq!(usage.status.code(), Some(2));
}

#[tokio::test]
async fn over_grpc_the_cli_prints_what_it_prints_over_json_rpc() {
    let server = start(Lab.server()).await;
    let base = &server.base;
    let grpc = ["--json", "--binding", "grpc"];
    let sent = call("send", base, "echo", r#"{"text":"hi"}"#, &grpc).await;
    check_snapshot("send", &normalized(&sent, base));
    let streamed = call("stream", base, "tick", r#"{"times":2}"#, &grpc).await;
    check_snapshot("stream", &normalized(&streamed, base));
    let missing = a2a(&["get", base, "no-such-task", "--binding", "grpc"]).await;
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("TASK_NOT_FOUND"), "{stderr}");
    let unknown = a2a(&["card", base, "--binding", "soap"]).await;
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(stderr.contains("`soap` is not a binding"), "{stderr}");
}

#[tokio::test]
async fn a_silent_stream_and_a_huge_answer_end_in_errors_within_the_timeout() {
    let base = a2a_tests::hostile::start().await;
    let guard = std::time::Duration::from_secs(30);
    let args = ["stream", &base, "--data", "{}", "--timeout", "1s"];
    let silent = tokio::time::timeout(guard, a2a(&args)).await.unwrap();
    assert!(!silent.status.success());
    let stderr = String::from_utf8_lossy(&silent.stderr);
    assert!(stderr.contains("sent nothing for 1s"), "{stderr}");
    let huge = tokio::time::timeout(guard, a2a(&["send", &base, "--data", "{}"])).await;
    let huge = huge.unwrap();
    assert!(!huge.status.success());
    let stderr = String::from_utf8_lossy(&huge.stderr);
    assert!(stderr.contains("the most this client reads"), "{stderr}");
}

/// `a2a ARGS…` with `input` on its standard input (not a terminal).
async fn a2a_with_input(args: &[&str], input: &str) -> Output {
    use tokio::io::AsyncWriteExt as _;
    let mut child = Command::new(A2A)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    child.wait_with_output().await.unwrap()
}

#[tokio::test]
async fn interactive_send_and_stream_answer_the_question_and_finish_the_task() {
    let server = start(Lab.server()).await;
    for command in ["send", "stream"] {
        let args = [
            command,
            &server.base,
            "--skill",
            "nap",
            "--data",
            "{}",
            "-i",
        ];
        let output = a2a_with_input(&args, "5\n").await;
        let printed = stdout(&output);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("? How long should I nap, in milliseconds?"),
            "{command}: {stderr}"
        );
        assert!(printed.contains("InputRequired"), "{command}: {printed}");
        assert!(printed.contains("Completed"), "{command}: {printed}");
    }
}

#[tokio::test]
async fn without_a_terminal_or_interactive_a_question_leaves_the_task_waiting() {
    let server = start(Lab.server()).await;
    let args = ["send", &server.base, "--skill", "nap", "--data", "{}"];
    let output = a2a_with_input(&args, "5\n").await;
    let printed = stdout(&output);
    assert!(printed.contains("InputRequired"), "{printed}");
    assert!(!printed.contains("Completed"), "{printed}");
    assert!(output.stderr.is_empty(), "no prompt");
    // An empty answer stops too, and says the task still waits.
    let output = a2a_with_input(&[&args[..], &["-i"]].concat(), "\n").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("still waits"), "{stderr}");
}

/// `a2a usage BASE --mine --json` with `token`: the usage lines printed.
async fn own_usage(base: &str, token: &str) -> Vec<Value> {
    let printed = stdout(&a2a(&["usage", base, "--mine", "--json", "--token", token]).await);
    let report: Value = serde_json::from_str(&printed).unwrap();
    report["usage"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn usage_prints_a_servers_calls_by_skill_for_an_admin() {
    use a2a_tests::tokens::{SECRET, claims, hs256};
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.observe.usage = true;
    let server = start(
        a2a_tests::library::Library
            .server()
            .jwt(a2a_runtime::auth::JwtConfig::hs256(SECRET))
            .config(config),
    )
    .await;
    let reader = hs256(&claims("ann", "library:members:read"));
    let searched = call(
        "send",
        &server.base,
        "search",
        r#"{"query":"dune"}"#,
        &["--token", &reader],
    )
    .await;
    assert!(searched.contains("Completed"), "{searched}");
    let admin = hs256(&claims("root", "a2a:admin"));
    let mut counted = Value::Null;
    // Rows are written within a second; a hang guard of 10 s.
    for _ in 0..100 {
        let out = stdout(
            &a2a(&[
                "usage",
                &server.base,
                "--by",
                "skill",
                "--json",
                "--token",
                &admin,
            ])
            .await,
        );
        counted = serde_json::from_str(&out).unwrap();
        if counted["usage"]
            .as_array()
            .is_some_and(|lines| !lines.is_empty())
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(counted["by"], "skill", "{counted}");
    assert_eq!(counted["usage"][0]["skill"], "search", "{counted}");
    assert_eq!(counted["usage"][0]["calls"], 1, "{counted}");
    let table = stdout(&a2a(&["usage", &server.base, "--by", "skill", "--token", &admin]).await);
    assert!(
        table.lines().any(|line| line.starts_with("search ")),
        "{table}"
    );
    // Without the admin scope, a caller reads its own calls.
    assert_eq!(own_usage(&server.base, &reader).await[0]["skill"], "search");
    let admins = own_usage(&server.base, &admin).await;
    assert!(admins.is_empty(), "the admin called nothing: {admins:?}");
    let refused = a2a(&["usage", &server.base, "--token", &reader]).await;
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("403"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn new_writes_the_crate_even_where_cargo_cannot_lock_it_and_says_how() {
    let dir = a2a_tests::scratch_named("cli-new").join("my-agent");
    let written = Command::new(A2A)
        .args(["new", "my-agent", "--dir", dir.to_str().unwrap()])
        // No cargo to resolve with: the crate is written all the same.
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .await
        .unwrap();
    assert!(written.status.success(), "{written:?}");
    let stderr = String::from_utf8_lossy(&written.stderr);
    assert!(stderr.contains("no Cargo.lock written"), "{stderr}");
    assert!(stderr.contains("--precise 1.1.0"), "{stderr}");
    assert!(dir.join("src/lib.rs").is_file() && !dir.join("Cargo.lock").exists());
    let again = a2a(&[
        "new",
        "my-agent",
        "--dir",
        dir.to_str().unwrap(),
        "--no-lock",
    ])
    .await;
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists and is not empty"));
}

#[tokio::test]
async fn new_refuses_names_whose_crate_could_not_build() {
    let scratch = a2a_tests::scratch_named("cli-new-names");
    for (name, says) in [
        ("a2a-runtime", "depends on"),
        ("a2a_runtime", "depends on"),
        ("skill-error", "`SkillError`"),
        ("test-agent", "`TestAgent`"),
    ] {
        let dir = scratch.join(name);
        let refused = a2a(&["new", name, "--dir", dir.to_str().unwrap(), "--no-lock"]).await;
        assert_eq!(refused.status.code(), Some(2), "{name}: {refused:?}");
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(said.contains(says), "{name}: {said}");
        assert!(!dir.exists(), "{name}: nothing is written");
    }
}
