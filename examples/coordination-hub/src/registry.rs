//! Agent management: `register_agent`, `heartbeat`, `list_active_agents`, `unregister_agent`.
//! A registration is a lease on the session name that lapses unless renewed by heartbeats.

use std::collections::BTreeMap;

use a2a_runtime::prelude::*;
use a2a_runtime::records::{Lease, LeaseError};
use a2a_runtime::serde_json::json;
use chrono::{DateTime, Utc};

use crate::identity::{AgentData, holder};
use crate::liveness::Lost;
use crate::model::AgentInfo;
use crate::todos::TodoSummary;
use crate::{Hub, HubClient, checked, failure, store_failed};

/// What `register_agent` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Registered {
    /// `registered`.
    pub status: String,
    /// The project.
    pub project_id: String,
    /// The agent's session name.
    pub session_name: String,
    /// The other agents active in the project.
    pub other_active_agents: Vec<String>,
    /// What happened, for a person.
    pub message: String,
    /// When this session was reaped before (it made no call for longer than the heartbeat
    /// TTL), the reservations it lost then: another agent may hold them now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<Lost>,
}

/// Registers an agent with the hub. This must be the first call an agent makes, with a session
/// name it then uses in every call. Each call renews the registration; an agent that makes no
/// call for longer than the hub's heartbeat TTL (two minutes by default; `heartbeat` renews it
/// without doing anything else) is reaped and its file reservations released. Registering
/// again (same caller) updates the task, branch and description.
#[skill(agent = Hub)]
pub async fn register_agent(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// Unique session name for this agent (e.g. `task-001`).
    session_name: String,
    /// Task identifier.
    task_id: String,
    /// Git branch name.
    branch: String,
    /// Brief description of the task.
    description: String,
) -> Result<Registered, SkillError> {
    let project_id = hub.project(project_id)?;
    checked("session_name", &session_name)?;
    let data = AgentData {
        task_id,
        branch,
        description,
    };
    let who = holder(&caller, &session_name);
    let lost = hub.take_lost(&project_id, &session_name).await?;
    let ttl = hub.settings().heartbeat_ttl;
    match hub
        .agents(&project_id)
        .acquire(&session_name, &who, ttl, &data)
        .await
    {
        Ok(_) => {}
        Err(LeaseError::Held { expires_at, .. }) => {
            return Err(failure(
                "conflict",
                format!("Session {session_name} is registered by another caller"),
                json!({ "expires_at": expires_at }),
            ));
        }
        Err(other) => return Err(store_failed(other)),
    }
    hub.tether(&project_id, &session_name, Some(&who));
    hub.attach(&project_id, &session_name).await?;
    let others: Vec<String> = active(&hub, &project_id)
        .await?
        .into_keys()
        .filter(|name| *name != session_name)
        .collect();
    let mut message = format!(
        "Successfully registered. {} other agents are active in this project.",
        others.len()
    );
    if let Some(lost) = &lost {
        message = format!("{message} {}", lost.notice(&session_name));
    }
    Ok(Registered {
        status: "registered".into(),
        message,
        project_id,
        session_name,
        other_active_agents: others,
        lost,
    })
}

/// What `heartbeat` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Heartbeat {
    /// `ok`.
    pub status: String,
    /// When the hub received it.
    pub timestamp: DateTime<Utc>,
    /// When the agent is reaped unless it sends another.
    pub expires_at: DateTime<Utc>,
}

/// Sends a keep-alive signal. Every call of a registered agent renews its registration, so call
/// this only when making no other call for longer than the hub's heartbeat TTL (two minutes by
/// default): an agent silent past it is reaped, its file reservations released.
#[skill(agent = Hub)]
pub async fn heartbeat(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
) -> Result<Heartbeat, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting_unrenewed(&caller, &project_id, &session_name)
        .await?;
    let who = holder(&caller, &session_name);
    let renewed: Lease<AgentData> = match hub
        .agents(&project_id)
        .renew(&session_name, &who, hub.settings().heartbeat_ttl)
        .await
    {
        Ok(renewed) => renewed,
        // Reaped between the check and the renewal: told what it lost, as any call is.
        Err(LeaseError::NotHeld { .. }) => {
            return Err(hub.unregistered(&project_id, &session_name).await);
        }
        Err(other) => return Err(store_failed(other)),
    };
    Ok(Heartbeat {
        status: "ok".into(),
        timestamp: crate::now(),
        expires_at: renewed.expires_at,
    })
}

/// Gets all currently active agents in the project, by session name.
#[skill(agent = Hub, read_only = true)]
pub async fn list_active_agents(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<BTreeMap<String, AgentInfo>, SkillError> {
    let project_id = hub.project(project_id)?;
    active(&hub, &project_id).await
}

/// What `unregister_agent` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Unregistered {
    /// `unregistered`.
    pub status: String,
    /// The agent's todos when it left.
    pub todo_summary: TodoSummary,
    /// What happened, for a person.
    pub message: String,
}

/// Unregisters an agent when its task is complete: its file reservations are released and its
/// todos summarized (and removed).
#[skill(agent = Hub)]
pub async fn unregister_agent(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
) -> Result<Unregistered, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    let summary = hub.clear_todos(&project_id, &session_name).await?;
    hub.release_all(&project_id, &session_name).await?;
    hub.tether(&project_id, &session_name, None);
    let who = holder(&caller, &session_name);
    hub.agents(&project_id)
        .release(&session_name, &who)
        .await
        .map_err(store_failed)?;
    Ok(Unregistered {
        status: "unregistered".into(),
        message: format!(
            "Successfully unregistered. Completed {}/{} todos.",
            summary.completed, summary.total
        ),
        todo_summary: summary,
    })
}

/// The active agents of `project`, by session name.
pub(crate) async fn active(
    hub: &Hub,
    project: &str,
) -> Result<BTreeMap<String, AgentInfo>, SkillError> {
    let leases: Vec<Lease<AgentData>> = hub.agents(project).list().await.map_err(store_failed)?;
    Ok(leases
        .into_iter()
        .map(|lease| {
            let info = AgentInfo {
                task_id: lease.data.task_id,
                branch: lease.data.branch,
                description: lease.data.description,
                status: "active".into(),
                started_at: lease.acquired_at,
                expires_at: lease.expires_at,
            };
            (lease.key, info)
        })
        .collect())
}
