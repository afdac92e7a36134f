//! A database of its own for each Postgres test, on the server `DATABASE_URL` names
//! (`scripts/postgres` starts one). Without `DATABASE_URL` the tests are skipped with a message,
//! except under CI, where a missing database fails them: CI always runs them.

use std::sync::atomic::{AtomicUsize, Ordering};

use sqlx::{AssertSqlSafe, Connection, PgConnection};

/// The URL of a new, empty database for test `name`, or `None` (after saying so) when no
/// server is configured.
pub async fn fresh_database(name: &str) -> Option<String> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let Ok(server) = std::env::var("DATABASE_URL") else {
        assert!(
            std::env::var("CI").is_err(),
            "DATABASE_URL must be set under CI (.ci/run starts PostgreSQL with scripts/postgres)"
        );
        eprintln!(
            "skipped {name}: DATABASE_URL is not set; run `export DATABASE_URL=$(scripts/postgres)` \
             to include the Postgres tests"
        );
        return None;
    };
    let database = format!(
        "a2a_{}_{}_{}",
        name.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = PgConnection::connect(&server)
        .await
        .expect("DATABASE_URL accepts connections");
    sqlx::raw_sql(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {database}")))
        .execute(&mut admin)
        .await
        .expect("drop the old test database");
    sqlx::raw_sql(AssertSqlSafe(format!("CREATE DATABASE {database}")))
        .execute(&mut admin)
        .await
        .expect("create the test database");
    let (base, _) = server
        .rsplit_once('/')
        .expect("DATABASE_URL names a database");
    Some(format!("{base}/{database}"))
}

/// A PostgreSQL server of one test's own (started by `scripts/postgres` on a free loopback
/// port), which the test may stop and start again: the shared server must never go down under
/// other tests. Stopped when dropped.
pub struct OwnServer {
    /// Its database's URL.
    pub url: String,
    port: String,
    dir: String,
}

impl OwnServer {
    /// A new server, or `None` (after saying so) where the Postgres tests are skipped.
    pub fn start(name: &str) -> Option<Self> {
        if std::env::var("DATABASE_URL").is_err() {
            assert!(
                std::env::var("CI").is_err(),
                "DATABASE_URL must be set under CI"
            );
            eprintln!("skipped {name}: DATABASE_URL is not set (the Postgres tests are off)");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port()
            .to_string();
        // Directly under /tmp: the server's own user must reach it.
        let dir = format!("/tmp/a2a-pg-{name}-{}", std::process::id());
        let mut server = Self {
            url: String::new(),
            port,
            dir,
        };
        server.url = server.run(None);
        Some(server)
    }

    fn run(&self, command: Option<&str>) -> String {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/postgres");
        let output = std::process::Command::new(script)
            .args(command)
            .env("A2A_PG_PORT", &self.port)
            .env("A2A_PG_DIR", &self.dir)
            .output()
            .expect("scripts/postgres runs");
        assert!(
            output.status.success(),
            "scripts/postgres {command:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Stops the server (its data kept).
    pub fn stop(&self) {
        self.run(Some("stop"));
    }

    /// Starts it again on its data.
    pub fn resume(&self) {
        self.run(Some("resume"));
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| self.stop());
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
