//! `resources/*`, `prompts/*` and `completion/complete` over the agent's catalog, plus task
//! artifacts as resources (`a2a://tasks/{taskId}/artifacts/{artifactId}`), so an MCP host can
//! open what an A2A task produced.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use futures::FutureExt as _;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, GetPromptResult, Prompt,
    PromptArgument as McpArgument, PromptMessage as McpMessage, Reference, Resource,
    ResourceContents, ResourceTemplate, Role,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::error::missing_capability;
use a2a_runtime_core::app::App;
use a2a_runtime_core::ask::Asker;
use a2a_runtime_core::content::{
    ARTIFACT_TEMPLATE, Argument, Completion, PromptContent, PromptMessage, PromptRole, ReadRequest,
    ResourceBody, ResourceContent,
};
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_core::skill_error::{SkillError, SkillErrorKind};
use a2a_runtime_types::model::{Artifact, PartContent};

/// The static resources.
pub fn resources(app: &App) -> Vec<Resource> {
    app.catalog
        .resources()
        .iter()
        .map(|d| {
            let mut resource = Resource::new(d.uri(), d.name()).with_description(d.description());
            if let Some(title) = d.title() {
                resource = resource.with_title(title);
            }
            if let Some(mime) = d.mime_type() {
                resource = resource.with_mime_type(mime);
            }
            resource
        })
        .collect()
}

/// The resource templates, task artifacts' among them.
pub fn templates(app: &App) -> Vec<ResourceTemplate> {
    let mut templates: Vec<ResourceTemplate> = app
        .catalog
        .templates()
        .map(|d| {
            let mut template =
                ResourceTemplate::new(d.uri(), d.name()).with_description(d.description());
            if let Some(title) = d.title() {
                template = template.with_title(title);
            }
            if let Some(mime) = d.mime_type() {
                template = template.with_mime_type(mime);
            }
            template
        })
        .collect();
    templates.push(
        ResourceTemplate::new(ARTIFACT_TEMPLATE, "task-artifact")
            .with_title("Task artifact")
            .with_description(
                "An artifact of one of your tasks (A2A or MCP), by task and artifact id: text \
                 parts as text, files as blobs, data as JSON.",
            ),
    );
    templates
}

/// `resources/read`: a declared resource, or a task artifact the caller owns. An unknown URI is
/// -32602 with the URI in `data` (SEP-2164).
pub async fn read(
    app: &App,
    uri: &str,
    caller: &CallerId,
) -> Result<Vec<ResourceContents>, McpError> {
    if let Some(found) = app.catalog.resource(uri) {
        let request = ReadRequest {
            uri: uri.to_owned(),
            values: found.values,
            caller: caller.caller().clone(),
            state: Arc::clone(app.dispatcher.state()),
            asker: None,
            cancel: CancellationToken::new(),
        };
        let contents = guarded(found.resource.read(request))
            .await
            .map_err(|e| read_error(&e, json!({ "uri": uri })))?;
        return Ok(contents.into_iter().map(resource_contents).collect());
    }
    if let Some(values) = artifact_template().matches(uri) {
        return artifact(app, uri, &values, caller).await;
    }
    Err(not_found(uri))
}

/// Whether `uri` is one of `app`'s own resources or matches one of its templates (not a task
/// artifact: those are any agent's, found through the task).
pub fn serves(app: &App, uri: &str) -> bool {
    app.catalog.resource(uri).is_some()
}

/// The task an artifact URI names, if `uri` is one.
pub fn artifact_task(uri: &str) -> Option<String> {
    artifact_template().matches(uri)?.remove("taskId")
}

/// The task-artifact template, parsed once.
fn artifact_template() -> &'static a2a_runtime_core::content::UriTemplate {
    static TEMPLATE: std::sync::LazyLock<a2a_runtime_core::content::UriTemplate> =
        std::sync::LazyLock::new(|| {
            a2a_runtime_core::content::UriTemplate::parse(ARTIFACT_TEMPLATE)
        });
    &TEMPLATE
}

fn not_found(uri: &str) -> McpError {
    McpError::invalid_params(
        format!("resource not found: no resource or template of this server matches `{uri}`"),
        Some(json!({ "uri": uri })),
    )
}

/// One artifact of a task the caller owns, each part one content.
async fn artifact(
    app: &App,
    uri: &str,
    values: &HashMap<String, String>,
    caller: &CallerId,
) -> Result<Vec<ResourceContents>, McpError> {
    let (Some(task_id), Some(artifact_id)) = (values.get("taskId"), values.get("artifactId"))
    else {
        return Err(not_found(uri));
    };
    // Another caller's task is as absent as one that never existed.
    let task = app
        .manager
        .get(task_id, caller.owner(), Some(0))
        .await
        .map_err(|_| not_found(uri))?;
    let artifact = task
        .artifacts
        .iter()
        .find(|a| a.artifact_id == *artifact_id)
        .ok_or_else(|| not_found(uri))?;
    Ok(artifact_contents(uri, artifact))
}

fn artifact_contents(uri: &str, artifact: &Artifact) -> Vec<ResourceContents> {
    artifact
        .parts
        .iter()
        .map(|part| {
            let media = part.media_type.clone();
            match &part.content {
                PartContent::Text(text) => ResourceContents::text(text.clone(), uri)
                    .with_mime_type(media.unwrap_or_else(|| "text/plain".into())),
                PartContent::Data(value) => ResourceContents::text(value.to_string(), uri)
                    .with_mime_type("application/json"),
                PartContent::Raw(bytes) => ResourceContents::blob(STANDARD.encode(bytes), uri)
                    .with_mime_type(media.unwrap_or_else(|| "application/octet-stream".into())),
                PartContent::Url(url) => {
                    ResourceContents::text(url.clone(), uri).with_mime_type("text/uri-list")
                }
            }
        })
        .collect()
}

fn resource_contents(content: ResourceContent) -> ResourceContents {
    let converted = match content.body {
        ResourceBody::Text(text) => ResourceContents::text(text, content.uri),
        ResourceBody::Blob(bytes) => ResourceContents::blob(STANDARD.encode(bytes), content.uri),
    };
    match content.mime_type {
        Some(mime) => converted.with_mime_type(mime),
        None => converted,
    }
}

/// Runs a resource or prompt fn; a panic is an internal error, not a dropped connection.
async fn guarded<T>(
    future: a2a_runtime_types::BoxFuture<'static, Result<T, SkillError>>,
) -> Result<T, SkillError> {
    std::panic::AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| Err(SkillError::internal("the function panicked")))
}

/// A resource or prompt fn's error: the caller's fault (a bad argument) is -32602, anything else
/// -32603; the message is the fn's.
fn read_error(error: &SkillError, data: serde_json::Value) -> McpError {
    match error.kind() {
        SkillErrorKind::InvalidInput => {
            McpError::invalid_params(error.message().to_owned(), Some(data))
        }
        _ => McpError::internal_error(error.message().to_owned(), Some(data)),
    }
}

/// `prompts/list`.
pub fn prompts(app: &App) -> Vec<Prompt> {
    app.catalog
        .prompts()
        .iter()
        .map(|d| {
            let arguments: Vec<McpArgument> = d.arguments().iter().map(argument).collect();
            let mut prompt = Prompt::new(
                d.name(),
                Some(d.description()),
                (!arguments.is_empty()).then_some(arguments),
            );
            if let Some(title) = d.title() {
                prompt = prompt.with_title(title);
            }
            prompt
        })
        .collect()
}

fn argument(argument: &Argument) -> McpArgument {
    let mut converted = McpArgument::new(argument.name).with_required(argument.required);
    if !argument.description.is_empty() {
        converted = converted.with_description(argument.description);
    }
    converted
}

/// `prompts/get`: an unknown prompt or a missing or unreadable argument is -32602. The prompt's
/// questions go to `asker`; on protocol 2026-07-28 (`stateless`) one the client did not declare
/// the capability for refuses the request (-32021).
pub async fn get_prompt(
    app: &App,
    name: &str,
    arguments: &serde_json::Value,
    stateless: bool,
    caller: &CallerId,
    asker: Option<Arc<dyn Asker>>,
    cancel: CancellationToken,
) -> Result<GetPromptResult, McpError> {
    let Some(prompt) = app.catalog.prompt(name) else {
        let known: Vec<&str> = app.catalog.prompts().iter().map(|p| p.name()).collect();
        return Err(McpError::invalid_params(
            format!(
                "unknown prompt `{name}`; this server's prompts are: {}",
                known.join(", ")
            ),
            Some(json!({ "prompt": name })),
        ));
    };
    let values = arguments
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, value)| match value {
            serde_json::Value::String(text) => Some((name.clone(), text.clone())),
            serde_json::Value::Null => None,
            other => Some((name.clone(), other.to_string())),
        })
        .collect();
    let read = ReadRequest {
        uri: String::new(),
        values,
        caller: caller.caller().clone(),
        state: Arc::clone(app.dispatcher.state()),
        asker,
        cancel,
    };
    let messages = guarded(prompt.get(read)).await.map_err(|e| {
        let refusal = Some(&e).filter(|_| stateless).and_then(missing_capability);
        refusal.unwrap_or_else(|| read_error(&e, json!({ "prompt": prompt.name() })))
    })?;
    Ok(
        GetPromptResult::new(messages.into_iter().map(prompt_message).collect())
            .with_description(prompt.description()),
    )
}

fn prompt_message(message: PromptMessage) -> McpMessage {
    let role = match message.role {
        PromptRole::User => Role::User,
        PromptRole::Assistant => Role::Assistant,
    };
    let content = match message.content {
        PromptContent::Text(text) => ContentBlock::text(text),
        PromptContent::Image { data, mime_type } => {
            ContentBlock::image(STANDARD.encode(data), mime_type)
        }
        PromptContent::Audio { data, mime_type } => {
            ContentBlock::audio(STANDARD.encode(data), mime_type)
        }
        PromptContent::Resource(resource) => ContentBlock::resource(resource_contents(resource)),
    };
    McpMessage::new(role, content)
}

/// `completion/complete`: what the argument's completer fn offers, or else the values its type
/// lists that start with what was typed (case-insensitively); at most 100. A completer that
/// panics offers nothing.
pub async fn complete(
    app: &App,
    request: &CompleteRequestParams,
    caller: &CallerId,
) -> Result<CompleteResult, McpError> {
    let arguments = match &request.r#ref {
        Reference::Prompt(reference) => app
            .catalog
            .prompt(&reference.name)
            .map(|p| p.arguments())
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!("unknown prompt `{}`", reference.name),
                    Some(json!({ "prompt": reference.name })),
                )
            })?,
        Reference::Resource(reference) => {
            if reference.uri == ARTIFACT_TEMPLATE {
                &[]
            } else {
                app.catalog
                    .template(&reference.uri)
                    .map(|t| t.variables())
                    .ok_or_else(|| {
                        McpError::invalid_params(
                            format!("unknown resource template `{}`", reference.uri),
                            Some(json!({ "uri": reference.uri })),
                        )
                    })?
            }
        }
        _ => {
            return Err(McpError::invalid_params(
                "ref: unknown reference type; expected ref/prompt or ref/resource",
                None,
            ));
        }
    };
    let argument = arguments.iter().find(|a| a.name == request.argument.name);
    let mut values: Vec<String> = match argument {
        Some(Argument {
            complete: Some(completer),
            ..
        }) => {
            let completion = Completion {
                value: request.argument.value.clone(),
                arguments: request
                    .context
                    .as_ref()
                    .and_then(|context| context.arguments.clone())
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                caller: caller.caller().clone(),
                state: Arc::clone(app.dispatcher.state()),
            };
            std::panic::AssertUnwindSafe(completer(completion))
                .catch_unwind()
                .await
                .unwrap_or_default()
        }
        Some(argument) => {
            let typed = request.argument.value.to_lowercase();
            (argument.choices)()
                .into_iter()
                .filter(|value| value.to_lowercase().starts_with(&typed))
                .collect()
        }
        None => Vec::new(),
    };
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    let has_more = total > values.len();
    let info = CompletionInfo::with_pagination(values, u32::try_from(total).ok(), has_more)
        .map_err(|e| McpError::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}
