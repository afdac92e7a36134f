//! A remote MCP server's resources, resource templates and prompts: listed page by page
//! (bounded as its tools are) when it declares them, served beside its tools, and each read or
//! get forwarded to it within the call timeout, its answer turned into the runtime's own.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    ContentBlock, GetPromptRequestParams, PaginatedRequestParams, Prompt,
    ReadResourceRequestParams, Resource, ResourceContents, ResourceTemplate, Role,
};
use tokio_util::sync::CancellationToken;

use super::link::{MAX_PAGES, MAX_TOOLS, McpLink, Session};
use crate::definition::{bounded, plain};
use crate::failure::{INVALID_ANSWER, remote_failure};
use a2a_runtime_core::content::{
    ContentSource, DefinedContent, DefinedPrompt, DefinedResource, PromptContent, PromptMessage,
    PromptRole, ResourceBody, ResourceContent,
};
use a2a_runtime_core::skill_error::SkillError;
use a2a_runtime_types::util::BoxFuture;

/// What a remote lists besides its tools.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Listed {
    pub(crate) resources: Vec<Resource>,
    pub(crate) templates: Vec<ResourceTemplate>,
    pub(crate) prompts: Vec<Prompt>,
}

/// One page of a list: its items, and the cursor of the next.
type Page<T> = Result<(Vec<T>, Option<String>), rmcp::ServiceError>;

impl McpLink {
    /// The remote's resources, templates and prompts, each list read when the remote declares
    /// it.
    pub(crate) async fn content(self: &Arc<Self>) -> Result<Listed, SkillError> {
        let session = self.session().await?;
        let peer = session.service.peer().clone();
        let declared = peer.peer_info().map(|info| info.capabilities.clone());
        let (resources, prompts) = declared.map_or((false, false), |c| {
            (c.resources.is_some(), c.prompts.is_some())
        });
        let mut listed = Listed::default();
        if resources {
            listed.resources = self
                .paged(&session, "resources/list", |params| {
                    let peer = peer.clone();
                    async move {
                        let page = peer.list_resources(Some(params)).await?;
                        Ok((page.resources, page.next_cursor))
                    }
                })
                .await?;
            listed.templates = self
                .paged(&session, "resources/templates/list", |params| {
                    let peer = peer.clone();
                    async move {
                        let page = peer.list_resource_templates(Some(params)).await?;
                        Ok((page.resource_templates, page.next_cursor))
                    }
                })
                .await?;
        }
        if prompts {
            listed.prompts = self
                .paged(&session, "prompts/list", |params| {
                    let peer = peer.clone();
                    async move {
                        let page = peer.list_prompts(Some(params)).await?;
                        Ok((page.prompts, page.next_cursor))
                    }
                })
                .await?;
        }
        Ok(listed)
    }

    /// Every page of `method`, each within the call timeout, at most [`MAX_TOOLS`] items.
    async fn paged<T, F, Fut>(
        &self,
        session: &Arc<Session>,
        method: &str,
        page: F,
    ) -> Result<Vec<T>, SkillError>
    where
        F: Fn(PaginatedRequestParams) -> Fut,
        Fut: Future<Output = Page<T>>,
    {
        let mut items = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let (got, next) = match tokio::time::timeout(self.settings.timeout, page(params)).await
            {
                Ok(Ok(got)) => got,
                Ok(Err(error)) => return Err(self.failed(session, error).await),
                Err(_) => {
                    return Err(self.unreachable(&format!("{method} was not answered in time")));
                }
            };
            items.extend(got);
            cursor = next.filter(|next| !next.is_empty());
            if cursor.is_none() || items.len() >= MAX_TOOLS {
                break;
            }
        }
        if items.len() > MAX_TOOLS || cursor.is_some() {
            tracing::warn!(remote = %self.id, method, "a longer list than the host serves; the first {MAX_TOOLS} kept");
            items.truncate(MAX_TOOLS);
        }
        Ok(items)
    }
}

/// The longest URI, URI template or prompt name served: a longer one is left out (it cannot be
/// shortened and still name what the remote serves).
const MAX_KEY: usize = 2048;
/// The longest name or title kept (on one line).
const MAX_NAME: usize = 200;
/// The longest description kept (as plain text).
const MAX_DESCRIPTION: usize = 4000;

/// `listed` as the runtime serves it, each read and get forwarded through `link`; the remote's
/// text bounded and kept plain as its tools' is.
pub(crate) fn defined(link: &Arc<McpLink>, listed: &Listed) -> DefinedContent {
    let text = |name: &str, title: &Option<String>, description: &Option<String>| {
        (
            bounded(name, MAX_NAME),
            title.as_deref().map(|t| bounded(t, MAX_NAME)),
            description.as_deref().map(|d| plain(d, MAX_DESCRIPTION)),
        )
    };
    let resource = |uri: &str, name, title, description, mime_type: &Option<String>| {
        let (name, title, description) = text(name, title, description);
        (uri.len() <= MAX_KEY).then(|| DefinedResource {
            uri: uri.to_owned(),
            name,
            title,
            description,
            mime_type: mime_type.as_deref().map(|m| bounded(m, MAX_NAME)),
        })
    };
    let resources = (listed.resources.iter())
        .filter_map(|r| resource(&r.uri, &r.name, &r.title, &r.description, &r.mime_type));
    let templates = (listed.templates.iter()).filter_map(|t| {
        resource(
            &t.uri_template,
            &t.name,
            &t.title,
            &t.description,
            &t.mime_type,
        )
    });
    let prompts = listed
        .prompts
        .iter()
        .filter(|p| p.name.len() <= MAX_KEY)
        .map(|p| {
            let (_, title, description) = text(&p.name, &p.title, &p.description);
            let arguments = p.arguments.iter().flatten().map(|a| {
                let description = a.description.as_deref().map(|d| plain(d, MAX_DESCRIPTION));
                (a.name.clone(), description, a.required == Some(true))
            });
            DefinedPrompt {
                name: p.name.clone(),
                title,
                description,
                arguments: arguments.collect(),
            }
        });
    let source = Arc::new(Forwarded {
        link: Arc::clone(link),
    });
    DefinedContent::new(
        resources.collect(),
        templates.collect(),
        prompts.collect(),
        source,
    )
}

/// Reads and gets forwarded to the remote.
struct Forwarded {
    link: Arc<McpLink>,
}

impl ContentSource for Forwarded {
    fn read(
        &self,
        uri: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<ResourceContent>, SkillError>> {
        let link = Arc::clone(&self.link);
        Box::pin(async move {
            let session = link.session().await?;
            let peer = session.service.peer().clone();
            let read = peer.read_resource(ReadResourceRequestParams::new(uri));
            let read = within(&link, &session, read, cancel, "resources/read").await?;
            read.contents
                .into_iter()
                .map(|contents| resource_content(&link, contents))
                .collect()
        })
    }

    fn get_prompt(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<PromptMessage>, SkillError>> {
        let link = Arc::clone(&self.link);
        Box::pin(async move {
            let session = link.session().await?;
            let peer = session.service.peer().clone();
            let arguments = arguments
                .into_iter()
                .map(|(name, value)| (name, serde_json::Value::String(value)))
                .collect();
            let request = GetPromptRequestParams::new(name).with_arguments(arguments);
            let got = peer.get_prompt(request);
            let got = within(&link, &session, got, cancel, "prompts/get").await?;
            got.messages
                .into_iter()
                .map(|message| prompt_message(&link, message.role, message.content))
                .collect()
        })
    }
}

/// `request`'s answer within the call timeout, unless `cancel` fires first.
async fn within<T>(
    link: &McpLink,
    session: &Arc<Session>,
    request: impl Future<Output = Result<T, rmcp::ServiceError>>,
    cancel: CancellationToken,
    method: &str,
) -> Result<T, SkillError> {
    tokio::select! {
        answered = tokio::time::timeout(link.settings.timeout, request) => match answered {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(error)) => Err(link.failed(session, error).await),
            Err(_) => Err(link.unreachable(&format!("{method} was not answered in time"))),
        },
        () = cancel.cancelled() => Err(SkillError::new(link.named(&format!("{method} was abandoned by its caller")))),
    }
}

/// One piece of a resource the remote read.
fn resource_content(
    link: &McpLink,
    contents: ResourceContents,
) -> Result<ResourceContent, SkillError> {
    Ok(match contents {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => ResourceContent {
            uri,
            mime_type,
            body: ResourceBody::Text(text),
        },
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => ResourceContent {
            uri,
            mime_type,
            body: ResourceBody::Blob(decoded(link, &blob)?),
        },
        _ => return Err(unreadable(link, "a resource's contents")),
    })
}

/// The remote answered something of a kind this host does not read.
fn unreadable(link: &McpLink, what: &str) -> SkillError {
    let message = link.named(&format!("sent {what} of a kind this host does not read"));
    remote_failure(&link.id, message, INVALID_ANSWER)
}

/// One message of a prompt the remote gave; a link to a resource is its URI as text.
fn prompt_message(
    link: &McpLink,
    role: Role,
    content: ContentBlock,
) -> Result<PromptMessage, SkillError> {
    let role = match role {
        Role::User => PromptRole::User,
        Role::Assistant => PromptRole::Assistant,
    };
    let content = match content {
        ContentBlock::Text(text) => PromptContent::Text(text.text),
        ContentBlock::Image(image) => PromptContent::Image {
            data: decoded(link, &image.data)?,
            mime_type: image.mime_type,
        },
        ContentBlock::Audio(audio) => PromptContent::Audio {
            data: decoded(link, &audio.data)?,
            mime_type: audio.mime_type,
        },
        ContentBlock::Resource(embedded) => {
            PromptContent::Resource(resource_content(link, embedded.resource)?)
        }
        ContentBlock::ResourceLink(resource) => PromptContent::Text(resource.uri),
        _ => return Err(unreadable(link, "a prompt message")),
    };
    Ok(PromptMessage { role, content })
}

/// Base64 the remote sent, decoded; an error naming the remote otherwise.
fn decoded(link: &McpLink, data: &str) -> Result<Vec<u8>, SkillError> {
    STANDARD.decode(data).map_err(|e| {
        let message = link.named(&format!("sent base64 that cannot be read: {e}"));
        remote_failure(&link.id, message, INVALID_ANSWER)
    })
}
