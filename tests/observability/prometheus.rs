//! The exposition as Prometheus's own tools read it: `promtool check metrics` accepts it, and a
//! Prometheus server started on loopback scrapes it and answers queries with the mix's counts.

use std::process::Stdio;
use std::time::Duration;

use a2a_tests::{scratch_dir, start_host};
use serde_json::Value;

use super::metrics::{observed_host, run_the_mix, scrape};

/// Prometheus's binaries: the environment's (scripts/test sets them), else Debian's.
fn binary(variable: &str, debian: &str) -> Option<String> {
    let path = std::env::var(variable).unwrap_or_else(|_| debian.to_owned());
    std::path::Path::new(&path).exists().then_some(path)
}

/// The `le` boundaries of `histogram`'s first series, in order.
fn boundaries(text: &str, histogram: &str) -> Vec<String> {
    let bucket = format!("{histogram}_bucket{{");
    let mut found: Vec<String> = Vec::new();
    for line in text.lines().filter(|line| line.starts_with(&bucket)) {
        let le = line
            .split("le=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default()
            .to_owned();
        if found.contains(&le) {
            break;
        }
        found.push(le);
    }
    found
}

/// A free loopback port (bound, then released for the server to take).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The value of PromQL `query` at the Prometheus server at `api`, once it has one.
async fn query(api: &str, query: &str) -> Option<f64> {
    let url =
        url::Url::parse_with_params(&format!("{api}/api/v1/query"), [("query", query)]).ok()?;
    let response = a2a_tests::get(url).await.ok()?;
    let body: Value = response.json().await.ok()?;
    body["data"]["result"][0]["value"][1].as_str()?.parse().ok()
}

#[tokio::test]
async fn promtool_accepts_the_exposition_and_a_prometheus_server_scrapes_it() {
    let (Some(promtool), Some(prometheus)) = (
        binary("A2A_TEST_PROMTOOL", "/usr/bin/promtool"),
        binary("A2A_TEST_PROMETHEUS", "/usr/bin/prometheus"),
    ) else {
        println!("skipped: no promtool and prometheus (.ci/run installs Debian's prometheus)");
        return;
    };
    let server = start_host(observed_host()).await;
    run_the_mix(&server).await;
    let exposition = scrape(&server.base).await;

    let mut check = tokio::process::Command::new(&promtool);
    check.args(["check", "metrics"]);
    let checked = a2a_tests::run_with_input(check, &exposition.text).await;
    let said = String::from_utf8_lossy(&checked.stdout) + String::from_utf8_lossy(&checked.stderr);
    assert!(checked.status.success(), "promtool: {said}");
    assert!(said.trim().is_empty(), "promtool found problems: {said}");
    // Both request histograms have exactly the boundaries the MCP conventions advise.
    let advised = [
        "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "30", "60", "120", "300",
        "+Inf",
    ];
    for histogram in [
        "mcp_server_operation_duration_seconds",
        "a2a_server_operation_duration_seconds",
    ] {
        assert_eq!(
            boundaries(&exposition.text, histogram),
            advised,
            "{histogram}"
        );
    }

    let dir = scratch_dir();
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: agents\n    \
             static_configs:\n      - targets: ['{}']\n",
            server.addr
        ),
    )
    .unwrap();
    let port = free_port();
    let _prometheus = tokio::process::Command::new(&prometheus)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let api = format!("http://127.0.0.1:{port}");
    // A hang guard, not a timing assertion: the first scrape comes within a few seconds.
    let total = exposition.sum("a2a_skill_call_duration_seconds_count", &[]);
    let mut scraped = None;
    for _ in 0..300 {
        scraped = query(&api, "sum(a2a_skill_call_duration_seconds_count)").await;
        if scraped == Some(total) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(scraped, Some(total), "Prometheus never scraped the server");
    assert_eq!(query(&api, "up{job=\"agents\"}").await, Some(1.0));
    let series = "a2a_skill_call_duration_seconds_count{agent=\"lab\",skill=\"echo\",\
                  protocol=\"a2a\",binding=\"http+json\",outcome=\"completed\"}";
    assert_eq!(query(&api, series).await, Some(2.0));
    let refused = "a2a_quota_refusals_total{kind=\"running\"}";
    assert_eq!(query(&api, refused).await, Some(1.0));
    let _ = std::fs::remove_dir_all(&dir);
}
