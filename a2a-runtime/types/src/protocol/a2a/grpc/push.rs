//! Push notification configs ⇄ the proto's `TaskPushNotificationConfig`; outputs redacted as on
//! every binding (credentials are never echoed).

use super::messages::{AuthenticationInfo, TaskPushNotificationConfig};
use crate::model::{PushAuthentication, PushConfig};
use crate::protocol::a2a::push::{PushConfigIn, redacted_credentials};

/// A received config, before validation (the service checks it as it checks the JSON ones).
pub fn config_in(config: TaskPushNotificationConfig) -> PushConfigIn {
    let given = |value: String| Some(value).filter(|v| !v.is_empty());
    PushConfigIn {
        task_id: given(config.task_id),
        id: given(config.id),
        url: given(config.url),
        token: given(config.token),
        authentication: config.authentication.map(|auth| PushAuthentication {
            schemes: given(auth.scheme).into_iter().collect(),
            credentials: given(auth.credentials),
        }),
    }
}

/// Task `task_id`'s config `config`, its credentials redacted.
pub fn config_out(task_id: &str, config: &PushConfig) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        tenant: String::new(),
        id: config.id.clone(),
        task_id: task_id.to_owned(),
        url: config.url.clone(),
        token: config.token.clone().unwrap_or_default(),
        authentication: config
            .authentication
            .as_ref()
            .map(|auth| AuthenticationInfo {
                scheme: auth.schemes.first().cloned().unwrap_or_default(),
                credentials: redacted_credentials(auth).unwrap_or_default().to_owned(),
            }),
    }
}
