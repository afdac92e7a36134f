//! Serves the booking agent over A2A and MCP, plus a stand-in sign-in page.
//!
//! Run: `cargo run -p booking` (flags: `--bind`, `--public-url`, `--stdio`).

use a2a_runtime::axum::Router;
use a2a_runtime::axum::extract::Path;
use a2a_runtime::axum::http::StatusCode;
use a2a_runtime::axum::routing::get;
use a2a_runtime::{Agent, TasksError};
use booking::Booking;

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio")]
async fn main() -> Result<(), a2a_runtime::Error> {
    let server = Booking::default().server();
    let tasks = server.tasks();
    // A demo stand-in for an OAuth callback: whoever opens the link counts as signed in. A real
    // application verifies the identity provider's response before calling `authorize`.
    let sign_in = get(move |Path(task): Path<String>| async move {
        let credential = a2a_runtime::serde_json::json!({ "user": "demo" });
        match tasks.authorize(&task, credential).await {
            Ok(()) => (StatusCode::OK, "Signed in; the task continues.\n".to_owned()),
            Err(error @ TasksError::NotFound(_)) => (StatusCode::NOT_FOUND, format!("{error}\n")),
            Err(error) => (StatusCode::CONFLICT, format!("{error}\n")),
        }
    });
    server
        .routes(Router::new().route("/signin/{task}", sign_in))
        .serve()
        .await
}
