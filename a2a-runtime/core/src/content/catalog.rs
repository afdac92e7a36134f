//! One agent's resources and prompts, collected once at startup (listed explicitly or registered
//! at link time), checked for clashes, and looked up by URI or name.

use std::any::TypeId;
use std::collections::HashMap;

use super::prompt::PromptDescriptor;
use super::resource::ResourceDescriptor;
use super::template::UriTemplate;
use crate::error::Error;

/// A link-time registration, submitted by `#[resource]`.
#[doc(hidden)]
pub struct ResourceRegistration(pub &'static ResourceDescriptor);

/// A link-time registration, submitted by `#[prompt]`.
#[doc(hidden)]
pub struct PromptRegistration(pub &'static PromptDescriptor);

inventory::collect!(ResourceRegistration);
inventory::collect!(PromptRegistration);

/// What a URI names: a declared resource (with its template variables' values).
pub struct Found {
    pub resource: &'static ResourceDescriptor,
    pub values: HashMap<String, String>,
}

/// The resources and prompts of one agent.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Static resources, by URI order.
    resources: Vec<&'static ResourceDescriptor>,
    /// Templated resources with their parsed templates, in URI order.
    templates: Vec<(&'static ResourceDescriptor, UriTemplate)>,
    /// Prompts by name order.
    prompts: Vec<&'static PromptDescriptor>,
}

impl Catalog {
    /// Collects agent `agent`'s resources and prompts: those listed explicitly and (with the
    /// `auto-register` feature) those registered at link time. Two resources with one URI, or
    /// two prompts with one name, are an error.
    pub fn build(
        agent: TypeId,
        agent_name: &str,
        resources: &[&'static ResourceDescriptor],
        prompts: &[&'static PromptDescriptor],
    ) -> Result<Self, Error> {
        let mut found_resources = resources.to_vec();
        let mut found_prompts = prompts.to_vec();
        if cfg!(feature = "auto-register") {
            found_resources.extend(
                inventory::iter::<ResourceRegistration>
                    .into_iter()
                    .map(|r| r.0)
                    .filter(|d| d.agent_type() == agent),
            );
            found_prompts.extend(
                inventory::iter::<PromptRegistration>
                    .into_iter()
                    .map(|r| r.0)
                    .filter(|d| d.agent_type() == agent),
            );
        }
        let resources = distinct(found_resources, ResourceDescriptor::uri, "resource URI")?;
        let prompts = distinct(found_prompts, PromptDescriptor::name, "prompt name")?;
        if let Some(foreign) = resources.iter().find(|d| d.agent_type() != agent) {
            return Err(Error::Config(format!(
                "resource `{}` ({}) belongs to agent `{}`, not `{agent_name}`",
                foreign.uri(),
                foreign.rust_path(),
                foreign.agent_name()
            )));
        }
        if let Some(foreign) = prompts.iter().find(|d| d.agent_type() != agent) {
            return Err(Error::Config(format!(
                "prompt `{}` ({}) belongs to agent `{}`, not `{agent_name}`",
                foreign.name(),
                foreign.rust_path(),
                foreign.agent_name()
            )));
        }
        let (templates, resources): (Vec<_>, Vec<_>) =
            resources.into_iter().partition(|d| d.is_template());
        Ok(Self {
            resources,
            templates: templates.into_iter().map(|d| (d, d.template())).collect(),
            prompts,
        })
    }

    /// Whether the agent has any prompts.
    pub fn has_prompts(&self) -> bool {
        !self.prompts.is_empty()
    }

    /// The static resources.
    pub fn resources(&self) -> &[&'static ResourceDescriptor] {
        &self.resources
    }

    /// The templated resources.
    pub fn templates(&self) -> impl Iterator<Item = &'static ResourceDescriptor> + '_ {
        self.templates.iter().map(|(d, _)| *d)
    }

    /// The prompts.
    pub fn prompts(&self) -> &[&'static PromptDescriptor] {
        &self.prompts
    }

    /// The resource `uri` names: a static one exactly, else the first template it matches.
    pub fn resource(&self, uri: &str) -> Option<Found> {
        if let Some(resource) = self.resources.iter().find(|d| d.uri() == uri) {
            return Some(Found {
                resource,
                values: HashMap::new(),
            });
        }
        self.templates.iter().find_map(|(resource, template)| {
            template
                .matches(uri)
                .map(|values| Found { resource, values })
        })
    }

    /// The templated resource declared with exactly `template`.
    pub fn template(&self, template: &str) -> Option<&'static ResourceDescriptor> {
        self.templates().find(|d| d.uri() == template)
    }

    /// The prompt `name`.
    pub fn prompt(&self, name: &str) -> Option<&'static PromptDescriptor> {
        self.prompts.iter().copied().find(|d| d.name() == name)
    }
}

/// `found` sorted by `key` with duplicates (the same descriptor listed twice) removed; two
/// different descriptors with one key are an error.
fn distinct<D: 'static>(
    mut found: Vec<&'static D>,
    key: fn(&D) -> &'static str,
    what: &str,
) -> Result<Vec<&'static D>, Error> {
    found.sort_by(|a, b| {
        key(a)
            .cmp(key(b))
            .then((*a as *const D).cmp(&(*b as *const D)))
    });
    found.dedup_by(|a, b| std::ptr::eq(*a, *b));
    if let Some(pair) = found.windows(2).find(|pair| key(pair[0]) == key(pair[1])) {
        return Err(Error::Config(format!(
            "two declarations share the {what} `{}`",
            key(pair[0])
        )));
    }
    Ok(found)
}
