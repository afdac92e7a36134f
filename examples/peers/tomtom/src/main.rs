//! A greeting agent on tomtom215's a2a-rust (`a2a-protocol-sdk` 0.15.0), built as its README
//! builds one: an executor (its `agent_executor!`) that emits one artifact and completes the
//! task through an `EventEmitter`, its request handler with the default in-memory task store,
//! served by its `JsonRpcDispatcher` and `serve`.
//! Usage: `peer-tomtom ADDRESS` (e.g. 127.0.0.1:18404).

use std::sync::Arc;

use a2a_protocol_sdk::prelude::*;
use a2a_protocol_sdk::server::serve;

/// Greets the name the message carries.
struct Greeter;

agent_executor!(Greeter, |ctx, queue| async {
    let emit = EventEmitter::new(ctx, queue);
    let name = ctx.message.text().unwrap_or_default();
    emit.artifact(
        "greeting",
        vec![Part::text(format!("Hello, {name}!"))],
        None,
        Some(true),
    )
    .await?;
    emit.status(TaskState::Completed).await
});

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18404".into());
    let card = AgentCard::new(
        "greeter",
        "1.0.0",
        AgentInterface::jsonrpc(format!("http://{address}")),
    )
    .with_description("Greets by name")
    .with_skill(AgentSkill::new("greet", "Greet", "Greets by name").with_tags(["greet"]));
    let handler = RequestHandlerBuilder::new(Greeter)
        .with_agent_card(card)
        .build()?;
    serve(address.as_str(), JsonRpcDispatcher::new(Arc::new(handler))).await?;
    Ok(())
}
