//! Push notification configs of a remote agent's tasks: create, read, list and delete.

use super::dialect::Op;
use super::{A2aClient, ClientError};
use a2a_runtime_types::model::PushAuthentication;

/// A webhook for one task's updates, as sent to an agent or read back from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushNotificationConfig {
    /// The task whose updates are pushed.
    pub task_id: String,
    /// The config's id; `None` when creating lets the agent choose one.
    pub id: Option<String>,
    /// Where updates are POSTed.
    pub url: String,
    /// A token the receiver checks (`X-A2A-Notification-Token`).
    pub token: Option<String>,
    /// How the agent authenticates to the receiver. Agents never echo credentials: read back,
    /// they are redacted.
    pub authentication: Option<PushAuthentication>,
}

impl PushNotificationConfig {
    /// A config pushing task `task_id`'s updates to `url`.
    pub fn new(task_id: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            id: None,
            url: url.into(),
            token: None,
            authentication: None,
        }
    }
}

/// The most pages of configs a listing follows: a task holds a bounded number of configs, so
/// more means a server that keeps answering the same page.
const MAX_CONFIG_PAGES: usize = 1_000;

impl A2aClient {
    /// Registers a webhook for a task's updates; the config as the agent stored it (with its
    /// id).
    pub async fn set_push_config(
        &self,
        config: &PushNotificationConfig,
    ) -> Result<PushNotificationConfig, ClientError> {
        let dialect = self.rpc.dialect();
        let params = dialect.push_set(config);
        let result = self.rpc.call(&self.http, Op::PushSet, params).await?;
        dialect.push_config(result, "result", &config.task_id)
    }

    /// One config of a task.
    pub async fn get_push_config(
        &self,
        task_id: &str,
        id: &str,
    ) -> Result<PushNotificationConfig, ClientError> {
        let dialect = self.rpc.dialect();
        let params = dialect.push_ref(task_id, id);
        let result = self.rpc.call(&self.http, Op::PushGet, params).await?;
        dialect.push_config(result, "result", task_id)
    }

    /// Every config of a task, following the agent's pages.
    pub async fn list_push_configs(
        &self,
        task_id: &str,
    ) -> Result<Vec<PushNotificationConfig>, ClientError> {
        let dialect = self.rpc.dialect();
        let mut configs = Vec::new();
        let mut token = String::new();
        for _ in 0..MAX_CONFIG_PAGES {
            let params = dialect.push_list(task_id, &token);
            let result = self.rpc.call(&self.http, Op::PushList, params).await?;
            let (page, next) = dialect.push_page(result);
            for (i, config) in page.into_iter().enumerate() {
                let path = format!("result.configs[{i}]");
                configs.push(dialect.push_config(config, &path, task_id)?);
            }
            if next.is_empty() {
                return Ok(configs);
            }
            token = next;
        }
        Err(ClientError::InvalidResponse {
            field: "result.nextPageToken".into(),
            reason: format!("still names a next page after {MAX_CONFIG_PAGES} pages"),
        })
    }

    /// Removes a config of a task.
    pub async fn delete_push_config(&self, task_id: &str, id: &str) -> Result<(), ClientError> {
        let params = self.rpc.dialect().push_ref(task_id, id);
        self.rpc.call(&self.http, Op::PushDelete, params).await?;
        Ok(())
    }
}
