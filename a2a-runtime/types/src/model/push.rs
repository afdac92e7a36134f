//! Push notification configs: where a task's updates are POSTed while its client is away.

use serde::{Deserialize, Serialize};

/// A webhook registered for one task by the task's owner. The task holds its configs, so they
/// are stored, owned and retired with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushConfig {
    /// The config's id, unique within its task (server-assigned when the client gave none).
    pub id: String,
    /// The receiver's URL (http or https).
    pub url: String,
    /// An opaque token the receiver checks, sent as `X-A2A-Notification-Token`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// How the agent authenticates to the receiver (`Authorization: {scheme} {credentials}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushAuthentication>,
    /// The wire version the config was registered in, which every delivery to it uses.
    pub wire: PushWire,
}

/// The credentials a push delivery presents to its receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushAuthentication {
    /// HTTP authentication schemes (IANA names such as `Bearer`); A2A 1.0 names one, 0.3 and
    /// the early draft a list. Deliveries use the first.
    pub schemes: Vec<String>,
    /// The credentials sent with the first scheme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

impl PushAuthentication {
    /// The `Authorization` header value deliveries carry, when there are credentials to send.
    pub fn header(&self) -> Option<String> {
        let scheme = self.schemes.first()?;
        let credentials = self.credentials.as_deref()?;
        Some(format!("{scheme} {credentials}"))
    }
}

/// The A2A wire version of a push config: deliveries are rendered in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "version", rename_all = "camelCase")]
pub enum PushWire {
    /// A2A 1.0: a `StreamResponse`, `Content-Type: application/a2a+json`.
    V1,
    /// A2A 0.3: the bare object (`kind`-tagged), `Content-Type: application/json`.
    V0_3,
    /// The early draft: its stream events, naming the task by the id the client chose.
    Draft {
        /// The task id the client gave the task.
        task_alias: String,
    },
}

impl PushConfig {
    /// A copy safe to show: the credentials are replaced (Get and List never echo them).
    pub fn redacted(&self) -> Self {
        let mut shown = self.clone();
        if let Some(authentication) = shown.authentication.as_mut()
            && authentication.credentials.is_some()
        {
            authentication.credentials = Some(REDACTED.to_owned());
        }
        shown
    }
}

/// What redacted credentials read as.
#[doc(hidden)]
pub const REDACTED: &str = "********";
