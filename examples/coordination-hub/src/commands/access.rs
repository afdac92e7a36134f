//! The hub a command talks to: an HTTP hub's MCP endpoint (`--hub URL`), or the records the
//! stdio hubs of this machine share (`--data-dir`, the default data directory otherwise),
//! opened in this process.

use std::path::PathBuf;

use a2a_runtime::client::{ClientError, McpCredential, SkillClient};
use a2a_runtime::prelude::*;
use a2a_runtime::serde_json::Value;
use a2a_runtime::server::ServeConfig;

use crate::repository::default_project;
use crate::{Announcement, FileCheck, HeldFile, Hub, HubClient, Locked, Overview, Settings};

/// Where the hub is, and the project: the flags every command beside `init` shares.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct HubArgs {
    /// The project [default: the repository's name, which all its worktrees share]
    #[arg(long, env = "HUB_PROJECT_ID")]
    pub(crate) project: Option<String>,
    /// An HTTP hub's MCP endpoint (`http://127.0.0.1:8080/mcp`)
    #[arg(long, env = "HUB_URL", conflicts_with = "data_dir")]
    hub: Option<String>,
    /// The data directory the stdio hubs share [default: `A2A_DATA_DIR`, else the default data
    /// directory]
    #[arg(long, env = "HUB_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// A bearer token for `--hub`, when it asks who calls (the session's agent's own, since a
    /// session belongs to the caller that registered it)
    #[arg(
        long,
        env = "HUB_TOKEN",
        conflicts_with = "api_key",
        hide_env_values = true
    )]
    token: Option<String>,
    /// The environment variable holding the bearer token for `--hub` (what `init --hub
    /// --token-env VAR` writes into the hooks: the variable's name, never the token); before
    /// `--token` and `--api-key`, which may come from the same environment
    #[arg(long)]
    token_env: Option<String>,
    /// An API key for `--hub`, sent as `X-API-Key` (the session's agent's own)
    #[arg(long, env = "HUB_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
}

/// A refusal from the hub: its message, and its structured details (`status`, the holder…).
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl Refusal {
    /// The hub's `status` for it (`conflict`, `not_found`…), if it said one.
    pub(crate) fn status(&self) -> Option<&str> {
        self.data.as_ref()?.get("status")?.as_str()
    }
}

impl From<SkillError> for Refusal {
    fn from(error: SkillError) -> Self {
        Self {
            message: error.message().to_owned(),
            data: error.data().cloned(),
        }
    }
}

impl From<ClientError> for Refusal {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::SkillFailed { message, data, .. } => Self { message, data },
            other => Self {
                message: other.to_string(),
                data: None,
            },
        }
    }
}

/// A hub, over MCP or in this process.
pub(crate) enum Access {
    Remote(HubClient),
    Local(Hub),
}

impl HubArgs {
    /// The project: `--project`, else the repository's `cwd` is in (shared by its worktrees).
    pub(crate) fn project(&self, cwd: &std::path::Path) -> String {
        self.project.clone().unwrap_or_else(|| default_project(cwd))
    }

    /// Connects to the hub these flags name; in this process, with the settings the stdio hubs
    /// of `project` left (an HTTP hub applies its own).
    pub(crate) async fn open(&self, project: &str) -> Result<Access, Refusal> {
        if let Some(url) = &self.hub {
            let named_token = match &self.token_env {
                Some(var) => Some(std::env::var(var).map_err(|_| Refusal {
                    message: format!("--token-env: the environment variable {var} is not set"),
                    data: None,
                })?),
                None => self.token.clone(),
            };
            let credential = match (named_token, &self.api_key) {
                (Some(token), _) => Some(McpCredential::Bearer(token)),
                (None, Some(key)) => Some(McpCredential::Header("X-API-Key".into(), key.clone())),
                (None, None) => None,
            };
            let skills = match credential {
                Some(credential) => SkillClient::connect_mcp_as(url.clone(), credential).await?,
                None => SkillClient::connect_mcp(url.clone()).await?,
            };
            return Ok(Access::Remote(HubClient::from_skills(skills)));
        }
        let mut config = ServeConfig::default();
        // The stdio hubs' own: `--data-dir` (`HUB_DATA_DIR`), else the server's `A2A_DATA_DIR`
        // they read too, else the default.
        config.data_dir = self
            .data_dir
            .clone()
            .or_else(|| std::env::var_os("A2A_DATA_DIR").map(PathBuf::from));
        let records = config
            .open_records(Hub::descriptor().name())
            .await
            .map_err(|e| Refusal {
                message: e.to_string(),
                data: None,
            })?;
        let settings = Settings::saved(&records, project).await;
        Ok(Access::Local(Hub::new(records, settings)))
    }
}

impl Access {
    /// `check_file`.
    pub(crate) async fn check_file(
        &self,
        project: &str,
        session: &str,
        path: &str,
    ) -> Result<FileCheck, Refusal> {
        Ok(match self {
            Access::Remote(hub) => {
                hub.check_file(Some(project.into()), session.into(), path.into())
                    .await?
            }
            Access::Local(hub) => hub.check_file(project, session, path).await?,
        })
    }

    /// `check_files`: which of `paths` another agent holds.
    pub(crate) async fn held(
        &self,
        project: &str,
        session: &str,
        paths: Vec<String>,
    ) -> Result<Vec<HeldFile>, Refusal> {
        Ok(match self {
            Access::Remote(hub) => {
                hub.check_files(Some(project.into()), session.into(), paths)
                    .await?
                    .held
            }
            Access::Local(hub) => hub.held_by_others(project, session, &paths).await?,
        })
    }

    /// `announce_file_change`, acting as the announcement's session.
    pub(crate) async fn announce(&self, announcement: Announcement) -> Result<Locked, Refusal> {
        Ok(match self {
            Access::Remote(hub) => {
                hub.announce_file_change(
                    Some(announcement.project),
                    announcement.session,
                    announcement.file_path,
                    announcement.change_type,
                    announcement.description,
                    Some(announcement.mode),
                    announcement.ttl.map(|ttl| ttl.as_secs()),
                )
                .await?
            }
            // The stdio hubs serve anonymous callers, who act as the session they name.
            Access::Local(hub) => hub.announce(&Caller::anonymous(), announcement).await?,
        })
    }

    /// `project_overview`.
    pub(crate) async fn overview(&self, project: &str) -> Result<Overview, Refusal> {
        Ok(match self {
            Access::Remote(hub) => hub.project_overview(Some(project.into())).await?,
            Access::Local(hub) => hub.overview(project).await?,
        })
    }
}
