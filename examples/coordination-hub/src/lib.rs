//! The coordination hub: an MCP server (and A2A agent) that parallel AI coding agents working on
//! one repository call to stay out of each other's way. Its 18 tools are those of the A2AMCP
//! reference this project started from, with its names, parameters and meanings: agents register
//! and send heartbeats (silent ones are reaped and their reservations released), keep todos, ask
//! each other questions (and really wait for the answer), read an inbox, broadcast, reserve files
//! (paths or globs, exclusive or shared, expiring), see recent changes, and share interfaces.
//! Everything is scoped by `project_id`. Five skills are the hub's own: `follow_inbox` streams
//! an agent's new messages to it as they arrive, so A2A callers need not poll; `check_file` and
//! `check_files` say who holds files without reserving them; `check_branch` compares an
//! agent's git branch with the others' before anyone merges ([`check_branch`]);
//! `project_overview` shows the project at a glance.
//!
//! Everything is kept in the SDK's [`Records`]: a SQLite file under the data directory by default,
//! which the stdio servers coding agents start for themselves share, or Postgres
//! (`--store postgres://…`), through which several hub replicas coordinate. The inbox of each
//! agent is a resource (`hub://projects/{project_id}/inbox/{session_name}`) that clients
//! subscribe to, so new messages are pushed to them.
//!
//! Install: `cargo install --locked --path examples/coordination-hub` (`--features postgres`
//! for replicas on Postgres); then `coordination-hub init` in a repository writes the MCP
//! hosts' configuration that starts it with `--stdio` ([`commands`]); without `--stdio` it
//! serves MCP at `/mcp` (and A2A) over HTTP for many agents, with a page at `/hub` for the
//! person overseeing them ([`overview_page`]). Every call keeps its agent registered, and a
//! stdio registration lives with its process (`liveness`, `process`).

pub mod client;
mod command_line;
pub mod commands;
mod delivery;
mod files;
mod follow;
mod git;
pub mod glob;
mod guidance;
mod holders;
mod identity;
mod interfaces;
mod liveness;
mod messages;
pub mod model;
mod overview;
mod page;
pub mod paths;
mod preflight;
mod process;
mod registry;
pub mod repository;
mod reservations;
mod settings;
mod todos;

use a2a_runtime::prelude::*;
use a2a_runtime::records::Records;
use a2a_runtime::serde_json::{Value, json};

pub use client::FileLock;
pub use command_line::serve_from_command_line;
pub use files::*;
pub use holders::*;
pub use interfaces::*;
pub use liveness::Lost;
pub use messages::*;
pub use overview::*;
pub use page::overview_page;
pub use paths::PathRules;
pub use preflight::*;
pub use registry::*;
pub use settings::Settings;
pub use todos::*;

/// Coordinates parallel AI coding agents working on one repository: registration and
/// heartbeats, todos, questions between agents, inboxes and broadcasts, file reservations, and
/// shared interface definitions, per project.
#[agent(
    name = "Coordination Hub",
    provider(organization = "a2a-runtime", url = "https://a2a-protocol.org"),
    instructions = "This hub coordinates the AI coding agents working on this repository at the same time. Follow its protocol:
1. First call `register_agent` with a session name unique to you (your task id, say) and use that `session_name` in every call. `project_id` may be omitted: the hub was started for this repository.
2. Before editing a file, call `announce_file_change` with its path (or a glob such as `src/api/**`). If the answer is a `conflict`, do not edit it: the answer names the agent holding it; ask it with `query_agent`, or work on something else first.
3. Call `release_file_lock` as soon as you are done with a file.
4. Between steps, call `check_messages`, and answer each query that `requires_response` with `respond_to_query`.
5. Each call keeps you registered. If you will make no call for longer than two minutes, call `heartbeat` first. If a call says you were reaped, register again and announce the files you still need before editing them.
6. When your task is done, call `unregister_agent`: it releases everything you hold.
Prompts `start_task`, `status` and `finish_task` walk you through these steps."
)]
#[derive(Debug, Clone)]
pub struct Hub {
    records: Records,
    settings: Settings,
    /// One turn at a time per project at changing its reservations in this process, so its
    /// agents queue instead of racing each other's compare-and-set; the record's version still
    /// arbitrates between processes and replicas.
    turns: reservations::Turns,
    /// The project of calls that name none (`--project`, `HUB_PROJECT_ID`).
    default_project: Option<String>,
    /// Over stdio, the sessions registered through this process (`process`).
    tethered: Option<process::Tethered>,
    /// The registrations being renewed in this process (`liveness`).
    renewals: liveness::Renewals,
    /// The checkout a stdio hub was started in, whose branch `check_branch` compares.
    checkout: Option<repository::Checkout>,
}

impl Hub {
    /// The hub over `records`.
    pub fn new(records: Records, settings: Settings) -> Self {
        Self {
            records,
            settings,
            turns: reservations::Turns::default(),
            default_project: None,
            tethered: None,
            renewals: liveness::Renewals::default(),
            checkout: None,
        }
    }

    /// The hub with `project` as the project of calls that name none (an MCP host starts one
    /// hub per repository, so its agents need not repeat it); refused unless it is a valid
    /// project id.
    pub fn with_default_project(mut self, project: impl Into<String>) -> Result<Self, SkillError> {
        let project = project.into();
        checked("project_id", &project)?;
        self.default_project = Some(project);
        Ok(self)
    }

    /// The project of calls that name none, if the hub has one.
    pub fn default_project(&self) -> Option<&str> {
        self.default_project.as_deref()
    }

    /// The project a call names, checked, or the hub's default when it names none.
    pub(crate) fn project(&self, named: Option<String>) -> Result<String, SkillError> {
        match named.or_else(|| self.default_project.clone()) {
            Some(project) => checked("project_id", &project).map(str::to_owned),
            None => Err(SkillError::invalid_input(
                "`project_id` is missing, and this hub has no default project (start it with \
                 `--project NAME` or `HUB_PROJECT_ID`)",
            )),
        }
    }

    /// Where the hub keeps everything.
    pub fn records(&self) -> &Records {
        &self.records
    }

    /// Its settings.
    pub fn settings(&self) -> Settings {
        self.settings
    }
}

/// The collections of one project.
pub(crate) mod collection {
    /// Registered agents, as leases by session name.
    pub(crate) fn agents(project: &str) -> String {
        format!("hub/{project}/agents")
    }

    /// The stdio processes each session is registered through, by `{session}/{process}`
    /// (`process`): a session two windows run stays while either is open.
    pub(crate) fn attached(project: &str) -> String {
        format!("hub/{project}/attached")
    }

    /// Every agent's todos, by `{session}/{todo id}`.
    pub(crate) fn todos(project: &str) -> String {
        format!("hub/{project}/todos")
    }

    /// One agent's messages, by message id.
    pub(crate) fn inbox(project: &str, session: &str) -> String {
        format!("hub/{project}/inbox/{session}")
    }

    /// Answers to queries, by the query's message id.
    pub(crate) fn answers(project: &str) -> String {
        format!("hub/{project}/answers")
    }

    /// The project's file reservations, one record.
    pub(crate) fn reservations(project: &str) -> String {
        format!("hub/{project}/reservations")
    }

    /// Announced file changes.
    pub(crate) fn changes(project: &str) -> String {
        format!("hub/{project}/changes")
    }

    /// What lapsed agents lost, by session, until they are told.
    pub(crate) fn losses(project: &str) -> String {
        format!("hub/{project}/losses")
    }

    /// Shared interfaces, by name.
    pub(crate) fn interfaces(project: &str) -> String {
        format!("hub/{project}/interfaces")
    }
}

/// A failure the reference reports with a `status` (`conflict`, `not_found`, `timeout`,
/// `forbidden`): the message, and the status with `details` as the error's structured data.
pub(crate) fn failure(status: &str, message: String, details: Value) -> SkillError {
    let mut data = json!({ "status": status, "error": message });
    if let (Some(data), Value::Object(details)) = (data.as_object_mut(), details) {
        data.extend(details);
    }
    SkillError::new(message).with_data(data)
}

/// The records failed: the hub cannot answer.
pub(crate) fn store_failed(error: impl std::fmt::Display) -> SkillError {
    SkillError::new(format!("the hub's records failed: {error}"))
}

/// Checks a project id, session, todo, message or interface name (`field` names it): 1 to 128
/// letters, digits, `.`, `_` or `-`, and not `.` or `..`, so it is safe in keys and resource
/// URIs.
pub(crate) fn checked<'a>(field: &str, value: &'a str) -> Result<&'a str, SkillError> {
    // `.` and `..` are path segments in the resource URIs these names appear in.
    let ok = !value.is_empty()
        && value.len() <= 128
        && value != "."
        && value != ".."
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(value)
    } else {
        Err(SkillError::invalid_input(format!(
            "`{field}` must be 1 to 128 letters, digits, `.`, `_` or `-` (not `.` or `..`); got {value:?}"
        )))
    }
}

/// The time now.
pub(crate) fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

/// A new id with `prefix` (`msg`, `todo`), unique and sortable by time.
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::now_v7().simple())
}

pub use follow::follow;
