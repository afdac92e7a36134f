//! Push notification configs on the wire, per version (a2a-spec.md §4, §6): A2A 1.0's flat
//! `TaskPushNotificationConfig`, 0.3's `{taskId, pushNotificationConfig}` (JSON-RPC) and
//! `{name, pushNotificationConfig}` (its proto, over HTTP+JSON), and the early draft's
//! `{id, pushNotificationConfig}`. Outputs are always redacted: credentials are never echoed.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::model::{PushAuthentication, PushConfig};

/// A config as a request carried it, before validation: the task it names (if it names one)
/// and the fields given.
#[derive(Debug, Default, Clone)]
pub struct PushConfigIn {
    pub task_id: Option<String>,
    pub id: Option<String>,
    pub url: Option<String>,
    pub token: Option<String>,
    pub authentication: Option<PushAuthentication>,
}

/// `{scheme, credentials}` (1.0) or `{schemes, credentials}` (0.3, the draft): both read.
#[derive(Deserialize, Default)]
struct AuthenticationIn {
    #[serde(default)]
    scheme: Option<String>,
    #[serde(default)]
    schemes: Vec<String>,
    #[serde(default)]
    credentials: Option<String>,
}

impl AuthenticationIn {
    fn into_model(self) -> PushAuthentication {
        let mut schemes = self.schemes;
        if let Some(scheme) = self.scheme {
            schemes.insert(0, scheme);
        }
        PushAuthentication {
            schemes,
            credentials: self.credentials,
        }
    }
}

/// The config fields every version shares.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ConfigFields {
    #[serde(default)]
    id: Option<String>,
    #[serde(default, alias = "task_id")]
    task_id: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    authentication: Option<AuthenticationIn>,
}

impl ConfigFields {
    fn into_input(self) -> PushConfigIn {
        PushConfigIn {
            task_id: self.task_id,
            id: self.id.filter(|id| !id.is_empty()),
            url: self.url,
            token: self.token,
            authentication: self.authentication.map(AuthenticationIn::into_model),
        }
    }
}

fn fields(value: Value, path: &str) -> Result<ConfigFields, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        let field = match (path.is_empty(), at.as_str()) {
            (true, _) => at.clone(),
            (false, ".") => path.to_owned(),
            (false, _) => format!("{path}.{at}"),
        };
        (field, e.into_inner().to_string())
    })
}

/// What a config's output says of its credentials: that there are some, never what they are.
pub(crate) fn redacted_credentials(authentication: &PushAuthentication) -> Option<&'static str> {
    authentication
        .credentials
        .as_ref()
        .map(|_| crate::model::REDACTED)
}

/// A2A 1.0.
pub mod v1 {
    use super::{Deserialize, Map, PushConfig, PushConfigIn, Value, fields, json};

    /// A flat `TaskPushNotificationConfig` (Create's params, or an inline config at `path`).
    /// The proto's `CreateTaskPushNotificationConfigRequest` (`{taskId, configId?, config}`)
    /// is read too.
    pub fn config_in(mut value: Value, path: &str) -> Result<PushConfigIn, (String, String)> {
        let nested = value.as_object_mut().and_then(|o| o.remove("config"));
        let outer = value.as_object().cloned().unwrap_or_default();
        let (inner, inner_path) = match nested {
            Some(config) => (config, join(path, "config")),
            None => (value, path.to_owned()),
        };
        let mut config = fields(inner, &inner_path)?.into_input();
        if config.task_id.is_none() {
            config.task_id = outer
                .get("taskId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if config.id.is_none() {
            config.id = outer
                .get("configId")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .map(str::to_owned);
        }
        Ok(config)
    }

    fn join(path: &str, field: &str) -> String {
        if path.is_empty() {
            field.to_owned()
        } else {
            format!("{path}.{field}")
        }
    }

    /// `{taskId, id}` of Get and Delete.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ConfigRef {
        #[serde(alias = "task_id")]
        pub task_id: String,
        pub id: String,
    }

    /// `ListTaskPushNotificationConfigsRequest`.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ListRequest {
        #[serde(alias = "task_id")]
        pub task_id: String,
        #[serde(alias = "page_size")]
        pub page_size: Option<i64>,
        #[serde(alias = "page_token")]
        pub page_token: Option<String>,
    }

    /// A config of task `task_id`, credentials redacted.
    pub fn config_out(task_id: &str, config: &PushConfig) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(config.id));
        out.insert("taskId".into(), json!(task_id));
        out.insert("url".into(), json!(config.url));
        if let Some(token) = &config.token {
            out.insert("token".into(), json!(token));
        }
        if let Some(authentication) = &config.authentication {
            let mut auth = Map::new();
            auth.insert(
                "scheme".into(),
                json!(authentication.schemes.first().cloned().unwrap_or_default()),
            );
            if let Some(credentials) = super::redacted_credentials(authentication) {
                auth.insert("credentials".into(), json!(credentials));
            }
            out.insert("authentication".into(), Value::Object(auth));
        }
        Value::Object(out)
    }

    /// `ListTaskPushNotificationConfigsResponse`: `nextPageToken` always present.
    pub fn list_out(task_id: &str, configs: &[PushConfig], next_page_token: &str) -> Value {
        json!({
            "configs": configs.iter().map(|c| config_out(task_id, c)).collect::<Vec<_>>(),
            "nextPageToken": next_page_token,
        })
    }
}

/// A2A 0.3, JSON-RPC and its proto over HTTP+JSON.
pub mod v0_3 {
    use super::{Deserialize, Map, PushConfig, PushConfigIn, Value, fields, json};

    /// `PushNotificationConfig` (at `path`).
    pub fn config_in(value: Value, path: &str) -> Result<PushConfigIn, (String, String)> {
        Ok(fields(value, path)?.into_input())
    }

    /// `tasks/pushNotificationConfig/set` params: `{taskId, pushNotificationConfig}`.
    pub fn set_in(mut value: Value) -> Result<PushConfigIn, (String, String)> {
        let task_id = value
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let config = value
            .as_object_mut()
            .and_then(|o| o.remove("pushNotificationConfig"))
            .ok_or_else(|| {
                (
                    "pushNotificationConfig".to_owned(),
                    "is required".to_owned(),
                )
            })?;
        let mut config = config_in(config, "pushNotificationConfig")?;
        config.task_id = task_id;
        Ok(config)
    }

    /// The body of `POST /v1/tasks/{id}/pushNotificationConfigs`: the proto's
    /// `CreateTaskPushNotificationConfigRequest` (`{parent, configId, config}`, what the 0.3
    /// SDK sends), its `TaskPushNotificationConfig` (`{name?, pushNotificationConfig}`), or a
    /// bare config.
    pub fn proto_config_in(mut value: Value) -> Result<PushConfigIn, (String, String)> {
        let config_id = value
            .get("configId")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned);
        let (mut value, path) = match value.as_object_mut().and_then(|o| o.remove("config")) {
            Some(config) => (config, "config."),
            None => (value, ""),
        };
        let mut config = match value
            .as_object_mut()
            .and_then(|o| o.remove("pushNotificationConfig"))
        {
            Some(config) => config_in(config, &format!("{path}pushNotificationConfig"))?,
            None => config_in(value, path.trim_end_matches('.'))?,
        };
        if config.id.is_none() {
            config.id = config_id;
        }
        Ok(config)
    }

    /// `tasks/pushNotificationConfig/get` params: `{id, pushNotificationConfigId?}`.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ConfigRef {
        pub id: String,
        #[serde(default)]
        pub push_notification_config_id: Option<String>,
    }

    /// `PushNotificationConfig`, credentials redacted.
    fn config_fields(config: &PushConfig) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(config.id));
        out.insert("url".into(), json!(config.url));
        if let Some(token) = &config.token {
            out.insert("token".into(), json!(token));
        }
        if let Some(authentication) = &config.authentication {
            let mut auth = Map::new();
            auth.insert("schemes".into(), json!(authentication.schemes));
            if let Some(credentials) = super::redacted_credentials(authentication) {
                auth.insert("credentials".into(), json!(credentials));
            }
            out.insert("authentication".into(), Value::Object(auth));
        }
        Value::Object(out)
    }

    /// JSON-RPC `TaskPushNotificationConfig`: `{taskId, pushNotificationConfig}`.
    pub fn config_out(task_id: &str, config: &PushConfig) -> Value {
        json!({ "taskId": task_id, "pushNotificationConfig": config_fields(config) })
    }

    /// The proto's `TaskPushNotificationConfig`: `{name, pushNotificationConfig}`.
    pub fn proto_config_out(task_id: &str, config: &PushConfig) -> Value {
        json!({
            "name": format!("tasks/{task_id}/pushNotificationConfigs/{}", config.id),
            "pushNotificationConfig": config_fields(config),
        })
    }
}

/// The early draft: one config per task, named by the client's task id.
pub mod v0_1 {
    use super::{Deserialize, PushConfig, Value, json};

    /// `tasks/pushNotification/set` params: `{id, pushNotificationConfig}`.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct SetParams {
        pub id: String,
        pub push_notification_config: Value,
    }

    /// `TaskPushNotificationConfig`: `{id, pushNotificationConfig}` under the client's id.
    pub fn config_out(alias: &str, config: &PushConfig) -> Value {
        let mut fields = super::v0_3::config_out(alias, config)["pushNotificationConfig"].take();
        if let Some(fields) = fields.as_object_mut() {
            // The draft's configs had no id of their own.
            fields.remove("id");
        }
        json!({ "id": alias, "pushNotificationConfig": fields })
    }
}
