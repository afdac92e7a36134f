//! [`AgentAbout`]: what an agent says of itself (its name, description, version, provider,
//! default media types), as the card, MCP's `initialize` and the discovery documents show it:
//! from `#[agent]`, or from a remote agent's card.

use std::borrow::Cow;

use crate::descriptor::{AgentDescriptor, DEFAULT_MODES, ExtensionDescriptor, Package};

/// Text that is the descriptor's own for a compiled agent, and owned for a remote one.
pub type Text = Cow<'static, str>;

/// What an agent says of itself.
#[derive(Debug, Clone)]
pub struct AgentAbout {
    /// The Rust type name of a compiled agent; what defined a remote one.
    pub type_name: Text,
    /// The display name.
    pub name: Text,
    /// The description.
    pub description: Text,
    /// The version.
    pub version: Text,
    /// `(organization, url)` of the provider.
    pub provider: Option<(Text, Text)>,
    /// Documentation URL.
    pub documentation_url: Option<Text>,
    /// What MCP's `initialize` tells a client about using the agent; the description if none.
    pub instructions: Option<Text>,
    /// Icon URL.
    pub icon_url: Option<Text>,
    /// Media types the agent accepts unless a skill says otherwise.
    pub default_input_modes: Vec<Text>,
    /// Media types the agent produces unless a skill says otherwise.
    pub default_output_modes: Vec<Text>,
    /// The A2A extensions the agent declares.
    pub extensions: &'static [ExtensionDescriptor],
    /// The crate that declares a compiled agent (empty for a remote one).
    pub package: Package,
}

impl AgentAbout {
    /// What a compiled agent's descriptor says.
    pub fn of(descriptor: &'static AgentDescriptor) -> Self {
        let modes = |modes: &'static [&'static str]| modes.iter().map(|m| Text::Borrowed(*m));
        Self {
            type_name: Text::Borrowed(descriptor.type_name()),
            name: Text::Borrowed(descriptor.name()),
            description: Text::Borrowed(descriptor.description()),
            version: Text::Borrowed(descriptor.version()),
            provider: descriptor
                .provider()
                .map(|(org, url)| (Text::Borrowed(org), Text::Borrowed(url))),
            documentation_url: descriptor.documentation_url().map(Text::Borrowed),
            instructions: Some(Text::Borrowed(descriptor.instructions())),
            icon_url: descriptor.icon_url().map(Text::Borrowed),
            default_input_modes: modes(descriptor.default_input_modes()).collect(),
            default_output_modes: modes(descriptor.default_output_modes()).collect(),
            extensions: descriptor.extensions(),
            package: descriptor.package(),
        }
    }

    /// An agent known only by its name and description so far, with the default media types
    /// (a remote whose card has not been read yet).
    pub fn named(type_name: String, name: String, description: String) -> Self {
        let defaults = || DEFAULT_MODES.iter().map(|m| Text::Borrowed(*m)).collect();
        Self {
            type_name: Text::Owned(type_name),
            name: Text::Owned(name),
            description: Text::Owned(description),
            version: Text::Borrowed(""),
            provider: None,
            documentation_url: None,
            instructions: None,
            icon_url: None,
            default_input_modes: defaults(),
            default_output_modes: defaults(),
            extensions: &[],
            package: Package::default(),
        }
    }

    /// The Rust type name of a compiled agent; what defined a remote one.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }
    /// The display name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The description.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// The version.
    pub fn version(&self) -> &str {
        &self.version
    }
    /// `(organization, url)` of the provider.
    pub fn provider(&self) -> Option<(&str, &str)> {
        self.provider.as_ref().map(|(org, url)| (&**org, &**url))
    }
    /// Documentation URL.
    pub fn documentation_url(&self) -> Option<&str> {
        self.documentation_url.as_deref()
    }
    /// What MCP's `initialize` tells a client about using the agent; its description if none.
    pub fn instructions(&self) -> &str {
        self.instructions.as_deref().unwrap_or(&self.description)
    }
    /// Icon URL.
    pub fn icon_url(&self) -> Option<&str> {
        self.icon_url.as_deref()
    }
    /// Default input media types.
    pub fn default_input_modes(&self) -> &[Text] {
        &self.default_input_modes
    }
    /// Default output media types.
    pub fn default_output_modes(&self) -> &[Text] {
        &self.default_output_modes
    }
    /// The A2A extensions the agent declares.
    pub fn extensions(&self) -> &'static [ExtensionDescriptor] {
        self.extensions
    }
    /// The crate that declares a compiled agent.
    pub fn package(&self) -> Package {
        self.package
    }
}
