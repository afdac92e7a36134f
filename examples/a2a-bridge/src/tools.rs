//! The bridge's tools: one skill each, named, parametrized and shaped as the `mcp-a2a` reference
//! has them.

use a2a_runtime::client::{
    AgentCard, ClientError, PushNotificationConfig, SendResult, Severity, StreamEvent,
};
use a2a_runtime::futures::StreamExt as _;
use a2a_runtime::prelude::*;
use a2a_runtime::serde_json::{Value, json};
use a2a_runtime::{Message, Task, model::TaskStatus};
use serde::Serialize;

use crate::registry::{AgentRecord, AgentSummary, PushRecord};
use crate::{Bridge, BridgeClient, cause, connect, request_failed, settled, shape};

/// The events a webhook may ask for.
const EVENTS: [&str; 2] = ["status_update", "artifact_update"];

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A short random suffix for ids.
fn suffix(len: usize) -> String {
    uuid::Uuid::new_v4().simple().to_string()[..len].to_owned()
}

/// `Currency Agent` → `currency_agent`.
fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('_') {
            slug.push('_');
        }
    }
    slug.trim_matches('_').to_owned()
}

/// What a failed card read is called in the reference.
fn card_error(base_url: &str, error: ClientError) -> SkillError {
    match error {
        ClientError::Card { .. } | ClientError::InvalidUrl { .. } => {
            SkillError::invalid_input(format!("No agent card found at {base_url}"))
        }
        ClientError::Transport { source, .. } => {
            SkillError::new(format!("Failed to resolve agent card: {}", cause(&source)))
        }
        other => SkillError::new(format!("Failed to resolve agent card: {other}")),
    }
}

/// Fetch an agent's card from its well-known URL and register it in the local registry.
///
/// Tries `{base_url}/.well-known/agent-card.json`, then the legacy `/.well-known/agent.json`,
/// and registers the agent as `connected` (again under the same `agent_id` if its base URL is
/// already registered). Answers the agent's record with its generated `agent_id`.
#[skill(agent = Bridge, id = "resolve_agent_card")]
pub async fn resolve_agent_card(
    bridge: State<Bridge>,
    /// Base URL of the remote agent (e.g. `http://localhost:8003`).
    base_url: String,
) -> Result<AgentRecord, SkillError> {
    let base_url = base_url.trim().trim_end_matches('/').to_owned();
    let client = connect(&base_url)
        .await
        .map_err(|e| card_error(&base_url, e))?;
    let card = client.card();
    let known = bridge.registry().agent_at(&base_url).await?;
    let now = now();
    let record = AgentRecord {
        agent_id: known.as_ref().map_or_else(
            || format!("agent_{}_{}", slug(&card.name), suffix(6)),
            |k| k.agent_id.clone(),
        ),
        name: card.name.clone(),
        base_url,
        status: "connected".into(),
        card: card.raw.clone(),
        auth_mode: card.security_schemes.first().cloned(),
        last_seen_at: now.clone(),
        created_at: known.map_or(now, |k| k.created_at),
    };
    bridge.registry().put_agent(&record).await?;
    bridge.remember(&record.agent_id, client);
    Ok(record)
}

/// A card's compliance, as `validate_agent_card` answers it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Validation {
    /// The agent's name.
    pub name: String,
    /// Its preferred endpoint.
    pub url: String,
    /// The A2A version its card is written for.
    pub protocol_version: String,
    /// Whether that is a version A2A defines (0.2, 0.3, 1.x).
    pub version_valid: bool,
    /// Whether it lists skills.
    pub has_skills: bool,
    /// How many.
    pub skill_count: usize,
    /// Whether it streams.
    pub streaming: bool,
    /// Whether it delivers push notifications.
    pub push_notifications: bool,
    /// `passed`, or `failed` when a finding is an error.
    pub validation: String,
    /// Every problem found: `severity` (`error`, `warning`), `field`, `message`.
    pub findings: Vec<Value>,
}

/// Fetch and validate an agent card for protocol compliance without registering it.
///
/// Checks the card against the A2A version it is written for (required fields, versions,
/// interfaces, skills, security schemes); `validation` is `failed` when a finding is an error.
#[skill(agent = Bridge, id = "validate_agent_card", read_only = true)]
pub async fn validate_agent_card(
    /// Base URL of the remote agent.
    base_url: String,
) -> Result<Validation, SkillError> {
    let base_url = base_url.trim().trim_end_matches('/').to_owned();
    let card = AgentCard::fetch(&base_url)
        .await
        .map_err(|e| card_error(&base_url, e))?;
    let findings = card.validate();
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    let text = |key: &str| card.raw.get(key).and_then(Value::as_str).map(str::to_owned);
    let first = card.interfaces.first();
    // The version of the interface a client would use (a card served to both generations also
    // states 0.3's), else the card's own.
    let protocol_version = card
        .preferred_interface()
        .map(|i| i.protocol_version.clone())
        .or_else(|| text("protocolVersion"))
        .unwrap_or_default();
    let version_valid = ["0.2.", "0.3", "1."]
        .iter()
        .any(|v| protocol_version.starts_with(v));
    Ok(Validation {
        name: card.name.clone(),
        url: text("url")
            .or_else(|| first.map(|i| i.url.clone()))
            .unwrap_or_default(),
        protocol_version,
        version_valid,
        has_skills: !card.skills.is_empty(),
        skill_count: card.skills.len(),
        streaming: card.capabilities.streaming,
        push_notifications: card.capabilities.push_notifications,
        validation: if failed { "failed" } else { "passed" }.into(),
        findings: findings
            .iter()
            .map(|f| {
                let severity = match f.severity {
                    Severity::Error => "error",
                    _ => "warning",
                };
                json!({ "severity": severity, "field": f.field, "message": f.message })
            })
            .collect(),
    })
}

/// Return all agents discovered so far (the registry persists across sessions).
#[skill(agent = Bridge, id = "list_remote_agents", read_only = true)]
pub async fn list_remote_agents(bridge: State<Bridge>) -> Result<Vec<AgentSummary>, SkillError> {
    let agents = bridge.registry().agents().await?;
    Ok(agents.into_iter().map(AgentSummary::from).collect())
}

/// Send a message to a registered remote agent and wait for its answer.
///
/// Sends the text with the A2A version and binding the agent's card offers (`SendMessage` in
/// 1.0, `message/send` in 0.3), records the task, and answers it with its `status.state` in
/// lower case and both its `artifacts` and its `history`, whichever the agent fills. An agent
/// that replies without a task answers `{"message": …}`. Calls time out after 60 s.
#[skill(agent = Bridge, id = "send_message")]
pub async fn send_message(
    bridge: State<Bridge>,
    /// Agent ID from `resolve_agent_card`.
    agent_id: String,
    /// Message text to send (a JSON object is read as the skill's input by agents built with
    /// a2a-runtime).
    text: String,
    /// The skill to call, by id (`metadata.skill`); the agent's default when omitted. Not in
    /// the reference: an agent with several skills needs it.
    skill: Option<String>,
) -> Result<Value, SkillError> {
    let (_, client) = bridge.agent_and_client(&agent_id).await?;
    match client
        .send(message(text, skill))
        .await
        .map_err(request_failed)?
    {
        SendResult::Task(task) => {
            bridge.registry().put_task(&agent_id, &task).await?;
            Ok(shape::task(&task))
        }
        SendResult::Message(reply) => Ok(json!({ "message": shape::message(&reply) })),
    }
}

/// Start a streaming task and return at once with its id.
///
/// The bridge follows the task's stream in the background and records each update; read it
/// with `get_task`, or follow it with `subscribe_to_task`. Webhooks configured for the agent
/// are registered on the task.
#[skill(agent = Bridge, id = "send_streaming_message")]
pub async fn send_streaming_message(
    bridge: State<Bridge>,
    /// Agent ID.
    agent_id: String,
    /// Message text.
    text: String,
    /// The skill to call, by id; the agent's default when omitted (as for `send_message`).
    skill: Option<String>,
) -> Result<Value, SkillError> {
    let (agent, client) = bridge.agent_and_client(&agent_id).await?;
    let mut events = client
        .send_streaming(message(text, skill))
        .await
        .map_err(request_failed)?;
    let task = match events.next().await {
        Some(Ok(StreamEvent::Task(task))) => *task,
        Some(Ok(StreamEvent::Message(reply))) => {
            return Ok(json!({ "message": shape::message(&reply), "streaming": false }));
        }
        Some(Ok(StreamEvent::Status(update))) => {
            task_of(update.task_id, update.context_id, update.status)
        }
        Some(Ok(StreamEvent::Artifact(update))) => {
            let working = TaskStatus::now(a2a_runtime::TaskState::Working, None);
            let mut task = task_of(update.task_id.clone(), update.context_id.clone(), working);
            crate::apply(&mut task, StreamEvent::Artifact(update));
            task
        }
        Some(Err(error)) => return Err(request_failed(error)),
        None => {
            return Err(SkillError::new(
                "Request failed: the stream ended before the task started",
            ));
        }
    };
    bridge.registry().put_task(&agent_id, &task).await?;
    bridge.push_to(&agent, &client, &task.id).await?;
    let state = shape::state(task.status.state);
    let task_id = task.id.clone();
    bridge.follow(agent_id, task, events);
    Ok(json!({
        "task_id": task_id,
        "status": { "state": state },
        "streaming": true,
        "message": "Task started. Use subscribe_to_task for streaming updates.",
    }))
}

/// A user message of `text`, naming `skill` if given.
fn message(text: String, skill: Option<String>) -> Message {
    let mut message = Message::user_text(text);
    if let Some(skill) = skill {
        message.metadata = Some(std::iter::once(("skill".to_owned(), json!(skill))).collect());
    }
    message
}

/// A task known only from an update.
fn task_of(id: String, context_id: String, status: TaskStatus) -> Task {
    Task {
        id,
        context_id,
        created_at: status.timestamp,
        status,
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    }
}

/// Retrieve a task by ID.
///
/// Answers the task as recorded; one still running is read from its agent first (and the
/// record updated), so its state is current.
#[skill(agent = Bridge, id = "get_task", read_only = true)]
pub async fn get_task(
    bridge: State<Bridge>,
    /// Task ID.
    task_id: String,
) -> Result<Value, SkillError> {
    let record = bridge.registry().task(&task_id).await?;
    if settled(record.task.status.state) {
        return Ok(shape::task(&record.task));
    }
    let (_, client) = bridge.agent_and_client(&record.agent_id).await?;
    let task = client
        .get_task(&task_id, None)
        .await
        .map_err(request_failed)?;
    bridge.registry().put_task(&record.agent_id, &task).await?;
    Ok(shape::task(&task))
}

/// List the tasks this bridge knows, the most recently updated first.
#[skill(agent = Bridge, id = "list_tasks", read_only = true)]
pub async fn list_tasks(
    bridge: State<Bridge>,
    /// Max tasks to return.
    limit: Option<u64>,
) -> Result<Vec<Value>, SkillError> {
    let limit = limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
    let records = bridge.registry().tasks(limit).await?;
    Ok(records
        .iter()
        .map(|record| {
            let mut task = shape::task(&record.task);
            task["agent_id"] = json!(record.agent_id);
            task
        })
        .collect())
}

/// Cancel a running task.
///
/// Asks the task's agent to cancel it and answers the state the agent reports.
#[skill(agent = Bridge, id = "cancel_task")]
pub async fn cancel_task(
    bridge: State<Bridge>,
    /// Task ID to cancel.
    task_id: String,
) -> Result<Value, SkillError> {
    let record = bridge.registry().task(&task_id).await?;
    let (_, client) = bridge.agent_and_client(&record.agent_id).await?;
    let task = client.cancel_task(&task_id).await.map_err(request_failed)?;
    bridge.registry().put_task(&record.agent_id, &task).await?;
    Ok(json!({ "task_id": task_id, "status": shape::state(task.status.state) }))
}

/// Subscribe to a task's streaming events.
///
/// The bridge follows the task until it settles and records each update (read it with
/// `get_task`). A task that has already ended answers `subscription: "ended"`.
#[skill(agent = Bridge, id = "subscribe_to_task")]
pub async fn subscribe_to_task(
    bridge: State<Bridge>,
    /// Task ID.
    task_id: String,
) -> Result<Value, SkillError> {
    let record = bridge.registry().task(&task_id).await?;
    let ended = |state| {
        json!({
            "task_id": task_id,
            "subscription": "ended",
            "current_state": shape::state(state),
            "message": "The task has ended; it sends no more events.",
        })
    };
    if settled(record.task.status.state) {
        return Ok(ended(record.task.status.state));
    }
    let (_, client) = bridge.agent_and_client(&record.agent_id).await?;
    let mut events = client.subscribe(&task_id).await.map_err(request_failed)?;
    let mut task = record.task;
    if let Some(first) = events.next().await {
        crate::apply(&mut task, first.map_err(request_failed)?);
    }
    bridge.registry().put_task(&record.agent_id, &task).await?;
    if settled(task.status.state) {
        return Ok(ended(task.status.state));
    }
    let state = shape::state(task.status.state);
    bridge.follow(record.agent_id, task, events);
    Ok(json!({
        "task_id": task_id,
        "subscription": "active",
        "current_state": state,
        "message": "Subscribed to task events.",
    }))
}

/// Create a webhook for an agent's task events.
///
/// The webhook is registered (as an A2A push notification config) on each of the agent's tasks
/// still running and on each task `send_streaming_message` starts later. A2A delivers every
/// update of a task to its webhooks: `events` is recorded, not filtered on. `active` is whether
/// the agent's card says it delivers push notifications.
#[skill(agent = Bridge, id = "configure_push_notifications")]
pub async fn configure_push_notifications(
    bridge: State<Bridge>,
    /// Agent to receive notifications for.
    agent_id: String,
    /// URL to POST events to.
    webhook_url: String,
    /// Event types (default: `["status_update", "artifact_update"]`).
    events: Option<Vec<String>>,
) -> Result<PushRecord, SkillError> {
    let agent = bridge.registry().agent(&agent_id).await?;
    let scheme = webhook_url.split_once("://").map(|(scheme, _)| scheme);
    if !matches!(scheme, Some("http" | "https")) {
        return Err(SkillError::invalid_input(format!(
            "webhook_url must be an http or https URL, got `{webhook_url}`"
        )));
    }
    let events = events.unwrap_or_else(|| EVENTS.map(str::to_owned).to_vec());
    if let Some(unknown) = events.iter().find(|e| !EVENTS.contains(&e.as_str())) {
        return Err(SkillError::invalid_input(format!(
            "events: `{unknown}` is not an event type; use status_update or artifact_update"
        )));
    }
    let client = bridge.client(&agent).await?;
    let push = PushRecord {
        config_id: format!("push_{}", suffix(8)),
        agent_id: agent_id.clone(),
        webhook_url,
        events,
        active: client.card().capabilities.push_notifications,
    };
    bridge.registry().put_push(&push).await?;
    if push.active {
        for record in bridge.registry().tasks(None).await? {
            if record.agent_id == agent_id && !settled(record.task.status.state) {
                let config = PushNotificationConfig::new(&record.task.id, &push.webhook_url);
                client
                    .set_push_config(&config)
                    .await
                    .map_err(request_failed)?;
            }
        }
    }
    Ok(push)
}

/// Fetch an agent's full record: its card (the extended card, when the agent offers one to
/// this bridge), auth mode and timestamps.
#[skill(agent = Bridge, id = "get_extended_agent_card", read_only = true)]
pub async fn get_extended_agent_card(
    bridge: State<Bridge>,
    /// Agent ID.
    agent_id: String,
) -> Result<AgentRecord, SkillError> {
    let (mut agent, client) = bridge.agent_and_client(&agent_id).await?;
    if client.card().capabilities.extended_agent_card {
        // The extended card needs credentials the bridge may not have: the public one stays.
        if let Ok(extended) = client.extended_card().await {
            agent.card = extended.raw;
        }
    }
    Ok(agent)
}

impl Bridge {
    /// Registers the webhooks configured for `agent` on its task `task_id`.
    async fn push_to(
        &self,
        agent: &AgentRecord,
        client: &a2a_runtime::client::A2aClient,
        task_id: &str,
    ) -> Result<(), SkillError> {
        for push in self.registry().pushes_of(&agent.agent_id).await? {
            if push.active {
                let config = PushNotificationConfig::new(task_id, &push.webhook_url);
                client
                    .set_push_config(&config)
                    .await
                    .map_err(request_failed)?;
            }
        }
        Ok(())
    }
}
