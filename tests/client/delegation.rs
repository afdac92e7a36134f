//! Calls a skill makes to other agents: the trace continues, a cancel reaches the remote task,
//! progress and results come back, and timeouts bound what a remote agent sends.

use super::*;

/// An agent that calls agents.
#[agent(name = "Tracer")]
#[derive(Debug, Default)]
pub(crate) struct Tracer;

/// Say which trace this call runs in, as `trace-id/parent-id`.
#[skill(agent = Tracer)]
pub(crate) async fn whereami(ctx: TaskContext) -> String {
    ctx.trace_context().map_or_else(
        || "untraced".to_owned(),
        |trace| format!("{}/{}", trace.trace_id(), trace.parent_id()),
    )
}

/// Ask the agent at `url` which trace its call runs in.
#[skill(agent = Tracer)]
pub(crate) async fn relay(
    /// The agent to ask.
    url: String,
) -> Result<String, SkillError> {
    let failed = |e: ClientError| SkillError::new(e.to_string());
    let client = A2aClient::connect(&url).await.map_err(failed)?;
    let answer = client
        .send(call("whereami", json!({})))
        .await
        .map_err(failed)?;
    let SendResult::Task(task) = answer else {
        return Err(SkillError::new("expected a task"));
    };
    match &task.artifacts[0].parts[0].content {
        PartContent::Text(text) => Ok(text.clone()),
        other => Err(SkillError::new(format!("expected text, got {other:?}"))),
    }
}

/// The text a relay through `server` answers, its request carrying `traceparent` if given.
async fn relayed(server: &a2a_tests::TestServer, traceparent: Option<&str>) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": "m", "role": "ROLE_USER", "metadata": {"skill": "relay"},
                    "parts": [{"data": {"url": server.base}}]}}});
    let mut request = server
        .http
        .post(&server.base)
        .header("A2A-Version", "1.0")
        .json(&body);
    if let Some(traceparent) = traceparent {
        request = request.header("traceparent", traceparent);
    }
    let answer: Value = request.send().await.unwrap().json().await.unwrap();
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    task["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Append `chunks` chunks to one artifact, `millis` milliseconds apart.
#[skill(agent = Tracer)]
pub(crate) async fn drip(
    ctx: TaskContext,
    /// How many chunks.
    chunks: u64,
    /// The pause before each.
    millis: u64,
) -> String {
    let mut writer = ctx.artifact_writer("drops");
    for i in 0..chunks {
        tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
        writer.append(Part::text(format!("c{i}")));
    }
    writer.finish();
    "dripped".into()
}

/// The tracer agent behind a cuttable proxy; its card names the proxy, so every call of a
/// client goes through it. The proxy and the base URL.
pub(super) async fn tracer_behind_a_proxy() -> (a2a_tests::proxy::CuttableProxy, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy = a2a_tests::proxy::CuttableProxy::start(listener.local_addr().unwrap()).await;
    let base = format!("http://{}/", proxy.addr);
    let server = Tracer.server().public_url(base.clone());
    tokio::spawn(async move { server.serve_on(listener).await });
    (proxy, base)
}

/// Call skill `skill` of the agent at `url` with `input`, and answer the text of its first
/// artifact.
#[skill(agent = Tracer)]
pub(crate) async fn delegate(
    ctx: TaskContext,
    /// The agent to call.
    url: String,
    /// Its skill.
    skill: String,
    /// The skill's input.
    input: Value,
) -> Result<String, SkillError> {
    let failed = |e: ClientError| SkillError::new(e.to_string());
    let agent = A2aClient::connect(&url).await.map_err(failed)?;
    let SendResult::Task(task) = ctx
        .call_agent(&agent, call(&skill, input))
        .await
        .map_err(failed)?
    else {
        return Err(SkillError::new("expected a task"));
    };
    match &task.artifacts[0].parts[0].content {
        PartContent::Text(text) => Ok(text.clone()),
        other => Err(SkillError::new(format!("expected text, got {other:?}"))),
    }
}

/// Polls `check` every 20 ms for up to 5 s.
async fn eventually<T>(mut check: impl AsyncFnMut() -> Option<T>) -> T {
    for _ in 0..250 {
        if let Some(found) = check().await {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("not within 5 s");
}

#[tokio::test]
async fn a_call_made_inside_a_traced_skill_continues_the_trace_with_a_span_of_its_own() {
    let server = start(Tracer.server()).await;
    let outer = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let inner = relayed(&server, Some(outer)).await;
    let (trace, parent) = inner.split_once('/').unwrap();
    assert_eq!(trace, "4bf92f3577b34da6a3ce929d0e0e4736", "{inner}");
    assert_ne!(
        parent, "00f067aa0ba902b7",
        "the outgoing call is a span of its own"
    );
    assert_eq!(relayed(&server, None).await, "untraced");
}

#[tokio::test]
async fn canceling_a_task_that_delegated_cancels_the_remote_task() {
    let lab = start(Lab.server()).await;
    let outer = start(Tracer.server()).await;
    let client = A2aClient::connect(&outer.base).await.unwrap();
    let options = no_wait();
    let input = json!({"url": lab.base, "skill": "wait", "input": {"millis": 30_000}});
    let delegating = task_of(
        client
            .send_with(call("delegate", input), options)
            .await
            .unwrap(),
    );
    // The delegated task runs on the lab agent, for the same (loopback) caller.
    let lab_client = A2aClient::connect(&lab.base).await.unwrap();
    let working = ListTasks {
        state: Some(TaskState::Working),
        ..ListTasks::default()
    };
    let remote = eventually(async || {
        let page = lab_client.list_tasks_page(&working, None).await.unwrap();
        page.tasks.into_iter().next()
    })
    .await;
    client.cancel_task(&delegating.id).await.unwrap();
    let settled = eventually(async || {
        let task = lab_client.get_task(&remote.id, None).await.unwrap();
        task.status.state.is_terminal().then_some(task)
    })
    .await;
    assert_eq!(settled.status.state, TaskState::Canceled, "{settled:?}");
}

#[tokio::test]
async fn a_delegated_tasks_progress_and_result_reach_the_caller() {
    let lab = start(Lab.server()).await;
    let outer = start(Tracer.server()).await;
    let client = A2aClient::connect(&outer.base).await.unwrap();
    let input = json!({"url": lab.base, "skill": "tick", "input": {"times": 3}});
    let events = all_events(
        client
            .send_streaming(call("delegate", input))
            .await
            .unwrap(),
    )
    .await;
    let relayed = events.iter().any(|e| {
        matches!(e, StreamEvent::Status(u)
            if u.metadata.as_ref().and_then(|m| m.get("progress")) == Some(&json!(3)))
    });
    assert!(relayed, "the remote progress is relayed: {events:#?}");
    assert_completed(&events);
    let StreamEvent::Task(first) = &events[0] else {
        panic!("the stream starts with the task");
    };
    let done = client.get_task(&first.id, None).await.unwrap();
    let texts: Vec<&PartContent> = done
        .artifacts
        .iter()
        .flat_map(|a| a.parts.iter().map(|p| &p.content))
        .collect();
    assert!(
        texts.contains(&&PartContent::Text("ticked 3 times".into())),
        "{done:?}"
    );
}

#[tokio::test]
async fn a_stream_outlives_the_call_timeout_and_a_slow_call_does_not() {
    let (proxy, base) = tracer_behind_a_proxy().await;
    let client = A2aClient::builder(&base)
        .timeout(std::time::Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .connect()
        .await
        .unwrap();
    // Four chunks 200 ms apart: the stream lasts well past the 300 ms call timeout.
    let events = all_events(
        client
            .send_streaming(call("drip", json!({"chunks": 4, "millis": 200})))
            .await
            .unwrap(),
    )
    .await;
    assert_completed(&events);
    assert_eq!(proxy.connections(), 1, "one connection, never renewed");
    // A call that takes longer than the timeout is abandoned.
    let slow = client
        .send(call("drip", json!({"chunks": 2, "millis": 400})))
        .await
        .unwrap_err();
    assert!(
        matches!(&slow, ClientError::Transport { source, .. } if source.is_timeout()),
        "{slow}"
    );
}

#[tokio::test]
async fn a_huge_card_a_huge_answer_and_a_silent_stream_end_in_clear_errors() {
    use futures::StreamExt as _;
    let base = a2a_tests::hostile::start().await;
    // A hang guard: each must fail long before the agent could send its gigabyte.
    let guard = std::time::Duration::from_secs(20);
    for card in ["huge", "declared"] {
        let connect = A2aClient::connect(format!("{base}/{card}"));
        let error = tokio::time::timeout(guard, connect)
            .await
            .unwrap()
            .unwrap_err();
        assert!(matches!(error, ClientError::Card { .. }), "{error}");
        assert!(
            error.to_string().contains("larger than 16777216 bytes"),
            "{error}"
        );
    }
    let client = A2aClient::builder(&base)
        .max_response_bytes(1024 * 1024)
        .stream_idle_timeout(std::time::Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    let sent = tokio::time::timeout(guard, client.send(call("echo", json!({"text": "x"}))));
    let error = sent.await.unwrap().unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::TooLarge {
                limit: 1_048_576,
                ..
            }
        ),
        "{error}"
    );
    let mut events = client
        .send_streaming(call("echo", json!({"text": "x"})))
        .await
        .unwrap();
    let last = tokio::time::timeout(guard, events.next()).await.unwrap();
    let error = last.unwrap().unwrap_err();
    assert!(matches!(error, ClientError::StreamIdle { .. }), "{error}");
    assert!(
        error.to_string().contains("sent nothing for 300ms"),
        "{error}"
    );
}
