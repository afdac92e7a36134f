//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `scripts/test`) against `examples/mcp-conformance`, over streamable HTTP, for each protocol
//! revision's required scenarios. A scenario listed in `tests/conformance/expected-failures-*.yml`
//! must fail and any other must pass, so the lists only shrink: a fixed scenario left listed
//! fails the run too. Skipped, saying so, without the suite (`A2A_TEST_NODE`,
//! `A2A_TEST_CONFORMANCE`, which `scripts/test` sets).

use std::path::Path;

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");

async fn required_scenarios_pass(revision: &str) {
    let (Ok(node), Ok(suite)) = (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_CONFORMANCE"),
    ) else {
        assert!(
            std::env::var("CI").is_err(),
            "A2A_TEST_NODE and A2A_TEST_CONFORMANCE must be set under CI (scripts/test installs the suite)"
        );
        eprintln!("skipped the MCP conformance suite ({revision}): run scripts/test to install it");
        return;
    };
    let (_server, base) = a2a_tests::spawn_served_with(SERVER, &["--store", "memory"]).await;
    let url = format!("{base}mcp");
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conformance")
        .join(format!("expected-failures-{revision}.yml"));
    let results = a2a_tests::scratch_dir();
    let run = tokio::process::Command::new(node)
        .arg(suite)
        .args(["server", "--url", &url, "--requirements", revision])
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("-o")
        .arg(&results)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(600), run)
        .await
        .expect("the suite finishes within ten minutes")
        .expect("the suite runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with(['✓', '✗']) || line.contains("Total"))
        .collect();
    println!("MCP conformance {revision}:\n{}", summary.join("\n"));
    assert!(
        output.status.success(),
        "the MCP conformance suite ({revision}) failed against its baseline {}:\n{stdout}\n{}",
        baseline.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn the_2025_11_25_required_scenarios_pass_but_the_listed_ones() {
    required_scenarios_pass("2025-11-25").await;
}

#[tokio::test]
async fn the_2026_07_28_required_scenarios_pass_but_the_listed_ones() {
    required_scenarios_pass("2026-07-28").await;
}
