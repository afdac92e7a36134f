//! The Agent Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): each agent's
//! `SKILL.md` is the resource `skill://{name}/SKILL.md`, enumerated by `skills/list` and
//! retrieved by `skills/get` with its digest and size (rmcp's types), read with
//! `resources/read`, and listed among the resources of clients that declare the extension
//! (others' listings stay as they were).

use std::sync::Arc;

use rmcp::model::{
    CacheScope, GetSkillResult, ListSkillsResult, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, SKILLS_EXTENSION_ID, Skill, SkillFrontmatter, SkillResource,
    SkillResources,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

/// The extension's identifier, as capabilities declare it.
pub const EXTENSION: &str = SKILLS_EXTENSION_ID;

/// How long a client may keep a listing: the documents change only with the server.
const LIST_TTL_MS: u64 = 3_600_000;

/// One `SKILL.md` the endpoint serves, with its URI and its listing entry made once (the
/// digest of its bytes is not computed again for every `skills/list`).
#[derive(Debug, Clone)]
pub struct SkillDocument {
    name: String,
    description: String,
    text: Arc<str>,
    uri: String,
    skill: Skill,
}

impl SkillDocument {
    /// The document `text` (byte for byte as the well-known path serves it) of the skill
    /// `name` (its front matter's `name`, the URI's last segment) described as `description`.
    pub fn new(name: String, description: String, text: Arc<str>) -> Self {
        let uri = format!("skill://{name}/SKILL.md");
        let file = SkillResource::from_bytes(&uri, text.as_bytes());
        let frontmatter = SkillFrontmatter::new(&name, &description);
        let skill = Skill::new(&uri, frontmatter, SkillResources::Files(vec![file]));
        Self {
            name,
            description,
            text,
            uri,
            skill,
        }
    }

    /// Its resource URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// The `SKILL.md`s an endpoint serves as they are now: replaced whole when the agents they
/// describe change (agents defined at run time), read whole by each request.
#[derive(Debug, Default)]
pub struct SkillShelf(std::sync::RwLock<Arc<[SkillDocument]>>);

impl SkillShelf {
    /// A shelf of `skills`.
    pub fn new(skills: Vec<SkillDocument>) -> Self {
        Self(std::sync::RwLock::new(skills.into()))
    }

    /// The documents, as they are now.
    pub fn current(&self) -> Arc<[SkillDocument]> {
        let skills = self
            .0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(&skills)
    }

    /// Serves `skills` from now on.
    pub fn replace(&self, skills: Vec<SkillDocument>) {
        let mut shelved = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *shelved = skills.into();
    }
}

/// Whether the client of `context` declared the extension.
pub(crate) fn declared(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.extensions)
        .is_some_and(|extensions| extensions.contains_key(EXTENSION))
}

/// `skills/list`: every document, cacheable by any client for an hour.
pub(crate) fn list(skills: &[SkillDocument]) -> ListSkillsResult {
    let entries = skills.iter().map(|doc| doc.skill.clone()).collect();
    ListSkillsResult::with_all_items(entries)
        .with_ttl_ms(LIST_TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// `skills/get`: the entry of the skill at `uri`; -32602 naming the field otherwise.
pub(crate) fn get(skills: &[SkillDocument], uri: &str) -> Result<GetSkillResult, McpError> {
    match skills.iter().find(|skill| skill.uri() == uri) {
        Some(skill) => Ok(GetSkillResult::new(skill.skill.clone())),
        None => Err(McpError::invalid_params(
            format!("no skill at `{uri}`; this server serves: {}", known(skills)),
            Some(json!({ "field": "uri", "uri": uri })),
        )),
    }
}

/// The `SKILL.md` at `uri`, if it is one of `skills`.
pub(crate) fn read(skills: &[SkillDocument], uri: &str) -> Option<ReadResourceResponse> {
    let skill = skills.iter().find(|skill| skill.uri() == uri)?;
    let contents =
        ResourceContents::text(skill.text.to_string(), uri).with_mime_type("text/markdown");
    Some(ReadResourceResponse::Complete(ReadResourceResult::new(
        vec![contents],
    )))
}

/// The documents as listed resources.
pub(crate) fn resources(skills: &[SkillDocument]) -> impl Iterator<Item = Resource> + '_ {
    skills.iter().map(|skill| {
        Resource::new(skill.uri(), &skill.name)
            .with_description(&skill.description)
            .with_mime_type("text/markdown")
    })
}

fn known(skills: &[SkillDocument]) -> String {
    let uris: Vec<&str> = skills.iter().map(SkillDocument::uri).collect();
    if uris.is_empty() {
        "none".to_owned()
    } else {
        uris.join(", ")
    }
}
