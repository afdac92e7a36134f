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

/// The static resources: the catalog's, then those defined with the skills (a remote's).
pub fn resources(app: &App) -> Vec<Resource> {
    let mut resources: Vec<Resource> = app
        .catalog
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
        .collect();
    let registry = app.dispatcher.registry();
    resources.extend(registry.content().resources().iter().map(|d| {
        let mut resource = Resource::new(&d.uri, &d.name);
        resource.title.clone_from(&d.title);
        resource.description.clone_from(&d.description);
        resource.mime_type.clone_from(&d.mime_type);
        resource
    }));
    resources
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
    let registry = app.dispatcher.registry();
    templates.extend(registry.content().templates().map(|d| {
        let mut template = ResourceTemplate::new(&d.uri, &d.name);
        template.title.clone_from(&d.title);
        template.description.clone_from(&d.description);
        template.mime_type.clone_from(&d.mime_type);
        template
    }));
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
    cancel: CancellationToken,
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
    let defined = app.dispatcher.registry().content().read(uri, cancel);
    if let Some(read) = defined {
        let contents = guarded(read)
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
    app.catalog.resource(uri).is_some() || app.dispatcher.registry().content().serves(uri)
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

/// `prompts/list`: the catalog's, then those defined with the skills (a remote's).
pub fn prompts(app: &App) -> Vec<Prompt> {
    let registry = app.dispatcher.registry();
    let defined = registry.content().prompts().iter().map(|d| {
        let arguments: Vec<McpArgument> = (d.arguments.iter())
            .map(|(name, description, required)| {
                let mut argument = McpArgument::new(name).with_required(*required);
                argument.description.clone_from(description);
                argument
            })
            .collect();
        let mut prompt = Prompt::new(
            &d.name,
            d.description.clone(),
            (!arguments.is_empty()).then_some(arguments),
        );
        prompt.title.clone_from(&d.title);
        prompt
    });
    let defined: Vec<Prompt> = defined.collect();
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
        .chain(defined)
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
        return get_defined_prompt(app, name, arguments, cancel).await;
    };
    let values = text_arguments(arguments).collect();
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

/// A prompt's arguments as text: strings as they are, other values as JSON, nulls left out.
fn text_arguments(arguments: &serde_json::Value) -> impl Iterator<Item = (String, String)> + '_ {
    let arguments = arguments.as_object().into_iter().flatten();
    arguments.filter_map(|(name, value)| match value {
        serde_json::Value::String(text) => Some((name.clone(), text.clone())),
        serde_json::Value::Null => None,
        other => Some((name.clone(), other.to_string())),
    })
}

/// `prompts/get` of a prompt defined with the skills (a remote's), or the error naming the
/// prompts there are.
async fn get_defined_prompt(
    app: &App,
    name: &str,
    arguments: &serde_json::Value,
    cancel: CancellationToken,
) -> Result<GetPromptResult, McpError> {
    let registry = app.dispatcher.registry();
    let content = registry.content();
    let values = text_arguments(arguments).collect();
    let Some(got) = content.get_prompt(name, values, cancel) else {
        let compiled = app.catalog.prompts().iter().map(|p| p.name());
        let defined = content.prompts().iter().map(|p| p.name.as_str());
        let known: Vec<&str> = compiled.chain(defined).collect();
        return Err(McpError::invalid_params(
            format!(
                "unknown prompt `{name}`; this server's prompts are: {}",
                known.join(", ")
            ),
            Some(json!({ "prompt": name })),
        ));
    };
    let description = content.prompt(name).and_then(|p| p.description.clone());
    let messages = guarded(got)
        .await
        .map_err(|e| read_error(&e, json!({ "prompt": name })))?;
    let result = GetPromptResult::new(messages.into_iter().map(prompt_message).collect());
    Ok(match description {
        Some(description) => result.with_description(description),
        None => result,
    })
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

/// The arguments `reference` names: a prompt's, or a template's variables; none for a task
/// artifact's or a remote's (whose completions are not offered here).
fn referenced_arguments(app: &App, reference: &Reference) -> Result<&'static [Argument], McpError> {
    let registry = app.dispatcher.registry();
    let defined = registry.content();
    match reference {
        Reference::Prompt(prompt) => match app.catalog.prompt(&prompt.name) {
            Some(found) => Ok(found.arguments()),
            None if defined.prompt(&prompt.name).is_some() => Ok(&[]),
            None => Err(McpError::invalid_params(
                format!("unknown prompt `{}`", prompt.name),
                Some(json!({ "prompt": prompt.name })),
            )),
        },
        Reference::Resource(template) => match app.catalog.template(&template.uri) {
            Some(found) => Ok(found.variables()),
            None if template.uri == ARTIFACT_TEMPLATE
                || defined.templates().any(|t| t.uri == template.uri) =>
            {
                Ok(&[])
            }
            None => Err(McpError::invalid_params(
                format!("unknown resource template `{}`", template.uri),
                Some(json!({ "uri": template.uri })),
            )),
        },
        _ => Err(McpError::invalid_params(
            "ref: unknown reference type; expected ref/prompt or ref/resource",
            None,
        )),
    }
}

/// `completion/complete`: what the argument's completer fn offers, or else the values its type
/// lists that start with what was typed (case-insensitively); at most 100. A completer that
/// panics offers nothing.
pub async fn complete(
    app: &App,
    request: &CompleteRequestParams,
    caller: &CallerId,
) -> Result<CompleteResult, McpError> {
    let arguments = referenced_arguments(app, &request.r#ref)?;
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
