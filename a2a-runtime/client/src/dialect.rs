//! The A2A versions and wire forms the client speaks, each with its method names and shapes:
//! 1.0 (ProtoJSON, PascalCase methods; the same shapes over JSON-RPC and HTTP+JSON), 0.3 over
//! JSON-RPC (`kind` tags, slash methods; 0.2.x agents speak it too) and 0.3 over HTTP+JSON (the
//! 0.3 proto's ProtoJSON). Everything else in the client is version-neutral.

use serde_json::{Value, json};

use super::card::{Binding, Interface};
use super::push::PushNotificationConfig;
use super::{ClientError, SendOptions, parse};
use a2a_runtime_types::model::{
    A2aVersion, Message, Protocol, PushAuthentication, Task, TaskState,
};
use a2a_runtime_types::protocol::a2a::{Received, push, v0_3, v1};

/// One operation of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Send,
    Stream,
    Get,
    Cancel,
    Subscribe,
    List,
    PushSet,
    PushGet,
    PushList,
    PushDelete,
    ExtendedCard,
}

impl Op {
    /// Whether a retry cannot make it happen twice: reads, and requests whose repetition
    /// changes nothing more (canceling a canceled task, deleting a deleted config).
    pub(crate) fn idempotent(self) -> bool {
        !matches!(self, Self::Send | Self::Stream | Self::PushSet)
    }

    /// Whether the operation creates or changes a task, and so carries an `Idempotency-Key`:
    /// a fresh one per call, the same on each of its retries, so an agent that keeps keys
    /// does it once however often it arrives.
    pub(crate) fn keyed(self) -> bool {
        matches!(
            self,
            Self::Send | Self::Stream | Self::Cancel | Self::PushSet | Self::PushDelete
        )
    }

    /// The operation's A2A 1.0 method, as telemetry names it whatever the dialect.
    pub(crate) fn method(self) -> &'static str {
        match self {
            Self::Send => "SendMessage",
            Self::Stream => "SendStreamingMessage",
            Self::Get => "GetTask",
            Self::Cancel => "CancelTask",
            Self::Subscribe => "SubscribeToTask",
            Self::List => "ListTasks",
            Self::PushSet => "CreateTaskPushNotificationConfig",
            Self::PushGet => "GetTaskPushNotificationConfig",
            Self::PushList => "ListTaskPushNotificationConfigs",
            Self::PushDelete => "DeleteTaskPushNotificationConfig",
            Self::ExtendedCard => "GetExtendedAgentCard",
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Send => "send a message",
            Self::Stream => "stream a message",
            Self::Get => "get a task",
            Self::Cancel => "cancel a task",
            Self::Subscribe => "subscribe to a task",
            Self::List => "list tasks",
            Self::PushSet => "set a push config",
            Self::PushGet => "get a push config",
            Self::PushList => "list push configs",
            Self::PushDelete => "delete a push config",
            Self::ExtendedCard => "read the extended card",
        }
    }
}

/// A version of A2A and the JSON form its messages take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// 1.0, over JSON-RPC, HTTP+JSON or gRPC.
    V1,
    /// 0.3 (and 0.2) over JSON-RPC.
    V0_3,
    /// 0.3 over HTTP+JSON.
    V0_3Proto,
}

impl Dialect {
    /// The dialect of `interface`, if it is one this client speaks: JSON-RPC in 1.0, 0.3 or
    /// 0.2, HTTP+JSON in 1.0 or 0.3, gRPC in 1.0 (with the `grpc` feature; its calls take and
    /// give the 1.0 JSON too).
    pub(crate) fn of(interface: &Interface) -> Option<Self> {
        let version = interface.protocol_version.trim();
        let legacy = version.starts_with("0.3") || version.starts_with("0.2");
        match interface.binding {
            Binding::JsonRpc | Binding::HttpJson if interface.is_v1() => Some(Self::V1),
            #[cfg(feature = "grpc")]
            Binding::Grpc if interface.is_v1() => Some(Self::V1),
            Binding::JsonRpc if legacy => Some(Self::V0_3),
            Binding::HttpJson if version.starts_with("0.3") => Some(Self::V0_3Proto),
            _ => None,
        }
    }

    /// The version-neutral protocol of this dialect.
    pub(crate) fn protocol(self) -> Protocol {
        Protocol::A2a(match self {
            Self::V1 => A2aVersion::V1_0,
            Self::V0_3 | Self::V0_3Proto => A2aVersion::V0_3,
        })
    }

    /// The `A2A-Version` header value.
    pub(crate) fn version(self) -> &'static str {
        match self {
            Self::V1 => "1.0",
            Self::V0_3 | Self::V0_3Proto => "0.3",
        }
    }

    /// The name a task state has in a listing's query.
    pub(crate) fn state_name(self, state: TaskState) -> &'static str {
        match self {
            Self::V1 => v1::state_name(state),
            Self::V0_3 => v0_3::state_name(state),
            Self::V0_3Proto => v0_3::proto_state_name(state),
        }
    }

    /// The JSON-RPC method of `op`, or why there is none.
    pub(crate) fn method(self, op: Op) -> Result<&'static str, ClientError> {
        let method = match (self, op) {
            (Self::V1, Op::Send) => "SendMessage",
            (Self::V1, Op::Stream) => "SendStreamingMessage",
            (Self::V1, Op::Get) => "GetTask",
            (Self::V1, Op::Cancel) => "CancelTask",
            (Self::V1, Op::Subscribe) => "SubscribeToTask",
            (Self::V1, Op::List) => "ListTasks",
            (Self::V1, Op::PushSet) => "CreateTaskPushNotificationConfig",
            (Self::V1, Op::PushGet) => "GetTaskPushNotificationConfig",
            (Self::V1, Op::PushList) => "ListTaskPushNotificationConfigs",
            (Self::V1, Op::PushDelete) => "DeleteTaskPushNotificationConfig",
            (Self::V1, Op::ExtendedCard) => "GetExtendedAgentCard",
            (Self::V0_3, Op::Send) => "message/send",
            (Self::V0_3, Op::Stream) => "message/stream",
            (Self::V0_3, Op::Get) => "tasks/get",
            (Self::V0_3, Op::Cancel) => "tasks/cancel",
            (Self::V0_3, Op::Subscribe) => "tasks/resubscribe",
            (Self::V0_3, Op::PushSet) => "tasks/pushNotificationConfig/set",
            (Self::V0_3, Op::PushGet) => "tasks/pushNotificationConfig/get",
            (Self::V0_3, Op::PushList) => "tasks/pushNotificationConfig/list",
            (Self::V0_3, Op::PushDelete) => "tasks/pushNotificationConfig/delete",
            (Self::V0_3, Op::ExtendedCard) => "agent/getAuthenticatedExtendedCard",
            (Self::V0_3, Op::List) => {
                return Err(ClientError::Unsupported {
                    operation: op.name(),
                    version: "0.3".into(),
                });
            }
            // HTTP+JSON has routes, not methods.
            (Self::V0_3Proto, _) => {
                return Err(ClientError::Unsupported {
                    operation: op.name(),
                    version: "0.3 over JSON-RPC in the proto's form".into(),
                });
            }
        };
        Ok(method)
    }

    /// The params of a send.
    pub(crate) fn send_params(self, message: &Message, options: SendOptions) -> Value {
        match self {
            Self::V1 => {
                let mut configuration = json!({ "returnImmediately": options.return_immediately });
                if let Some(length) = options.history_length {
                    configuration["historyLength"] = json!(length);
                }
                json!({ "message": v1::MessageOut::from(message), "configuration": configuration })
            }
            Self::V0_3 | Self::V0_3Proto => {
                let mut configuration = json!({ "blocking": !options.return_immediately });
                if let Some(length) = options.history_length {
                    configuration["historyLength"] = json!(length);
                }
                let message = if self == Self::V0_3 {
                    v0_3::message_out(message, v0_3::Tag::Kind)
                } else {
                    v0_3::proto_message_out(message)
                };
                json!({ "message": message, "configuration": configuration })
            }
        }
    }

    /// A send's answer or a stream's item.
    pub(crate) fn received(self, value: Value) -> Result<Received, ClientError> {
        match self {
            Self::V1 => {
                // A send answers `{task}` or `{message}`; a stream item may also be an update.
                let item: v1::StreamResponseIn = parse(value)?;
                Ok(item.into_model()?)
            }
            Self::V0_3 => Ok(v0_3::received_in(&value, "result")?),
            Self::V0_3Proto => Ok(v0_3::proto_received_in(&value, "result")?),
        }
    }

    /// A task answer.
    pub(crate) fn task(self, value: Value) -> Result<Task, ClientError> {
        match self {
            Self::V1 => {
                let task: v1::TaskIn = parse(value)?;
                Ok(task.into_model("result")?)
            }
            Self::V0_3 => Ok(v0_3::task_in(&value, "result", v0_3::Form::JsonRpc)?),
            Self::V0_3Proto => Ok(v0_3::task_in(&value, "result", v0_3::Form::Proto)?),
        }
    }

    /// The params naming one config of a task (over HTTP+JSON, the route's path).
    pub(crate) fn push_ref(self, task_id: &str, id: &str) -> Value {
        match self {
            Self::V1 | Self::V0_3Proto => json!({ "taskId": task_id, "id": id }),
            Self::V0_3 => json!({ "id": task_id, "pushNotificationConfigId": id }),
        }
    }

    /// The params of listing a task's configs, from page `token` (1.0 pages; 0.3 JSON-RPC
    /// does not).
    pub(crate) fn push_list(self, task_id: &str, token: &str) -> Value {
        match self {
            Self::V1 | Self::V0_3Proto if token.is_empty() => json!({ "taskId": task_id }),
            Self::V1 | Self::V0_3Proto => json!({ "taskId": task_id, "pageToken": token }),
            Self::V0_3 => json!({ "id": task_id }),
        }
    }

    /// A listing's configs and the next page's token (empty on the last).
    pub(crate) fn push_page(self, mut result: Value) -> (Vec<Value>, String) {
        match self {
            Self::V1 | Self::V0_3Proto => {
                let next = result
                    .get("nextPageToken")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                (taken_list(&mut result, "configs"), next)
            }
            Self::V0_3 => match result {
                Value::Array(configs) => (configs, String::new()),
                _ => (Vec::new(), String::new()),
            },
        }
    }

    /// The params registering `config`.
    pub(crate) fn push_set(self, config: &PushNotificationConfig) -> Value {
        let mut fields = serde_json::Map::new();
        fields.insert("url".into(), json!(config.url));
        if let Some(id) = &config.id {
            fields.insert("id".into(), json!(id));
        }
        if let Some(token) = &config.token {
            fields.insert("token".into(), json!(token));
        }
        let auth = config.authentication.as_ref();
        match self {
            Self::V1 => {
                fields.insert("taskId".into(), json!(config.task_id));
                if let Some(auth) = auth {
                    let mut out =
                        json!({ "scheme": auth.schemes.first().cloned().unwrap_or_default() });
                    if let Some(credentials) = &auth.credentials {
                        out["credentials"] = json!(credentials);
                    }
                    fields.insert("authentication".into(), out);
                }
                Value::Object(fields)
            }
            Self::V0_3 | Self::V0_3Proto => {
                if let Some(auth) = auth {
                    let mut out = json!({ "schemes": auth.schemes });
                    if let Some(credentials) = &auth.credentials {
                        out["credentials"] = json!(credentials);
                    }
                    fields.insert("authentication".into(), out);
                }
                if self == Self::V0_3 {
                    return json!({ "taskId": config.task_id, "pushNotificationConfig": fields });
                }
                // The proto's CreateTaskPushNotificationConfigRequest.
                let parent = format!("tasks/{}", config.task_id);
                let mut request = json!({
                    "parent": parent,
                    "config": { "pushNotificationConfig": fields },
                });
                if let Some(id) = &config.id {
                    request["configId"] = json!(id);
                    request["config"]["name"] =
                        json!(format!("{parent}/pushNotificationConfigs/{id}"));
                }
                request
            }
        }
    }

    /// A config an agent answered with (at `path`), for task `task_id` unless it names one.
    pub(crate) fn push_config(
        self,
        value: Value,
        path: &str,
        task_id: &str,
    ) -> Result<PushNotificationConfig, ClientError> {
        let config = match self {
            Self::V1 => push::v1::config_in(value, path)?,
            Self::V0_3 | Self::V0_3Proto => {
                // JSON-RPC names the task; the proto names the config `tasks/{id}/…/{configId}`.
                let named = value
                    .get("taskId")
                    .and_then(Value::as_str)
                    .or_else(|| {
                        let name = value.get("name").and_then(Value::as_str)?;
                        name.strip_prefix("tasks/")?.split('/').next()
                    })
                    .map(str::to_owned);
                let inner = value
                    .get("pushNotificationConfig")
                    .cloned()
                    .unwrap_or(Value::Null);
                let mut config =
                    push::v0_3::config_in(inner, &format!("{path}.pushNotificationConfig"))?;
                config.task_id = named;
                if config.id.is_none() {
                    // The proto's config may leave its `id` to its name.
                    let name = value
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    config.id = name
                        .rsplit_once("/pushNotificationConfigs/")
                        .map(|(_, id)| id.to_owned())
                        .filter(|id| !id.is_empty());
                }
                config
            }
        };
        let url = config.url.ok_or_else(|| ClientError::InvalidResponse {
            field: format!("{path}.url"),
            reason: "is required".into(),
        })?;
        Ok(PushNotificationConfig {
            task_id: config.task_id.unwrap_or_else(|| task_id.to_owned()),
            id: config.id,
            url,
            token: config.token,
            authentication: config.authentication.map(|a| PushAuthentication {
                schemes: a.schemes,
                credentials: a.credentials,
            }),
        })
    }
}

/// The list under `key` in `object`, taken out of it (empty if there is none).
pub(crate) fn taken_list(object: &mut Value, key: &str) -> Vec<Value> {
    match object.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}
