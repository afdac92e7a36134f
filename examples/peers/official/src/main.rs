//! A greeting agent on the official Rust SDK (a2aproject/a2a-rs: `a2a-server-lf` 0.5.3): an
//! executor answering a completed task with one artifact, behind the SDK's default request
//! handler and in-memory task store, on its JSON-RPC router.
//! Usage: `peer-official ADDRESS` (e.g. 127.0.0.1:18402).

use std::sync::Arc;

use a2a::{A2AError, Artifact, Part, StreamResponse, Task, TaskState, TaskStatus};
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use futures::stream::{self, BoxStream};

/// Greets the name the message carries.
struct Greeter;

impl AgentExecutor for Greeter {
    fn execute(
        &self,
        ctx: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let name = ctx
            .message
            .as_ref()
            .and_then(|message| message.text())
            .unwrap_or_default()
            .to_owned();
        let task = Task {
            id: ctx.task_id,
            context_id: ctx.context_id,
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: Some(chrono::Utc::now()),
            },
            artifacts: Some(vec![Artifact {
                artifact_id: "greeting".into(),
                name: Some("greet".into()),
                description: None,
                parts: vec![Part::text(format!("Hello, {name}!"))],
                metadata: None,
                extensions: None,
            }]),
            history: None,
            metadata: None,
        };
        Box::pin(stream::once(async move { Ok(StreamResponse::Task(task)) }))
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let task = Task {
            id: ctx.task_id,
            context_id: ctx.context_id,
            status: TaskStatus {
                state: TaskState::Canceled,
                message: None,
                timestamp: Some(chrono::Utc::now()),
            },
            artifacts: None,
            history: None,
            metadata: None,
        };
        Box::pin(stream::once(async move { Ok(StreamResponse::Task(task)) }))
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18402".into());
    let handler = DefaultRequestHandler::new(Greeter, InMemoryTaskStore::new());
    let app = a2a_server::jsonrpc::jsonrpc_router(Arc::new(handler));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            tokio::signal::ctrl_c().await.ok();
        })
        .await
}
