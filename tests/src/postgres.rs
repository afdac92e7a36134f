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
