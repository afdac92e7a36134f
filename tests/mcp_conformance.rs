//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `scripts/test`) against `examples/mcp-conformance`, over streamable HTTP: each protocol
//! revision's required scenarios, and the scenarios of the tasks extension. A scenario listed in
//! `tests/conformance/expected-failures-*.yml` must fail and any other must pass, so the lists
//! only shrink: a fixed scenario left listed fails the run too. Skipped, saying so, without the
//! suite (`A2A_TEST_NODE`, `A2A_TEST_CONFORMANCE`, which `scripts/test` sets).

use std::path::{Path, PathBuf};

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");

/// Node and the suite's entry point, or `None` (after saying why) outside CI without them.
fn suite() -> Option<(String, String)> {
    match (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_CONFORMANCE"),
    ) {
        (Ok(node), Ok(suite)) => Some((node, suite)),
        _ => {
            assert!(
                std::env::var("CI").is_err(),
                "A2A_TEST_NODE and A2A_TEST_CONFORMANCE must be set under CI (scripts/test installs the suite)"
            );
            eprintln!("skipped the MCP conformance suite: run scripts/test to install it");
            None
        }
    }
}

fn baseline(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conformance")
        .join(format!("expected-failures-{name}.yml"))
}

/// Runs the suite with `args` against the fixture server at `url`, held to `baseline`; prints
/// the score lines and fails on any unexpected result.
async fn run_suite((node, suite): &(String, String), url: &str, args: &[&str], baseline: &Path) {
    let results = a2a_tests::scratch_dir();
    let run = tokio::process::Command::new(node)
        .arg(suite)
        .args(["server", "--url", url])
        .args(args)
        .arg("--expected-failures")
        .arg(baseline)
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
        .filter(|line| {
            line.starts_with(['✓', '✗']) || line.contains("Total") || line.contains("Passed:")
        })
        .collect();
    println!(
        "MCP conformance {}:\n{}",
        args.join(" "),
        summary.join("\n")
    );
    assert!(
        output.status.success(),
        "the MCP conformance suite ({}) failed against its baseline {}:\n{stdout}\n{}",
        args.join(" "),
        baseline.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

async fn required_scenarios_pass(revision: &str) {
    let Some(suite) = suite() else { return };
    let (_server, base) = a2a_tests::spawn_served_with(SERVER, &["--store", "memory"]).await;
    let url = format!("{base}mcp");
    run_suite(
        &suite,
        &url,
        &["--requirements", revision],
        &baseline(revision),
    )
    .await;
}

#[tokio::test]
async fn the_2025_11_25_required_scenarios_pass_but_the_listed_ones() {
    required_scenarios_pass("2025-11-25").await;
}

#[tokio::test]
async fn the_2026_07_28_required_scenarios_pass_but_the_listed_ones() {
    required_scenarios_pass("2026-07-28").await;
}

#[tokio::test]
async fn the_tasks_extension_scenarios_pass_but_the_listed_ones() {
    let Some(suite) = suite() else { return };
    let listed = tokio::process::Command::new(&suite.0)
        .args([suite.1.as_str(), "list", "--server"])
        .output()
        .await
        .expect("the suite lists its scenarios");
    let listed = String::from_utf8_lossy(&listed.stdout);
    let scenarios: Vec<&str> = listed
        .lines()
        .filter(|line| line.contains("[extension]"))
        .filter_map(|line| line.trim().strip_prefix("- ")?.split_whitespace().next())
        .filter(|name| name.starts_with("tasks-"))
        .collect();
    assert!(
        scenarios.len() >= 10,
        "the suite lists the tasks scenarios: {listed}"
    );
    let (_server, base) = a2a_tests::spawn_served_with(SERVER, &["--store", "memory"]).await;
    let url = format!("{base}mcp");
    for scenario in scenarios {
        run_suite(&suite, &url, &["--scenario", scenario], &baseline("tasks")).await;
    }
}
