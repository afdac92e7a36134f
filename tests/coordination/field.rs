//! The hub as coding agents live with it: registrations kept alive by their calls and the loss
//! reported after a lapse, Claude Code's pre-edit hook fed the JSON Claude Code sends, and the
//! overseer's `status` and page (in Chromium, `tests/browser/hub.mjs`).

use std::path::Path;

use futures::StreamExt as _;

use super::*;

/// The scratch git repository `name` (a `.git` folder is all `init` and the hooks look for).
fn repository(name: &str) -> std::path::PathBuf {
    let root = a2a_tests::scratch_dir().join(name);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    root
}

/// Runs `coordination-hub ARGS` in `dir` with `stdin`: its exit code, stdout and stderr.
async fn command(dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut command = tokio::process::Command::new(HUB);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("HUB_PROJECT_ID");
    let output = a2a_tests::run_with_input(command, stdin).await;
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// What Claude Code sends a `PreToolUse` hook for an `Edit` of `file` in `repository`.
fn pre_tool_use(repository: &Path, file: &str) -> String {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("claude-code")
        .join("pre-tool-use-edit.json");
    let text = std::fs::read_to_string(fixture).unwrap();
    text.replace(
        "REPOSITORY/FILE",
        &format!("{}/{file}", repository.display()),
    )
    .replace("REPOSITORY", &repository.display().to_string())
}

#[tokio::test]
async fn the_pre_edit_hook_blocks_a_file_another_agent_holds_and_lets_a_free_one_through() {
    let data = a2a_tests::scratch_dir();
    let data = data.to_str().unwrap();
    let (_hub, base) = start(&["--data-dir", data]).await;
    let hub = mcp(&base).await;
    let repo = repository("shop");
    register(&hub, "shop", "ann").await;
    register(&hub, "shop", "bob").await;
    reserve(&hub, "shop", "ann", "src/**", None).await.unwrap();

    let as_bob = ["hook", "pre-edit", "--session", "bob", "--data-dir", data];
    let (code, _, stderr) = command(&repo, &as_bob, &pre_tool_use(&repo, "src/lib.rs")).await;
    assert_eq!(code, 2, "a reserved file is blocked: {stderr}");
    assert!(
        stderr.contains("ann") && stderr.contains("src/**"),
        "{stderr}"
    );
    assert!(
        stderr.contains("query_agent"),
        "the model is told what to do: {stderr}"
    );

    let (code, _, stderr) = command(&repo, &as_bob, &pre_tool_use(&repo, "docs/guide.md")).await;
    assert_eq!(code, 0, "a free file goes through: {stderr}");
    let overview = hub.project_overview(Some(s("shop"))).await.unwrap();
    let bob = overview
        .agents
        .iter()
        .find(|a| a.session_name == "bob")
        .unwrap();
    assert_eq!(
        bob.reservations[0].file_path, "docs/guide.md",
        "and is reserved for bob"
    );

    // The same through an HTTP hub's MCP endpoint.
    let url = format!("{}/mcp", base.trim_end_matches('/'));
    let over_http = ["hook", "pre-edit", "--session", "bob", "--hub", &url];
    let (code, _, stderr) = command(&repo, &over_http, &pre_tool_use(&repo, "src/a.rs")).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ann"), "{stderr}");

    // An agent that never registered is told to, before it edits anything.
    let as_carl = ["hook", "pre-edit", "--session", "carl", "--data-dir", data];
    let (code, _, stderr) = command(&repo, &as_carl, &pre_tool_use(&repo, "README.md")).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("register_agent"), "{stderr}");

    // A file outside the repository is none of the hub's business.
    let outside = pre_tool_use(&repo, "../elsewhere.txt");
    let (code, _, stderr) = command(&repo, &as_carl, &outside).await;
    assert_eq!(code, 0, "{stderr}");

    // A broken hook never blocks: its input is not JSON.
    let (code, _, stderr) = command(&repo, &as_bob, "not json").await;
    assert_eq!(code, 1, "{stderr}");
}

#[tokio::test]
async fn the_hook_and_check_file_take_file_names_literally_never_as_globs() {
    let data = a2a_tests::scratch_dir();
    let data = data.to_str().unwrap();
    let (_hub, base) = start(&["--data-dir", data]).await;
    let hub = mcp(&base).await;
    let repo = repository("web");
    for session in ["ann", "bob", "carl"] {
        register(&hub, "web", session).await;
    }
    // `[[]` is the documented escape for a literal `[`: ann holds `app/[id]/page.tsx`.
    reserve(&hub, "web", "ann", "app/[[]id]/page.tsx", None)
        .await
        .unwrap();
    let as_bob = ["hook", "pre-edit", "--session", "bob", "--data-dir", data];
    let literal = pre_tool_use(&repo, "app/[id]/page.tsx");
    let (code, _, stderr) = command(&repo, &as_bob, &literal).await;
    assert_eq!(code, 2, "the file ann holds is blocked: {stderr}");
    assert!(stderr.contains("ann"), "{stderr}");
    let checked = hub
        .check_file(Some(s("web")), s("bob"), s("app/[id]/page.tsx"))
        .await
        .unwrap_err();
    failure(checked, "conflict");
    // Once ann lets go, bob's hook holds that one file, which is not `app/i/page.tsx`.
    hub.release_file_lock(Some(s("web")), s("ann"), s("app/[[]id]/page.tsx"))
        .await
        .unwrap();
    let (code, _, stderr) = command(&repo, &as_bob, &literal).await;
    assert_eq!(code, 0, "{stderr}");
    let free = hub
        .check_file(Some(s("web")), s("carl"), s("app/i/page.tsx"))
        .await
        .unwrap();
    assert_eq!(free.status, "free");
    reserve(&hub, "web", "carl", "app/i/page.tsx", None)
        .await
        .unwrap();
    let held = hub
        .check_file(Some(s("web")), s("carl"), s("app/[id]/page.tsx"))
        .await
        .unwrap_err();
    failure(held, "conflict");
}

#[tokio::test]
async fn the_hook_acts_as_its_agent_on_a_hub_that_asks_who_calls() {
    const ANN: &str = "ann-key-0123456789abcdef";
    const BOB: &str = "bob-key-0123456789abcdef";
    let keys = format!("ann={ANN},bob={BOB}");
    let (_hub, base) = start(&["--api-keys", &keys]).await;
    let (ann, bob) = (with_key(&base, ANN).await, with_key(&base, BOB).await);
    register(&ann, "shop", "ann").await;
    register(&bob, "shop", "bob").await;
    reserve(&ann, "shop", "ann", "src/**", None).await.unwrap();
    let repo = repository("shop");
    let url = format!("{}/mcp", base.trim_end_matches('/'));
    let as_bob = ["hook", "pre-edit", "--session", "bob", "--hub", &url];

    // With bob's own key: ann's file is blocked, a free one reserved for him.
    let with_bobs_key = [&as_bob[..], &["--api-key", BOB]].concat();
    let (code, _, stderr) = command(&repo, &with_bobs_key, &pre_tool_use(&repo, "src/a.rs")).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("reserved by ann"), "{stderr}");
    let (code, _, stderr) = command(&repo, &with_bobs_key, &pre_tool_use(&repo, "docs/x.md")).await;
    assert_eq!(code, 0, "{stderr}");
    let checked = bob
        .check_file(Some(s("shop")), s("bob"), s("docs/x.md"))
        .await
        .unwrap();
    assert_eq!(checked.reservation.unwrap().session, "bob");

    // Without a key, or with another agent's, the hook fails itself (exit 1, which never
    // blocks) and says why.
    let (code, _, stderr) = command(&repo, &as_bob, &pre_tool_use(&repo, "docs/y.md")).await;
    assert_eq!(code, 1, "{stderr}");
    let with_anns_key = [&as_bob[..], &["--api-key", ANN]].concat();
    let (code, _, stderr) = command(&repo, &with_anns_key, &pre_tool_use(&repo, "docs/y.md")).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("bob"),
        "the refusal names the session: {stderr}"
    );
}

#[tokio::test]
async fn status_prints_every_agent_with_what_it_holds() {
    let (_hub, base) = start(&[]).await;
    let hub = mcp(&base).await;
    for (agent, path) in [
        ("ann", "src/api/**"),
        ("bob", "web/app.ts"),
        ("carl", "docs/*.md"),
    ] {
        register(&hub, "shop", agent).await;
        reserve(&hub, "shop", agent, path, None).await.unwrap();
    }
    hub.add_todo(Some(s("shop")), s("bob"), s("wire the form"), 1)
        .await
        .unwrap();
    let url = format!("{}/mcp", base.trim_end_matches('/'));
    let repo = repository("shop");
    let (code, stdout, stderr) = command(&repo, &["status", "--hub", &url], "").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("3 active agent(s)"), "{stdout}");
    for expected in [
        "ann",
        "src/api/**",
        "bob",
        "web/app.ts",
        "carl",
        "docs/*.md",
        "wire the form",
    ] {
        assert!(stdout.contains(expected), "{expected} in {stdout}");
    }
}

#[tokio::test]
async fn a_busy_sessions_calls_all_succeed_while_their_registrations_come_due() {
    // Every call renews its session once a tenth of the TTL has passed: with a 5 s TTL, calls
    // pipelined for a few seconds meet many renewals, each due for hundreds of calls at once.
    // One caller sending hundreds at once: its limits raised, as a busy team's hub would.
    let limits = [
        "--tasks-per-second-per-caller",
        "100000",
        "--task-burst-per-caller",
        "100000",
        "--max-running-per-caller",
        "10000",
        "--max-connections-per-peer",
        "1000",
        "--max-connections",
        "1000",
    ];
    let (_hub, base) = start(&[&["--heartbeat-ttl", "5s"][..], &limits].concat()).await;
    let sessions = ["ann", "bob", "cat"];
    let mut clients = Vec::new();
    for session in sessions {
        let hub = mcp(&base).await;
        register(&hub, "busy", session).await;
        clients.push((hub, session));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pipelined = clients.iter().map(|(hub, session)| {
        let calls = (0..300).map(move |n| async move {
            hub.add_todo(Some(s("busy")), s(session), format!("todo {n}"), 1)
                .await
        });
        futures::stream::iter(calls)
            .buffer_unordered(32)
            .collect::<Vec<_>>()
    });
    let answers: Vec<_> = futures::future::join_all(pipelined)
        .await
        .into_iter()
        .flatten()
        .collect();
    let failed: Vec<String> = answers
        .into_iter()
        .filter_map(|answer| answer.err().map(|e| e.to_string()))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of 900 calls failed, e.g. {:?}",
        failed.len(),
        failed.first()
    );
}

#[tokio::test]
async fn every_call_keeps_an_agent_registered_and_a_lapsed_one_is_told_what_it_lost() {
    // The field's 120 s TTL and a call every 90 s, scaled down: 4 s and 3 s.
    let (_hub, base) = start(&["--heartbeat-ttl", "4s"]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    register(&hub, "shop", "bob").await;
    reserve(&hub, "shop", "ann", "src/**", None).await.unwrap();
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_secs(3)).await;
        hub.get_my_todos(Some(s("shop")), s("ann")).await.unwrap();
        hub.heartbeat(Some(s("shop")), s("bob")).await.unwrap();
    }
    let agents = hub.list_active_agents(Some(s("shop"))).await.unwrap();
    assert!(
        agents.contains_key("ann"),
        "still registered after 12 s: {agents:?}"
    );
    let held = reserve(&hub, "shop", "bob", "src/main.rs", None).await;
    failure(held.unwrap_err(), "conflict");

    // Silent past the TTL: reaped, and its next call says what it lost.
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_millis(2500)).await;
        hub.heartbeat(Some(s("shop")), s("bob")).await.unwrap();
    }
    reserve(&hub, "shop", "bob", "src/main.rs", None)
        .await
        .unwrap();
    let error = hub
        .check_messages(Some(s("shop")), s("ann"))
        .await
        .unwrap_err();
    let data = failure(error, "not_found");
    assert_eq!(
        data["lost_reservations"][0]["file_path"], "src/**",
        "{data}"
    );
    assert!(data["error"].as_str().unwrap().contains("src/**"), "{data}");
    // Told once: registering again starts afresh.
    let again = hub
        .register_agent(Some(s("shop")), s("ann"), s("t"), s("main"), s("back"))
        .await
        .unwrap();
    assert!(again.lost.is_none(), "{:?}", again.lost);
}

#[tokio::test]
async fn registering_again_after_a_lapse_reports_the_reservations_lost() {
    let (_hub, base) = start(&["--heartbeat-ttl", "1s"]).await;
    let hub = mcp(&base).await;
    register(&hub, "shop", "ann").await;
    reserve(&hub, "shop", "ann", "web/**", None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let again = hub
        .register_agent(Some(s("shop")), s("ann"), s("t"), s("main"), s("back"))
        .await
        .unwrap();
    let lost = again.lost.expect("the loss is reported");
    assert_eq!(lost.reservations[0].file_path, "web/**");
    assert!(again.message.contains("web/**"), "{}", again.message);
    let overview = hub.project_overview(Some(s("shop"))).await.unwrap();
    assert!(
        overview.agents[0].reservations.is_empty(),
        "a lapsed reservation does not come back with its agent: {overview:?}"
    );
}

/// Ann holds a glob and has a todo, bob reads a file, and ann waits for bob's answer to her
/// question (the task returned) until `lead` sees it unanswered.
async fn ann_and_bob_at_work(
    ann: HubClient,
    bob: &HubClient,
    lead: &HubClient,
) -> tokio::task::JoinHandle<Result<coordination_hub::QueryResult, ClientError>> {
    for (client, session) in [(&ann, "ann"), (bob, "bob")] {
        let registered = client
            .register_agent(
                None,
                s(session),
                s("t"),
                s("main"),
                format!("{session}'s work"),
            )
            .await
            .unwrap();
        assert_eq!(registered.project_id, "shop");
    }
    reserve(&ann, "shop", "ann", "src/api/**", None)
        .await
        .unwrap();
    ann.add_todo(None, s("ann"), s("write the tests"), 1)
        .await
        .unwrap();
    let shared = Some(ReservationMode::Shared);
    bob.announce_file_change(
        None,
        s("bob"),
        s("docs/guide.md"),
        s("modify"),
        s("reading"),
        shared,
        None,
    )
    .await
    .unwrap();
    let question = tokio::spawn(async move {
        let asked = ann.query_agent(
            None,
            s("ann"),
            s("bob"),
            s("interface"),
            s("Which fields?"),
            None,
            Some(120),
        );
        asked.await
    });
    for _ in 0..100 {
        let overview = lead.project_overview(None).await.unwrap();
        if overview
            .agents
            .iter()
            .any(|agent| !agent.unanswered.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    question
}

#[tokio::test]
async fn the_hub_page_shows_each_agent_with_what_it_holds_and_refreshes_in_chromium() {
    const ANN: &str = "ann-key-0123456789abcdef";
    const BOB: &str = "bob-key-0123456789abcdef";
    const CARL: &str = "carl-key-0123456789abcdef";
    const LEAD: &str = "lead-key-0123456789abcdef";
    let keys = format!("ann={ANN},bob={BOB},carl={CARL},lead={LEAD}");
    let (_hub, base) = start(&["--api-keys", &keys, "--project", "shop"]).await;
    // The page is static and strict; what it shows comes through the MCP endpoint's checks.
    let page = a2a_tests::get(format!("{base}hub")).await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let policy = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("connect-src 'self'"), "{policy}");
    let Some(browser) = a2a_tests::browser() else {
        return;
    };
    let (ann, bob, carl) = (
        with_key(&base, ANN).await,
        with_key(&base, BOB).await,
        with_key(&base, CARL).await,
    );
    let question = ann_and_bob_at_work(ann, &bob, &with_key(&base, LEAD).await).await;
    // Carl arrives once the page has shown the first two.
    let arrival = a2a_tests::scratch_dir().join("arrived");
    let arrives = async {
        while !arrival.exists() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        register(&carl, "shop", "carl").await;
        reserve(&carl, "shop", "carl", "src/ui/app.ts", None)
            .await
            .unwrap();
    };
    let screenshots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots/hub");
    std::fs::create_dir_all(&screenshots).unwrap();
    let args = [
        base.as_str(),
        screenshots.to_str().unwrap(),
        LEAD,
        arrival.to_str().unwrap(),
    ];
    let (stdout, ()) = tokio::join!(browser.run("hub.mjs", &args), arrives);
    assert!(stdout.contains("hub page ok"), "{stdout}");
    assert!(stdout.contains("accessibility:"), "axe-core ran: {stdout}");
    question.abort();
}

#[tokio::test]
async fn the_hub_page_is_off_where_the_console_is() {
    let (_hub, base) = start(&["--console", "false"]).await;
    let page = a2a_tests::get(format!("{base}hub")).await.unwrap();
    assert_eq!(page.status().as_u16(), 404);
}

#[tokio::test]
async fn a_hook_whose_stdin_is_never_closed_gives_up_and_exits() {
    let repo = repository("open-stdin");
    let data = a2a_tests::scratch_dir();
    let mut hook = tokio::process::Command::new(HUB)
        .args(["hook", "pre-edit", "--session", "ann", "--data-dir"])
        .arg(&data)
        .current_dir(&repo)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Held open, never written: the hook must say it gave up and end (a hang guard, well past
    // its own 10 s wait).
    let _stdin = hook.stdin.take();
    let output = tokio::time::timeout(Duration::from_secs(60), hook.wait_with_output())
        .await
        .expect("the hook exits though its stdin stays open")
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "a broken hook never blocks");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("no input on stdin"), "{said}");
}

/// VS Code's `mcp.json` as people keep it: JSONC, with comments and trailing commas.
const VSCODE_JSONC: &str = r#"{
  // My servers.
  "servers": {
    /* the docs server */
    "docs": { "type": "http", "url": "https://docs.example/mcp", }, // trailing comma
  },
  "inputs": [],
}
"#;

#[tokio::test]
async fn init_adds_the_hub_to_a_vscode_mcp_json_with_comments_keeping_them_and_its_servers() {
    let repo = repository("jsonc");
    let config = repo.join(".vscode").join("mcp.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, VSCODE_JSONC).unwrap();
    let data = a2a_tests::scratch_dir();
    let data = data.to_str().unwrap();
    let mut first = None;
    for force in [false, true] {
        let mut args = vec!["init", "--client", "vscode", "--data-dir", data];
        if force {
            args.push("--force");
        }
        let (code, _, stderr) = command(&repo, &args, "").await;
        assert_eq!(code, 0, "{stderr}");
        let text = std::fs::read_to_string(&config).unwrap();
        for kept in [
            "// My servers.",
            "/* the docs server */",
            "// trailing comma",
            "\"docs\"",
            "https://docs.example/mcp",
            "\"inputs\"",
        ] {
            assert!(text.contains(kept), "--force {force}: {kept} lost:\n{text}");
        }
        // Written once: the second run finds its own entry and leaves the file as it is.
        let first = first.get_or_insert_with(|| text.clone());
        assert_eq!(*first, text, "--force {force}");
        assert_ne!(text, VSCODE_JSONC, "the hub's entry was added");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_file_reached_through_a_linked_folder_is_the_file_it_links_to() {
    let data = a2a_tests::scratch_dir();
    let data = data.to_str().unwrap();
    let (_hub, base) = start(&["--data-dir", data]).await;
    let hub = mcp(&base).await;
    let repo = repository("linked");
    std::fs::create_dir_all(repo.join("src/shared")).unwrap();
    std::os::unix::fs::symlink(repo.join("src/shared"), repo.join("lib")).unwrap();
    register(&hub, "linked", "ann").await;
    register(&hub, "linked", "bob").await;
    reserve(&hub, "linked", "ann", "src/shared/util.rs", None)
        .await
        .unwrap();
    // Bob edits the same file by the folder's other name: the hook holds it to ann's.
    let as_bob = ["hook", "pre-edit", "--session", "bob", "--data-dir", data];
    let other_name = pre_tool_use(&repo, "lib/util.rs");
    let (code, _, stderr) = command(&repo, &as_bob, &other_name).await;
    assert_eq!(code, 2, "the linked name is the same file: {stderr}");
    assert!(stderr.contains("ann"), "{stderr}");
}
