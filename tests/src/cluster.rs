//! A cluster as an operator runs one, started by `scripts/cluster`: replicas of the agent host
//! on one PostgreSQL database behind HAProxy, round-robin with no stickiness. Each replica is a
//! real process the tests may stop (SIGTERM: it drains), kill (SIGKILL) and start again.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The API keys every replica accepts besides the authorization server's tokens.
pub const KEYS: &str = "alice=alice-cluster-key-0001,bob=bob-cluster-key-00002";
/// Alice's key.
pub const ALICE: &str = "alice-cluster-key-0001";
/// Bob's key.
pub const BOB: &str = "bob-cluster-key-00002";

/// A running cluster; taken down when dropped.
pub struct Cluster {
    /// The balancer's URL, `http://127.0.0.1:PORT/`.
    pub url: String,
    /// The balancer's TLS URL, `https://127.0.0.1:PORT/`.
    pub tls_url: String,
    /// The CA the balancer's certificate is signed by (PEM file).
    pub ca: PathBuf,
    /// The database the replicas share.
    pub database: String,
    dir: PathBuf,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/cluster")
}

impl Cluster {
    /// Whether HAProxy is installed; without it (and outside CI, which installs it) the cluster
    /// tests are skipped, saying so.
    pub fn available(test: &str) -> bool {
        let installed = [
            "/usr/sbin/haproxy",
            "/usr/bin/haproxy",
            "/usr/local/sbin/haproxy",
        ]
        .iter()
        .any(|path| Path::new(path).exists());
        if !installed {
            assert!(
                std::env::var("CI").is_err(),
                "HAProxy must be installed under CI (.ci/run installs it)"
            );
            eprintln!("skipped {test}: HAProxy is not installed (apt-get install haproxy)");
        }
        installed
    }

    /// `replicas` replicas of `binary` (an agent host) on `database`, each also given `extra`
    /// flags; the cluster goes down with this value, or with the test process.
    pub fn up(binary: &str, database: &str, replicas: usize, extra: &[&str]) -> Self {
        let dir = crate::scratch_named("cluster");
        let output = Command::new(script())
            .args(["up", "--dir", dir.to_str().expect("UTF-8 path")])
            .args(["--binary", binary, "--database", database])
            .args(["--replicas", &replicas.to_string()])
            .args(["--parent", &std::process::id().to_string(), "--ttl", "900"])
            .arg("--")
            .args(["--api-keys", KEYS])
            .args(extra)
            .output()
            .expect("scripts/cluster runs");
        assert!(
            output.status.success(),
            "scripts/cluster up failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let url = stdout.lines().last().expect("the balancer's URL").trim();
        let state = Self::read_state(&dir);
        let tls_port = state["tls_port"].as_u64().expect("a TLS port");
        Self {
            url: format!("{url}/"),
            tls_url: format!("https://127.0.0.1:{tls_port}/"),
            ca: PathBuf::from(state["ca"].as_str().expect("the CA's file")),
            database: database.to_owned(),
            dir,
        }
    }

    fn read_state(dir: &Path) -> Value {
        let text = std::fs::read_to_string(dir.join("cluster.json")).expect("cluster.json");
        serde_json::from_str(&text).expect("cluster.json is JSON")
    }

    fn run(&self, command: &str, index: usize) -> String {
        let output = Command::new(script())
            .args([command, &index.to_string()])
            .args(["--dir", self.dir.to_str().expect("UTF-8 path")])
            .output()
            .expect("scripts/cluster runs");
        assert!(
            output.status.success(),
            "scripts/cluster {command} {index} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Sends replica `index` SIGTERM: it drains, then stops.
    pub fn stop(&self, index: usize) {
        self.run("stop", index);
    }

    /// Kills replica `index` (SIGKILL).
    pub fn kill(&self, index: usize) {
        self.run("kill", index);
    }

    /// Waits until replica `index`'s process has ended (a hang guard of 60 s).
    pub async fn stopped(&self, index: usize) {
        for _ in 0..600 {
            if !self.running(index) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("replica {index} did not stop");
    }

    /// Starts replica `index` again, returning once the balancer counts it up.
    pub fn start(&self, index: usize) {
        self.run("start", index);
    }

    /// Replica `index`'s own URL (not through the balancer).
    pub fn replica_url(&self, index: usize) -> String {
        let state = Self::read_state(&self.dir);
        let port = state["replicas"][index]["port"]
            .as_u64()
            .expect("a replica port");
        format!("http://127.0.0.1:{port}/")
    }

    /// Whether replica `index`'s process is running.
    pub fn running(&self, index: usize) -> bool {
        let state = Self::read_state(&self.dir);
        let Some(pid) = state["replicas"][index]["pid"].as_u64() else {
            return false;
        };
        let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // A zombie (`Z`) has ended; its parent, the script, is gone and init reaps it.
        !status.is_empty() && !status.contains(") Z ")
    }

    /// How many requests the balancer has sent each replica.
    pub fn requests_per_replica(&self) -> Vec<u64> {
        self.per_replica("requests")
    }

    /// How many requests each replica is answering now (open streams among them).
    pub fn serving_streams(&self) -> Vec<u64> {
        self.per_replica("active")
    }

    fn per_replica(&self, counter: &str) -> Vec<u64> {
        let output = Command::new(script())
            .args([
                "status",
                "--json",
                "--dir",
                self.dir.to_str().expect("UTF-8"),
            ])
            .output()
            .expect("scripts/cluster runs");
        let status: Value = serde_json::from_slice(&output.stdout).expect("status JSON");
        status["replicas"]
            .as_array()
            .expect("replicas")
            .iter()
            .map(|r| r[counter].as_u64().unwrap_or(0))
            .collect()
    }

    /// An HTTP client sending `key` as its API key with every request.
    pub fn client(key: &str) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            "x-api-key",
            reqwest::header::HeaderValue::from_str(key).expect("a header value"),
        );
        crate::http_builder()
            .default_headers(headers)
            .build()
            .expect("an HTTP client")
    }

    /// A test client of agent `id` through the balancer, authenticated with `key`.
    pub fn agent(&self, id: &str, key: &str) -> crate::TestServer {
        let balancer = crate::TestServer::at(self.url.clone());
        crate::TestServer {
            http: Self::client(key),
            ..balancer.mounted(id)
        }
    }

    /// The log of replica `index` so far.
    pub fn log(&self, index: usize) -> String {
        std::fs::read_to_string(self.dir.join(format!("r{index}.log"))).unwrap_or_default()
    }
}

impl Cluster {
    /// For a failed test: what the balancer logged (only failed and retried requests) and the
    /// replicas' warnings and errors.
    fn print_trouble(&self) {
        let read = |name: &str| std::fs::read_to_string(self.dir.join(name)).unwrap_or_default();
        eprintln!(
            "--- haproxy.log (failed and retried requests)\n{}",
            read("haproxy.log")
        );
        for index in 0.. {
            let name = format!("r{index}.log");
            if !self.dir.join(&name).exists() {
                break;
            }
            let log = read(&name);
            let trouble: Vec<&str> = log
                .lines()
                .filter(|line| line.contains("WARN") || line.contains("ERROR"))
                .collect();
            eprintln!("--- {name}: warnings and errors\n{}", trouble.join("\n"));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.print_trouble();
        }
        let _ = Command::new(script())
            .args(["down", "--dir", self.dir.to_str().unwrap_or_default()])
            .output();
    }
}
