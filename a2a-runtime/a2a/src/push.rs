//! The push notification config operations of the A2A service (Create, Get, List, Delete and
//! configs inline in a send), for every binding: a config is validated here, its URL checked
//! by the SSRF guard, and it is kept on its task (owned like it) by the task manager.

use std::sync::Arc;

use super::A2aError;
use super::keyed;
use super::service::A2aService;
use a2a_runtime_core::push::{Pusher, check_url};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::task::{Fingerprint, PushEdit};
use a2a_runtime_types::model::{PushAuthentication, PushConfig, PushWire, new_id};
use a2a_runtime_types::protocol::a2a::push::PushConfigIn;

/// The longest webhook URL accepted.
const MAX_URL_BYTES: usize = 2048;
/// The longest config id and token accepted.
const MAX_ID_BYTES: usize = 256;
/// The longest credentials accepted.
const MAX_CREDENTIALS_BYTES: usize = 8192;

/// Push notifications, when the agent delivers them.
pub struct PushSupport {
    pub pusher: Arc<Pusher>,
    /// The most configs one task may hold.
    pub max_configs: usize,
}

/// A config a request registers: where it sits in the request (for errors), the fields given,
/// and the id it gets when it names none.
#[derive(Debug)]
pub struct PushRegistration {
    pub field: String,
    pub input: PushConfigIn,
    pub wire: PushWire,
    pub default_id: Option<String>,
}

impl PushRegistration {
    /// The config a request gives at `field`, read in `wire`'s shape; a malformed one is
    /// -32602 naming the field.
    pub fn read(
        field: &str,
        parsed: Result<PushConfigIn, (String, String)>,
        wire: PushWire,
    ) -> Result<Self, A2aError> {
        Ok(Self {
            field: field.to_owned(),
            input: parsed.map_err(|(f, r)| A2aError::invalid_params(f, r))?,
            wire,
            default_id: None,
        })
    }
}

/// A page of a task's push configs.
pub struct PushConfigPage {
    pub configs: Vec<PushConfig>,
    /// Empty on the last page.
    pub next_page_token: String,
}

impl A2aService {
    /// The push config operations answer -32003 when the agent does not deliver push
    /// notifications, before their parameters are read.
    pub fn push(&self) -> Result<&PushSupport, A2aError> {
        self.push.as_ref().ok_or(A2aError::PushNotSupported)
    }

    /// `CreateTaskPushNotificationConfig`: registers the config on task `task_id` (replacing
    /// the task's config with the same id). Answers the config as stored, redacted.
    pub async fn create_push_config(
        &self,
        task_id: &str,
        registration: PushRegistration,
        caller: &CallerId,
    ) -> Result<PushConfig, A2aError> {
        let push = self.push()?;
        if let Some(named) = &registration.input.task_id
            && !named.is_empty()
            && named != task_id
        {
            return Err(A2aError::invalid_params(
                format!("{}taskId", prefix(&registration.field)),
                format!("`{named}` does not match the task `{task_id}` the request is for"),
            ));
        }
        let key = keyed::keyed(caller, || {
            let fingerprint = Fingerprint::of("CreateTaskPushNotificationConfig").with_str(task_id);
            keyed::push_fingerprint(fingerprint, &registration)
        })?;
        if let Some(key) = &key
            && let Some(held) = self.manager.find_key(key).await?
        {
            let config = held.item.unwrap_or_default();
            return self.get_push_config(&held.task_id, &config, caller).await;
        }
        let config = self.validated(push, registration).await?;
        let edit = PushEdit::Set {
            config: config.clone(),
            limit: push.max_configs,
        };
        self.manager
            .edit_push_configs(task_id, caller.owner(), edit)
            .await?;
        if let Some(key) = &key {
            let item = Some(config.id.clone());
            self.manager.claim_change(key, task_id, item).await?;
        }
        Ok(config.redacted())
    }

    /// The configs a send registers inline, validated (the task is not known yet).
    pub async fn inline_push_configs(
        &self,
        registration: Option<PushRegistration>,
    ) -> Result<Vec<PushConfig>, A2aError> {
        let Some(registration) = registration else {
            return Ok(Vec::new());
        };
        let push = self.push()?;
        Ok(vec![self.validated(push, registration).await?])
    }

    /// `GetTaskPushNotificationConfig`: config `config_id` of task `task_id`, redacted.
    pub async fn get_push_config(
        &self,
        task_id: &str,
        config_id: &str,
        caller: &CallerId,
    ) -> Result<PushConfig, A2aError> {
        let task_id = super::service::required_id(task_id, "taskId")?;
        self.push()?;
        self.manager
            .push_configs(task_id, caller.owner())
            .await?
            .into_iter()
            .find(|c| c.id == config_id)
            .map(|c| c.redacted())
            .ok_or_else(|| A2aError::PushConfigNotFound {
                task: task_id.to_owned(),
                config: config_id.to_owned(),
            })
    }

    /// Every config of task `task_id`, redacted (the draft's and 0.3's get without an id).
    pub async fn all_push_configs(
        &self,
        task_id: &str,
        caller: &CallerId,
    ) -> Result<Vec<PushConfig>, A2aError> {
        let task_id = super::service::required_id(task_id, "taskId")?;
        self.push()?;
        Ok(self
            .manager
            .push_configs(task_id, caller.owner())
            .await?
            .iter()
            .map(PushConfig::redacted)
            .collect())
    }

    /// `ListTaskPushNotificationConfigs`: a page of task `task_id`'s configs, redacted;
    /// `pageSize` 1 to 100 (default 100), the page token an offset this server gave.
    pub async fn list_push_configs(
        &self,
        task_id: &str,
        page_size: Option<i64>,
        page_token: Option<&str>,
        caller: &CallerId,
    ) -> Result<PushConfigPage, A2aError> {
        let size = match page_size {
            None | Some(0) => 100,
            Some(n @ 1..=100) => usize::try_from(n).unwrap_or(100),
            Some(n) => {
                return Err(A2aError::invalid_params(
                    "pageSize",
                    format!("must be between 1 and 100, got {n}"),
                ));
            }
        };
        let start = match page_token.filter(|t| !t.is_empty()) {
            None => 0,
            Some(token) => token.parse::<usize>().map_err(|_| {
                A2aError::invalid_params("pageToken", "is not a page token this server gave")
            })?,
        };
        let configs = self.all_push_configs(task_id, caller).await?;
        let end = start.saturating_add(size).min(configs.len());
        let next_page_token = if end < configs.len() {
            end.to_string()
        } else {
            String::new()
        };
        Ok(PushConfigPage {
            configs: configs
                .get(start..end)
                .map(<[_]>::to_vec)
                .unwrap_or_default(),
            next_page_token,
        })
    }

    /// `DeleteTaskPushNotificationConfig`, idempotent as A2A 1.0.1 §3.1.10 requires: deleting a
    /// config the task does not have (never had, or already deleted) succeeds and writes
    /// nothing; only a task that does not exist (or is not the caller's) is not found.
    /// Deliveries still pending for the config are dropped.
    pub async fn delete_push_config(
        &self,
        task_id: &str,
        config_id: &str,
        caller: &CallerId,
    ) -> Result<(), A2aError> {
        let task_id = super::service::required_id(task_id, "taskId")?;
        let push = self.push()?;
        let key = keyed::keyed(caller, || {
            Fingerprint::of("DeleteTaskPushNotificationConfig")
                .with_str(task_id)
                .with_str(config_id)
        })?;
        if let Some(key) = &key
            && self.manager.find_key(key).await?.is_some()
        {
            return Ok(());
        }
        let configs = self.manager.push_configs(task_id, caller.owner()).await?;
        if !configs.iter().any(|c| c.id == config_id) {
            return Ok(());
        }
        let edit = PushEdit::Delete {
            id: config_id.to_owned(),
        };
        self.manager
            .edit_push_configs(task_id, caller.owner(), edit)
            .await?;
        push.pusher.forget(task_id, config_id);
        if let Some(key) = &key {
            let item = Some(config_id.to_owned());
            self.manager.claim_change(key, task_id, item).await?;
        }
        Ok(())
    }

    /// A config from what a request gave: every field checked, the URL through the SSRF guard.
    async fn validated(
        &self,
        push: &PushSupport,
        registration: PushRegistration,
    ) -> Result<PushConfig, A2aError> {
        let PushRegistration {
            field,
            input,
            wire,
            default_id,
        } = registration;
        let at = prefix(&field);
        let url = input
            .url
            .filter(|u| !u.is_empty())
            .ok_or_else(|| A2aError::invalid_params(format!("{at}url"), "is required"))?;
        if url.len() > MAX_URL_BYTES {
            return Err(A2aError::invalid_params(
                format!("{at}url"),
                format!(
                    "is {} bytes long; at most {MAX_URL_BYTES} are accepted",
                    url.len()
                ),
            ));
        }
        let checked = check_url(&url, push.pusher.allows_private())
            .await
            .map_err(|refusal| {
                A2aError::invalid_params(format!("{at}url"), format!("`{url}` {refusal}"))
            })?;
        let id = match input.id {
            Some(id) => {
                header_safe(&id, MAX_ID_BYTES, &format!("{at}id"))?;
                if id.contains('/') {
                    return Err(A2aError::invalid_params(
                        format!("{at}id"),
                        "must not contain `/` (it is a path segment of the HTTP+JSON routes)",
                    ));
                }
                id
            }
            None => default_id.unwrap_or_else(new_id),
        };
        if let Some(token) = &input.token {
            header_safe(token, MAX_ID_BYTES, &format!("{at}token"))?;
        }
        let authentication = input
            .authentication
            .map(|auth| checked_authentication(auth, &at))
            .transpose()?;
        Ok(PushConfig {
            id,
            url: checked.to_string(),
            token: input.token.filter(|t| !t.is_empty()),
            authentication,
            wire,
        })
    }
}

/// `field.` for a config inside a request, nothing for a config that is the request.
fn prefix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("{field}.")
    }
}

fn checked_authentication(
    authentication: PushAuthentication,
    at: &str,
) -> Result<PushAuthentication, A2aError> {
    let Some(scheme) = authentication.schemes.first() else {
        return Err(A2aError::invalid_params(
            format!("{at}authentication.scheme"),
            "is required",
        ));
    };
    let token_char = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if scheme.is_empty() || !scheme.chars().all(token_char) {
        return Err(A2aError::invalid_params(
            format!("{at}authentication.scheme"),
            format!(
                "`{scheme}` is not an HTTP authentication scheme name (such as Bearer or Basic)"
            ),
        ));
    }
    if let Some(credentials) = &authentication.credentials {
        header_safe(
            credentials,
            MAX_CREDENTIALS_BYTES,
            &format!("{at}authentication.credentials"),
        )?;
    }
    Ok(authentication)
}

/// A value sent in an HTTP header: printable ASCII (and spaces), bounded.
fn header_safe(value: &str, max: usize, field: &str) -> Result<(), A2aError> {
    if value.len() > max {
        return Err(A2aError::invalid_params(
            field,
            format!("is {} bytes long; at most {max} are accepted", value.len()),
        ));
    }
    if !value.chars().all(|c| c == ' ' || c.is_ascii_graphic()) {
        return Err(A2aError::invalid_params(
            field,
            "must be printable ASCII (it is sent in an HTTP header)",
        ));
    }
    Ok(())
}
