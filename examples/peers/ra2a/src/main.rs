//! A greeting agent on ra2a 0.10.1, built as its `examples/server.rs` builds one: an executor
//! answering a completed task with one artifact, mounted with `a2a_router` on an axum router.
//! Usage: `peer-ra2a ADDRESS` (e.g. 127.0.0.1:18401).

use std::future::Future;
use std::pin::Pin;

use ra2a::error::Result;
use ra2a::server::{AgentExecutor, Event, EventQueue, RequestContext, ServerState, a2a_router};
use ra2a::types::{
    AgentCard, AgentInterface, Artifact, Message, Task, TaskState, TaskStatus, TransportProtocol,
};

/// Greets the name the message carries.
struct Greeter;

impl AgentExecutor for Greeter {
    fn execute<'a>(
        &'a self,
        ctx: &'a RequestContext,
        queue: &'a EventQueue,
    ) -> Pin<Box<dyn Future<Output = Result<()>> + Send + 'a>> {
        Box::pin(async move {
            let name = ctx
                .message
                .as_ref()
                .and_then(Message::text_content)
                .unwrap_or_default();
            let mut task = Task::new(&ctx.task_id, &ctx.context_id);
            task.status = TaskStatus::new(TaskState::Completed);
            task.artifacts
                .push(Artifact::text("greeting", format!("Hello, {name}!")).with_name("greet"));
            queue.send(Event::Task(task))?;
            Ok(())
        })
    }

    fn cancel<'a>(
        &'a self,
        ctx: &'a RequestContext,
        queue: &'a EventQueue,
    ) -> Pin<Box<dyn Future<Output = Result<()>> + Send + 'a>> {
        Box::pin(async move {
            let mut task = Task::new(&ctx.task_id, &ctx.context_id);
            task.status = TaskStatus::new(TaskState::Canceled);
            queue.send(Event::Task(task))?;
            Ok(())
        })
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18401".into());
    let card = AgentCard::new(
        "Greeter",
        "Greets by name.",
        vec![AgentInterface::new(
            format!("http://{address}"),
            TransportProtocol::new(TransportProtocol::JSONRPC),
        )],
    );
    let app = axum::Router::new().merge(a2a_router(ServerState::from_executor(Greeter, card)));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            tokio::signal::ctrl_c().await.ok();
        })
        .await
}
