//! Push notification configs of a remote agent's tasks: create, read, list and delete.

use serde_json::{Map, Value, json};

use super::{A2aClient, ClientError};
use crate::model::PushAuthentication;
use crate::protocol::a2a::push;

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

    /// The A2A 1.0 `TaskPushNotificationConfig`.
    fn to_wire(&self) -> Value {
        let mut out = Map::new();
        out.insert("taskId".into(), json!(self.task_id));
        out.insert("url".into(), json!(self.url));
        if let Some(id) = &self.id {
            out.insert("id".into(), json!(id));
        }
        if let Some(token) = &self.token {
            out.insert("token".into(), json!(token));
        }
        if let Some(authentication) = &self.authentication {
            let mut auth = Map::new();
            let scheme = authentication.schemes.first().cloned().unwrap_or_default();
            auth.insert("scheme".into(), json!(scheme));
            if let Some(credentials) = &authentication.credentials {
                auth.insert("credentials".into(), json!(credentials));
            }
            out.insert("authentication".into(), Value::Object(auth));
        }
        Value::Object(out)
    }

    /// A config an agent answered with (at `path`), for task `task_id` unless it names one.
    fn read(value: Value, path: &str, task_id: &str) -> Result<Self, ClientError> {
        let config = push::v1::config_in(value, path)?;
        let url = config.url.ok_or_else(|| ClientError::InvalidResponse {
            field: format!("{path}.url"),
            reason: "is required".into(),
        })?;
        Ok(Self {
            task_id: config.task_id.unwrap_or_else(|| task_id.to_owned()),
            id: config.id,
            url,
            token: config.token,
            authentication: config.authentication,
        })
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
        let result = self
            .rpc
            .call(
                &self.http,
                "CreateTaskPushNotificationConfig",
                config.to_wire(),
            )
            .await?;
        PushNotificationConfig::read(result, "result", &config.task_id)
    }

    /// One config of a task.
    pub async fn get_push_config(
        &self,
        task_id: &str,
        id: &str,
    ) -> Result<PushNotificationConfig, ClientError> {
        let params = json!({ "taskId": task_id, "id": id });
        let result = self
            .rpc
            .call(&self.http, "GetTaskPushNotificationConfig", params)
            .await?;
        PushNotificationConfig::read(result, "result", task_id)
    }

    /// Every config of a task, following the agent's pages.
    pub async fn list_push_configs(
        &self,
        task_id: &str,
    ) -> Result<Vec<PushNotificationConfig>, ClientError> {
        let mut configs = Vec::new();
        let mut token = String::new();
        for _ in 0..MAX_CONFIG_PAGES {
            let mut params = json!({ "taskId": task_id });
            if !token.is_empty() {
                params["pageToken"] = json!(token);
            }
            let result = self
                .rpc
                .call(&self.http, "ListTaskPushNotificationConfigs", params)
                .await?;
            let page = result
                .get("configs")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (i, config) in page.into_iter().enumerate() {
                let path = format!("result.configs[{i}]");
                configs.push(PushNotificationConfig::read(config, &path, task_id)?);
            }
            let next = result
                .get("nextPageToken")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if next.is_empty() {
                return Ok(configs);
            }
            token = next.to_owned();
        }
        Err(ClientError::InvalidResponse {
            field: "result.nextPageToken".into(),
            reason: format!("still names a next page after {MAX_CONFIG_PAGES} pages"),
        })
    }

    /// Removes a config of a task.
    pub async fn delete_push_config(&self, task_id: &str, id: &str) -> Result<(), ClientError> {
        let params = json!({ "taskId": task_id, "id": id });
        self.rpc
            .call(&self.http, "DeleteTaskPushNotificationConfig", params)
            .await?;
        Ok(())
    }
}
