//! What the person overseeing the agents looks at: `project_overview`, each active agent with
//! what it holds, its open todos and the questions it has not answered. `coordination-hub
//! status` prints it; the hub's page at `/hub` shows it.

use std::collections::HashSet;

use a2a_runtime::prelude::*;
use a2a_runtime::records::Entry;
use chrono::{DateTime, Utc};

use crate::model::{InboxMessage, MessageKind, Reservation, Todo, TodoStatus};
use crate::registry::active;
use crate::todos::by_session;
use crate::{Hub, HubClient, collection, store_failed};

/// A project at a glance.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Overview {
    /// The project.
    pub project_id: String,
    /// Its active agents, by session name.
    pub agents: Vec<AgentOverview>,
}

/// One active agent at a glance.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AgentOverview {
    /// Its session name.
    pub session_name: String,
    /// Its task.
    pub task_id: String,
    /// Its git branch.
    pub branch: String,
    /// What it is doing.
    pub description: String,
    /// When it registered.
    pub started_at: DateTime<Utc>,
    /// When it is reaped unless it calls again.
    pub expires_at: DateTime<Utc>,
    /// The reservations it holds.
    pub reservations: Vec<Reservation>,
    /// Its todos not completed, by priority.
    pub todos: Vec<Todo>,
    /// Questions other agents asked it that it has not answered, oldest first.
    pub unanswered: Vec<InboxMessage>,
}

/// The project at a glance, for the person overseeing its agents: each active agent with the
/// reservations it holds, its open todos and the questions it has not answered.
#[skill(agent = Hub, read_only = true)]
pub async fn project_overview(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<Overview, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.overview(&project_id).await
}

impl Hub {
    /// `project_overview`, for callers in this process (`coordination-hub status` over the
    /// shared data directory).
    pub async fn overview(&self, project: &str) -> Result<Overview, SkillError> {
        let reservations = self.reservations(project).await?;
        let mut todos = by_session(self, project).await?;
        let answered: HashSet<String> = self
            .records()
            .entries::<a2a_runtime::serde_json::Value>(&collection::answers(project), None)
            .await
            .map_err(store_failed)?
            .into_iter()
            .map(|entry| entry.key)
            .collect();
        let mut agents = Vec::new();
        for (session, info) in active(self, project).await? {
            let inbox: Vec<Entry<InboxMessage>> = self
                .records()
                .entries(&collection::inbox(project, &session), None)
                .await
                .map_err(store_failed)?;
            let mut unanswered: Vec<InboxMessage> = inbox
                .into_iter()
                .map(|entry| entry.value)
                .filter(|m| {
                    m.kind == MessageKind::Query && m.requires_response && !answered.contains(&m.id)
                })
                .collect();
            unanswered.reverse();
            let open = todos
                .remove(&session)
                .unwrap_or_default()
                .into_iter()
                .filter(|todo| todo.status != TodoStatus::Completed)
                .collect();
            agents.push(AgentOverview {
                reservations: reservations
                    .iter()
                    .filter(|r| r.session == session)
                    .cloned()
                    .collect(),
                session_name: session,
                task_id: info.task_id,
                branch: info.branch,
                description: info.description,
                started_at: info.started_at,
                expires_at: info.expires_at,
                todos: open,
                unanswered,
            });
        }
        Ok(Overview {
            project_id: project.to_owned(),
            agents,
        })
    }
}

impl Overview {
    /// The overview as a plain-text table: one block per agent, its reservations, open todos
    /// and unanswered questions under it.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "project {}: {} active agent(s)\n",
            self.project_id,
            self.agents.len()
        );
        for agent in &self.agents {
            text.push_str(&format!(
                "\n{}  [{}] {}  (task {}, expires {})\n",
                agent.session_name,
                agent.branch,
                agent.description,
                agent.task_id,
                agent.expires_at.format("%H:%M:%S")
            ));
            for r in &agent.reservations {
                let mode = match r.mode {
                    crate::model::ReservationMode::Exclusive => "exclusive",
                    crate::model::ReservationMode::Shared => "shared",
                };
                text.push_str(&format!(
                    "  holds     {}  ({mode}, {}: {}; until {})\n",
                    r.file_path,
                    r.change_type,
                    r.description,
                    r.expires_at.format("%H:%M:%S")
                ));
            }
            for todo in &agent.todos {
                let status = a2a_runtime::serde_json::to_value(todo.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                text.push_str(&format!("  todo      [{status}] {}\n", todo.text));
            }
            for question in &agent.unanswered {
                text.push_str(&format!(
                    "  asked     by {}: {} ({})\n",
                    question.from, question.content, question.id
                ));
            }
        }
        text
    }
}
