//! A greeting agent on turul-a2a 0.2.6, built as its `examples/echo-agent` builds one: an
//! executor that adds one artifact and completes the task, served by the SDK's own server with
//! its default in-memory storage (JSON-RPC on `/jsonrpc`, HTTP+JSON beside it).
//! Usage: `peer-turul ADDRESS` (e.g. 127.0.0.1:18403).

use std::net::SocketAddr;

use turul_a2a::A2aServer;
use turul_a2a::card_builder::{AgentCardBuilder, AgentSkillBuilder};
use turul_a2a::error::A2aError;
use turul_a2a::executor::{AgentExecutor, ExecutionContext};
use turul_a2a_types::{Message, Task};

/// Greets the name the message carries.
struct Greeter {
    url: String,
}

#[async_trait::async_trait]
impl AgentExecutor for Greeter {
    async fn execute(
        &self,
        task: &mut Task,
        message: &Message,
        _ctx: &ExecutionContext,
    ) -> Result<(), A2aError> {
        let name = message.joined_text();
        task.push_text_artifact("greeting", "greet", format!("Hello, {name}!"));
        task.complete();
        Ok(())
    }

    fn agent_card(&self) -> turul_a2a_proto::AgentCard {
        AgentCardBuilder::new("Greeter", "0.1.0")
            .description("Greets by name")
            .url(self.url.clone(), "JSONRPC", "1.0")
            .default_input_modes(vec!["text/plain"])
            .default_output_modes(vec!["text/plain"])
            .skill(AgentSkillBuilder::new("greet", "Greet", "Greets by name").build())
            .build()
            .expect("a valid card")
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18403".into())
        .parse()?;
    let server = A2aServer::builder()
        .executor(Greeter {
            url: format!("http://{address}/jsonrpc"),
        })
        .bind(address)
        .build()?;
    server.run().await?;
    Ok(())
}
