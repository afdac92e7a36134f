//! The messages of A2A 1.0's `a2a.proto` (package `lf.a2a.v1`) that tasks, messages, parts,
//! artifacts, their events and the service's requests and responses are made of, declared with
//! prost's derive and the proto's field numbers. The agent card's are in [`super::card`].
//!
//! Strings the proto leaves empty when unset are empty here; `optional` scalars are `Option`.

use prost_types::{Struct, Timestamp, Value};

/// `TaskState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum TaskState {
    /// Not set.
    Unspecified = 0,
    /// Accepted, not started.
    Submitted = 1,
    /// Running.
    Working = 2,
    /// Finished successfully.
    Completed = 3,
    /// Finished with an error.
    Failed = 4,
    /// Stopped on request.
    Canceled = 5,
    /// Waiting for the client's input.
    InputRequired = 6,
    /// Refused by the agent.
    Rejected = 7,
    /// Waiting for the client's credentials.
    AuthRequired = 8,
}

/// `Role`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Role {
    /// Not set.
    Unspecified = 0,
    /// The client.
    User = 1,
    /// The agent.
    Agent = 2,
}

/// `Task`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Task {
    /// The task's id.
    #[prost(string, tag = "1")]
    pub id: String,
    /// Its context.
    #[prost(string, tag = "2")]
    pub context_id: String,
    /// Its current status.
    #[prost(message, optional, tag = "3")]
    pub status: Option<TaskStatus>,
    /// Its outputs.
    #[prost(message, repeated, tag = "4")]
    pub artifacts: Vec<Artifact>,
    /// Its messages, oldest first.
    #[prost(message, repeated, tag = "5")]
    pub history: Vec<Message>,
    /// Free-form metadata.
    #[prost(message, optional, tag = "6")]
    pub metadata: Option<Struct>,
}

/// `TaskStatus`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskStatus {
    /// The state.
    #[prost(enumeration = "TaskState", tag = "1")]
    pub state: i32,
    /// The message that explains it.
    #[prost(message, optional, tag = "2")]
    pub message: Option<Message>,
    /// When it was entered.
    #[prost(message, optional, tag = "3")]
    pub timestamp: Option<Timestamp>,
}

/// `Part`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Part {
    /// What the part holds.
    #[prost(oneof = "PartContent", tags = "1, 2, 3, 4")]
    pub content: Option<PartContent>,
    /// Free-form metadata.
    #[prost(message, optional, tag = "5")]
    pub metadata: Option<Struct>,
    /// A file name.
    #[prost(string, tag = "6")]
    pub filename: String,
    /// The content's media type.
    #[prost(string, tag = "7")]
    pub media_type: String,
}

/// `Part.content`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum PartContent {
    /// Text.
    #[prost(string, tag = "1")]
    Text(String),
    /// Inline bytes.
    #[prost(bytes = "vec", tag = "2")]
    Raw(Vec<u8>),
    /// A file's URL.
    #[prost(string, tag = "3")]
    Url(String),
    /// Any JSON value.
    #[prost(message, tag = "4")]
    Data(Value),
}

/// `Message`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Message {
    /// Its id, chosen by its sender.
    #[prost(string, tag = "1")]
    pub message_id: String,
    /// The context it belongs to.
    #[prost(string, tag = "2")]
    pub context_id: String,
    /// The task it belongs to.
    #[prost(string, tag = "3")]
    pub task_id: String,
    /// Who sent it.
    #[prost(enumeration = "Role", tag = "4")]
    pub role: i32,
    /// Its content.
    #[prost(message, repeated, tag = "5")]
    pub parts: Vec<Part>,
    /// Free-form metadata.
    #[prost(message, optional, tag = "6")]
    pub metadata: Option<Struct>,
    /// The extensions it uses.
    #[prost(string, repeated, tag = "7")]
    pub extensions: Vec<String>,
    /// Tasks it refers to.
    #[prost(string, repeated, tag = "8")]
    pub reference_task_ids: Vec<String>,
}

/// `Artifact`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Artifact {
    /// Its id, unique within the task.
    #[prost(string, tag = "1")]
    pub artifact_id: String,
    /// Its name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// What it is.
    #[prost(string, tag = "3")]
    pub description: String,
    /// Its content.
    #[prost(message, repeated, tag = "4")]
    pub parts: Vec<Part>,
    /// Free-form metadata.
    #[prost(message, optional, tag = "5")]
    pub metadata: Option<Struct>,
    /// The extensions it uses.
    #[prost(string, repeated, tag = "6")]
    pub extensions: Vec<String>,
}

/// `TaskStatusUpdateEvent`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskStatusUpdateEvent {
    /// The task.
    #[prost(string, tag = "1")]
    pub task_id: String,
    /// Its context.
    #[prost(string, tag = "2")]
    pub context_id: String,
    /// Its new status.
    #[prost(message, optional, tag = "3")]
    pub status: Option<TaskStatus>,
    /// Free-form metadata.
    #[prost(message, optional, tag = "4")]
    pub metadata: Option<Struct>,
}

/// `TaskArtifactUpdateEvent`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    #[prost(string, tag = "1")]
    pub task_id: String,
    /// Its context.
    #[prost(string, tag = "2")]
    pub context_id: String,
    /// The artifact, or the chunk of it.
    #[prost(message, optional, tag = "3")]
    pub artifact: Option<Artifact>,
    /// Whether the parts add to an artifact sent before.
    #[prost(bool, tag = "4")]
    pub append: bool,
    /// Whether this is the artifact's last chunk.
    #[prost(bool, tag = "5")]
    pub last_chunk: bool,
    /// Free-form metadata.
    #[prost(message, optional, tag = "6")]
    pub metadata: Option<Struct>,
}

/// `AuthenticationInfo`: how the agent authenticates to a push receiver.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AuthenticationInfo {
    /// The HTTP authentication scheme (`Bearer`, `Basic`).
    #[prost(string, tag = "1")]
    pub scheme: String,
    /// The credentials.
    #[prost(string, tag = "2")]
    pub credentials: String,
}

/// `TaskPushNotificationConfig`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskPushNotificationConfig {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// The configuration's id.
    #[prost(string, tag = "2")]
    pub id: String,
    /// The task.
    #[prost(string, tag = "3")]
    pub task_id: String,
    /// Where notifications are sent.
    #[prost(string, tag = "4")]
    pub url: String,
    /// A token the receiver checks.
    #[prost(string, tag = "5")]
    pub token: String,
    /// How the agent authenticates to the receiver.
    #[prost(message, optional, tag = "6")]
    pub authentication: Option<AuthenticationInfo>,
}

/// `SendMessageConfiguration`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SendMessageConfiguration {
    /// The output media types the client accepts.
    #[prost(string, repeated, tag = "1")]
    pub accepted_output_modes: Vec<String>,
    /// A push configuration for the task.
    #[prost(message, optional, tag = "2")]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// How many messages of history the answer holds.
    #[prost(int32, optional, tag = "3")]
    pub history_length: Option<i32>,
    /// Answer as soon as the task exists instead of when it settles.
    #[prost(bool, tag = "4")]
    pub return_immediately: bool,
}

/// `SendMessageRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SendMessageRequest {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// The message.
    #[prost(message, optional, tag = "2")]
    pub message: Option<Message>,
    /// How to answer.
    #[prost(message, optional, tag = "3")]
    pub configuration: Option<SendMessageConfiguration>,
    /// Free-form metadata.
    #[prost(message, optional, tag = "4")]
    pub metadata: Option<Struct>,
}

/// `SendMessageResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SendMessageResponse {
    /// A task, or a direct reply.
    #[prost(oneof = "SendMessagePayload", tags = "1, 2")]
    pub payload: Option<SendMessagePayload>,
}

/// `SendMessageResponse.payload`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum SendMessagePayload {
    /// The task the message started or continued.
    #[prost(message, tag = "1")]
    Task(Task),
    /// A reply without a task.
    #[prost(message, tag = "2")]
    Message(Message),
}

/// `StreamResponse`: one item of a stream.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StreamResponse {
    /// The item.
    #[prost(oneof = "StreamPayload", tags = "1, 2, 3, 4")]
    pub payload: Option<StreamPayload>,
}

/// `StreamResponse.payload`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum StreamPayload {
    /// The task as it stands.
    #[prost(message, tag = "1")]
    Task(Task),
    /// A direct reply.
    #[prost(message, tag = "2")]
    Message(Message),
    /// A status change.
    #[prost(message, tag = "3")]
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact, or a chunk of one.
    #[prost(message, tag = "4")]
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

/// `GetTaskRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTaskRequest {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// The task.
    #[prost(string, tag = "2")]
    pub id: String,
    /// How many messages of history to return.
    #[prost(int32, optional, tag = "3")]
    pub history_length: Option<i32>,
}

/// `ListTasksRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTasksRequest {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// Only tasks of this context.
    #[prost(string, tag = "2")]
    pub context_id: String,
    /// Only tasks in this state.
    #[prost(enumeration = "TaskState", tag = "3")]
    pub status: i32,
    /// The most tasks in a page.
    #[prost(int32, optional, tag = "4")]
    pub page_size: Option<i32>,
    /// Where the page starts (a previous page's `next_page_token`).
    #[prost(string, tag = "5")]
    pub page_token: String,
    /// How many messages of history each task holds.
    #[prost(int32, optional, tag = "6")]
    pub history_length: Option<i32>,
    /// Only tasks whose status changed after this.
    #[prost(message, optional, tag = "7")]
    pub status_timestamp_after: Option<Timestamp>,
    /// Whether tasks hold their artifacts.
    #[prost(bool, optional, tag = "8")]
    pub include_artifacts: Option<bool>,
}

/// `ListTasksResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTasksResponse {
    /// The page.
    #[prost(message, repeated, tag = "1")]
    pub tasks: Vec<Task>,
    /// The next page's token; empty after the last.
    #[prost(string, tag = "2")]
    pub next_page_token: String,
    /// The page size used.
    #[prost(int32, tag = "3")]
    pub page_size: i32,
    /// How many tasks match.
    #[prost(int32, tag = "4")]
    pub total_size: i32,
}

/// `CancelTaskRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CancelTaskRequest {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// The task.
    #[prost(string, tag = "2")]
    pub id: String,
    /// Free-form metadata.
    #[prost(message, optional, tag = "3")]
    pub metadata: Option<Struct>,
}

/// `SubscribeToTaskRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeToTaskRequest {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// The task.
    #[prost(string, tag = "2")]
    pub id: String,
}

/// `GetTaskPushNotificationConfigRequest` and `DeleteTaskPushNotificationConfigRequest`, which
/// have the same fields.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskPushNotificationConfigRef {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
    /// The task.
    #[prost(string, tag = "2")]
    pub task_id: String,
    /// The configuration.
    #[prost(string, tag = "3")]
    pub id: String,
}

/// `ListTaskPushNotificationConfigsRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTaskPushNotificationConfigsRequest {
    /// The tenant.
    #[prost(string, tag = "4")]
    pub tenant: String,
    /// The task.
    #[prost(string, tag = "1")]
    pub task_id: String,
    /// The most configurations in a page.
    #[prost(int32, tag = "2")]
    pub page_size: i32,
    /// Where the page starts.
    #[prost(string, tag = "3")]
    pub page_token: String,
}

/// `ListTaskPushNotificationConfigsResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTaskPushNotificationConfigsResponse {
    /// The page.
    #[prost(message, repeated, tag = "1")]
    pub configs: Vec<TaskPushNotificationConfig>,
    /// The next page's token; empty after the last.
    #[prost(string, tag = "2")]
    pub next_page_token: String,
}

/// `GetExtendedAgentCardRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetExtendedAgentCardRequest {
    /// The tenant.
    #[prost(string, tag = "1")]
    pub tenant: String,
}
