//! Micro-benchmarks of the functions every A2A `SendMessage` runs through, on the hello agent's
//! `greet` skill: reading the envelope, reading the send request, routing the message and
//! decoding the skill's input, recording a task's run on its live copy, and writing the answer.
//! `scripts/bench-load` measures whole requests against a ceiling; these say which step moved.
//!
//! Run: `cargo bench -p hello --bench hot_paths`

use std::any::TypeId;
use std::hint::black_box;

use a2a_runtime_a2a::route;
use a2a_runtime_a2a::service::Sent;
use a2a_runtime_core::auth::Caller;
use a2a_runtime_core::registry::Registry;
use a2a_runtime_core::task::StoredTask;
use a2a_runtime_core::task::live::{Budget, LiveTask};
use a2a_runtime_types::model::{
    Artifact, Message, Part, Task, TaskArtifactUpdate, TaskEvent, TaskState, TaskStatus, TaskView,
};
use a2a_runtime_types::protocol::jsonrpc;
use criterion::{Criterion, criterion_group, criterion_main};

const BODY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"Ada"}]},"configuration":{"historyLength":0}}}"#;

fn registry() -> Registry {
    Registry::build(TypeId::of::<hello::Hello>(), "Hello", &[]).expect("the hello agent's skills")
}

fn task() -> Task {
    Task {
        id: "01930000-0000-7000-8000-000000000000".into(),
        context_id: "c1".into(),
        status: TaskStatus::now(TaskState::Submitted, None),
        artifacts: Vec::new(),
        history: vec![Message::user_text("Ada")],
        metadata: None,
        created_at: TaskStatus::now(TaskState::Submitted, None).timestamp,
    }
}

fn envelope(c: &mut Criterion) {
    c.bench_function("envelope read in place", |b| {
        b.iter(|| jsonrpc::parse_borrowed(black_box(BODY)).map(|r| r.params.is_some()));
    });
    let params = jsonrpc::parse_borrowed(BODY)
        .and_then(|r| r.params)
        .map(|p| p.get().to_owned())
        .unwrap_or_default();
    c.bench_function("send request read (strict ProtoJSON)", |b| {
        b.iter(|| a2a_runtime_a2a::v1::send_request_text(black_box(params.as_bytes())));
    });
}

fn routing(c: &mut Criterion) {
    let registry = registry();
    let message = Message::user_text("Ada");
    c.bench_function("route and decode the input", |b| {
        b.iter(|| route::route(&registry, black_box(&message)).is_ok());
    });
}

fn task_record(c: &mut Criterion) {
    let budget = Budget {
        history_bytes: usize::MAX,
        artifact_bytes: usize::MAX,
    };
    c.bench_function(
        "task recorded: created, working, artifact, completed",
        |b| {
            b.iter(|| {
                let stored = StoredTask::new(task(), "anonymous");
                let live =
                    LiveTask::new(stored, "greet", Caller::anonymous(), 16, None, budget, None);
                live.record(live.status_event(TaskState::Working, None, None), None, 100);
                let artifact = TaskEvent::Artifact(TaskArtifactUpdate {
                    task_id: live.id.clone(),
                    context_id: live.context_id.clone(),
                    artifact: Artifact::new(vec![Part::text("Hello, Ada!")]),
                    append: false,
                    last_chunk: true,
                });
                live.record(artifact, None, 100);
                live.record(
                    live.status_event(TaskState::Completed, None, None),
                    None,
                    100,
                );
                live.view(Some(0))
            });
        },
    );
}

fn render(c: &mut Criterion) {
    let mut done = task();
    done.status = TaskStatus::now(TaskState::Completed, None);
    done.artifacts = vec![Artifact::new(vec![Part::text("Hello, Ada!")])];
    done.history.clear();
    let sent = Sent::Task(TaskView::new(std::sync::Arc::new(done), Some(0)));
    let id = serde_json::Value::from(1);
    c.bench_function("answer written", |b| {
        b.iter(|| jsonrpc::success(&id, a2a_runtime_a2a::v1::send_response(black_box(&sent))));
    });
}

criterion_group!(hot_paths, envelope, routing, task_record, render);
criterion_main!(hot_paths);
