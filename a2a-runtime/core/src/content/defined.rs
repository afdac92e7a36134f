//! Resources and prompts of an agent defined at run time (a remote MCP server's): what each is,
//! as its source said, and the [`ContentSource`] reads and gets go to. Served beside a compiled
//! agent's `#[resource]`s and `#[prompt]`s, and replaced whole with the agent's definition.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::prompt::PromptMessage;
use super::resource::ResourceContent;
use super::template::UriTemplate;
use crate::skill_error::SkillError;
use a2a_runtime_types::util::BoxFuture;

/// Where the reads and gets of an agent's defined resources and prompts go.
pub trait ContentSource: Send + Sync {
    /// Reads the resource at `uri` (a listed one, or one a listed template matches).
    fn read(
        &self,
        uri: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<ResourceContent>, SkillError>>;

    /// Gets the prompt `name` with `arguments`: its messages.
    fn get_prompt(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<PromptMessage>, SkillError>>;
}

/// A resource, or a template of resources (its `uri` the template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinedResource {
    /// Its URI, or its URI template.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its media type, if known.
    pub mime_type: Option<String>,
}

/// A prompt and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinedPrompt {
    /// Its name.
    pub name: String,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments: name, description, whether required.
    pub arguments: Vec<(String, Option<String>, bool)>,
}

/// The resources, resource templates and prompts of an agent defined at run time.
#[derive(Clone, Default)]
pub struct DefinedContent {
    resources: Vec<DefinedResource>,
    templates: Vec<(DefinedResource, UriTemplate)>,
    prompts: Vec<DefinedPrompt>,
    source: Option<Arc<dyn ContentSource>>,
}

impl std::fmt::Debug for DefinedContent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefinedContent")
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .field("prompts", &self.prompts.len())
            .finish_non_exhaustive()
    }
}

impl DefinedContent {
    /// `resources`, `templates` (each `uri` a template) and `prompts`, read and got from
    /// `source`.
    pub fn new(
        resources: Vec<DefinedResource>,
        templates: Vec<DefinedResource>,
        prompts: Vec<DefinedPrompt>,
        source: Arc<dyn ContentSource>,
    ) -> Self {
        let templates = templates
            .into_iter()
            .map(|t| {
                let parsed = UriTemplate::parse(&t.uri);
                (t, parsed)
            })
            .collect();
        Self {
            resources,
            templates,
            prompts,
            source: Some(source),
        }
    }

    /// The resources.
    pub fn resources(&self) -> &[DefinedResource] {
        &self.resources
    }

    /// The resource templates.
    pub fn templates(&self) -> impl Iterator<Item = &DefinedResource> {
        self.templates.iter().map(|(t, _)| t)
    }

    /// The prompts.
    pub fn prompts(&self) -> &[DefinedPrompt] {
        &self.prompts
    }

    /// The prompt `name`.
    pub fn prompt(&self, name: &str) -> Option<&DefinedPrompt> {
        self.prompts.iter().find(|p| p.name == name)
    }

    /// Whether `uri` is a listed resource or matches a listed template.
    pub fn serves(&self, uri: &str) -> bool {
        self.resources.iter().any(|r| r.uri == uri)
            || self.templates.iter().any(|(_, t)| t.matches(uri).is_some())
    }

    /// Reads `uri`, when it is served.
    pub fn read(
        &self,
        uri: &str,
        cancel: CancellationToken,
    ) -> Option<BoxFuture<'static, Result<Vec<ResourceContent>, SkillError>>> {
        let source = self.source.as_ref().filter(|_| self.serves(uri))?;
        Some(source.read(uri.to_owned(), cancel))
    }

    /// Gets the prompt `name`, when there is one.
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
        cancel: CancellationToken,
    ) -> Option<BoxFuture<'static, Result<Vec<PromptMessage>, SkillError>>> {
        let source = self
            .source
            .as_ref()
            .filter(|_| self.prompt(name).is_some())?;
        Some(source.get_prompt(name.to_owned(), arguments, cancel))
    }
}
