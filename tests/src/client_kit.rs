//! Helpers for tests of `a2a_runtime::client`: sending without waiting, reading a stream through
//! a cut, and rebuilding artifacts from events.

use std::collections::BTreeMap;

use a2a_runtime::client::{A2aClient, Binding, EventStream, SendOptions, SendResult, StreamEvent};
use a2a_runtime::futures::StreamExt;
use a2a_runtime::{Part, Task, TaskState, model::PartContent};

use crate::proxy::CuttableProxy;

/// Answer as soon as the task exists.
pub fn no_wait() -> SendOptions {
    SendOptions {
        return_immediately: true,
        history_length: None,
    }
}

/// The task a send answered with; panics on a direct reply.
pub fn task_of(sent: SendResult) -> Task {
    match sent {
        SendResult::Task(task) => *task,
        SendResult::Message(message) => panic!("expected a task, got message {message:?}"),
    }
}

/// Asserts that `events` end with one COMPLETED status.
pub fn assert_completed(events: &[StreamEvent]) {
    let Some(StreamEvent::Status(last)) = events.last() else {
        panic!("the stream ends with a status: {events:?}");
    };
    assert_eq!(last.status.state, TaskState::Completed, "{events:?}");
    let terminal = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Status(u) if u.status.state.is_terminal()))
        .count();
    assert_eq!(terminal, 1, "{events:?}");
}

/// Every item of `stream`, the proxy's connections cut once `after` artifact events arrived;
/// asserts that the client connected again.
pub async fn read_through_a_cut(
    mut stream: EventStream,
    proxy: &CuttableProxy,
    after: usize,
) -> Vec<StreamEvent> {
    let (mut events, mut cut) = (Vec::new(), None);
    while let Some(event) = stream.next().await {
        events.push(event.expect("every item of a renewed stream is an event"));
        let chunks = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::Artifact(_)))
            .count();
        if chunks == after && cut.is_none() {
            cut = Some(proxy.connections());
            proxy.cut();
        }
    }
    let before = cut.expect("the stream was cut");
    assert!(proxy.connections() > before, "the client connected again");
    events
}

/// The parts as text (other contents described).
pub fn texts(parts: &[Part]) -> Vec<String> {
    parts
        .iter()
        .map(|p| match &p.content {
            PartContent::Text(t) => t.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// Each artifact's parts as `events` tell them, by artifact id: a task sets them, an update
/// replaces or appends.
pub fn artifacts_of(events: &[StreamEvent]) -> BTreeMap<String, Vec<String>> {
    let mut artifacts = BTreeMap::<String, Vec<String>>::new();
    for event in events {
        match event {
            StreamEvent::Task(task) => {
                for a in &task.artifacts {
                    artifacts.insert(a.artifact_id.clone(), texts(&a.parts));
                }
            }
            StreamEvent::Artifact(update) => {
                let parts = artifacts
                    .entry(update.artifact.artifact_id.clone())
                    .or_default();
                if !update.append {
                    parts.clear();
                }
                parts.extend(texts(&update.artifact.parts));
            }
            _ => {}
        }
    }
    artifacts
}

/// Registers `hook`, reads it back, finds it listed, deletes it and finds it gone; the config
/// as read back.
pub async fn push_round_trip(
    client: &a2a_runtime::client::A2aClient,
    hook: &a2a_runtime::client::PushNotificationConfig,
) -> a2a_runtime::client::PushNotificationConfig {
    let task = &hook.task_id;
    let stored = client.set_push_config(hook).await.expect("registered");
    assert_eq!((&stored.task_id, &stored.url), (task, &hook.url));
    let id = stored.id.clone().expect("the agent names the config");
    let read = client.get_push_config(task, &id).await.expect("read back");
    assert_eq!(read.url, hook.url);
    let listed = client.list_push_configs(task).await.expect("listed");
    assert_eq!(listed.len(), 1, "{listed:?}");
    client.delete_push_config(task, &id).await.expect("deleted");
    let left = client.list_push_configs(task).await.expect("listed");
    assert!(left.is_empty(), "{left:?}");
    read
}

/// Every task `query` lists, page after page; asserts there are `count`, each once.
pub async fn list_each_once(
    client: &a2a_runtime::client::A2aClient,
    query: &a2a_runtime::client::ListTasks,
    count: usize,
) -> Vec<Task> {
    let all: Vec<Task> = client
        .list_tasks(query)
        .map(|task| task.expect("a page"))
        .collect()
        .await;
    let mut ids: Vec<&str> = all.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        (ids.len(), all.len()),
        (count, count),
        "each task once: {all:?}"
    );
    all
}

/// A client of the agent at `base` that calls its interface of `binding` in `version`; asserts
/// that it does.
pub async fn client_over(base: &str, binding: &Binding, version: &str) -> A2aClient {
    let client = A2aClient::builder(base)
        .prefer(binding.clone(), version)
        .connect()
        .await
        .expect("connected");
    let chosen = client.interface();
    assert_eq!(&chosen.binding, binding, "{chosen}");
    assert!(chosen.protocol_version.starts_with(version), "{chosen}");
    client
}

/// Every item of `stream`, each an event.
pub async fn all_events(stream: EventStream) -> Vec<StreamEvent> {
    stream
        .map(|event| event.expect("every item is an event"))
        .collect()
        .await
}
