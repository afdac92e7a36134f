//! `--print-manifests`: the documents a binary would serve, printed without serving.

use serde_json::Value;

const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");

#[tokio::test]
async fn print_manifests_prints_the_bytes_the_server_serves() {
    let (_served, base) = a2a_tests::spawn_served(CURRENCY).await;
    let output = tokio::process::Command::new(CURRENCY)
        .args(["--print-manifests", "--public-url", &base])
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = printed["files"].as_object().unwrap();
    for path in [
        "/mcp/server-card",
        "/mcp/server.json",
        "/.well-known/ai-catalog.json",
        "/.well-known/mcp/catalog.json",
        "/.well-known/agent-skills/index.json",
        "/.well-known/agent-skills/currency-agent/SKILL.md",
        "/.well-known/agent-card.json",
    ] {
        let text = files[path]
            .as_str()
            .unwrap_or_else(|| panic!("{path} in {files:?}"));
        let url = format!("{}{}", base.trim_end_matches('/'), path);
        let served = a2a_tests::get(&url).await.unwrap().text().await.unwrap();
        assert_eq!(text, served, "{path}");
    }
    assert_eq!(files.len(), 7, "{:?}", files.keys());
}

#[tokio::test]
async fn a_public_url_with_a_query_or_a_fragment_is_refused_at_startup() {
    for url in [
        "https://agents.example/?tenant=a",
        "https://agents.example/#top",
        "https://user:pw@agents.example/",
    ] {
        for extra in [&["--print-manifests"][..], &["--bind", "127.0.0.1:0"][..]] {
            let output = tokio::process::Command::new(CURRENCY)
                .args(extra)
                .args(["--public-url", url])
                .kill_on_drop(true)
                .output();
            let output = tokio::time::timeout(std::time::Duration::from_secs(60), output)
                .await
                .expect("refused at once, never served")
                .unwrap();
            assert!(!output.status.success(), "{url} {extra:?}");
            let said = String::from_utf8_lossy(&output.stderr);
            assert!(said.contains("public URL") && said.contains(url), "{said}");
        }
    }
}
