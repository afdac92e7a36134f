//! A skill's input is decoded once per call, on every call path: the value checked when the
//! request is validated is the value the skill runs with.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_runtime::prelude::*;
use a2a_tests::start;
use serde_json::json;

static DECODES: AtomicUsize = AtomicUsize::new(0);

/// A value whose decoding is counted.
#[derive(Debug, JsonSchema)]
#[schemars(transparent)]
pub struct Counted(String);

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        DECODES.fetch_add(1, Ordering::SeqCst);
        String::deserialize(deserializer).map(Counted)
    }
}

/// An agent whose one skill counts how often its input is decoded.
#[agent(name = "Counter")]
#[derive(Debug, Default)]
pub struct Counter;

/// Echo the counted value.
#[skill(agent = Counter)]
pub async fn echo(
    /// The value.
    value: Counted,
) -> String {
    value.0
}

#[tokio::test]
async fn a2a_and_mcp_calls_decode_the_skill_input_once() {
    let server = start(Counter.server()).await;

    let response = server
        .send(json!([{"data": {"value": "a"}}]), json!({}), json!({}))
        .await;
    assert_eq!(
        response["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{response}"
    );
    assert_eq!(DECODES.swap(0, Ordering::SeqCst), 1, "A2A SendMessage");

    let mut session = server.mcp_session().await;
    let response = session
        .request(
            "tools/call",
            json!({"name": "echo", "arguments": {"value": "b"}}),
        )
        .await;
    assert_eq!(response["result"]["isError"], false, "{response}");
    assert_eq!(DECODES.swap(0, Ordering::SeqCst), 1, "MCP tools/call");
}
