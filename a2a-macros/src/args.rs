//! Attribute arguments, parsed declaratively with darling. Unknown keys get "did you mean"
//! suggestions and duplicate keys are reported by darling itself.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::{Flag, PathList, SpannedValue};
use proc_macro2::TokenStream;
use syn::LitStr;

/// `#[skill(...)]`.
#[derive(Debug, FromMeta)]
pub(crate) struct SkillArgs {
    /// The agent type this skill belongs to.
    pub(crate) agent: Option<syn::Path>,
    /// Skill id (A2A) and tool name (MCP); defaults to the fn name.
    pub(crate) id: Option<SpannedValue<String>>,
    /// Human-readable name; defaults to the first paragraph of the doc comment.
    pub(crate) name: Option<String>,
    /// Description; defaults to the doc comment.
    pub(crate) description: Option<String>,
    #[darling(default)]
    pub(crate) tags: Vec<LitStr>,
    #[darling(default)]
    pub(crate) examples: Vec<LitStr>,
    #[darling(default)]
    pub(crate) input_modes: Vec<LitStr>,
    #[darling(default)]
    pub(crate) output_modes: Vec<LitStr>,
    #[darling(default)]
    pub(crate) scopes: Vec<LitStr>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    /// The skill used when a message names none and several skills exist.
    pub(crate) default: Flag,
    /// Path of the runtime crate, for crates that re-export it.
    #[darling(rename = "crate")]
    pub(crate) krate: Option<syn::Path>,
}

/// `provider(organization = "...", url = "...")` inside `#[agent(...)]`.
#[derive(Debug, FromMeta)]
pub(crate) struct ProviderArgs {
    pub(crate) organization: String,
    pub(crate) url: String,
}

/// `#[agent(...)]`.
#[derive(Debug, FromMeta)]
pub(crate) struct AgentArgs {
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) provider: Option<ProviderArgs>,
    pub(crate) documentation_url: Option<SpannedValue<String>>,
    pub(crate) icon_url: Option<SpannedValue<String>>,
    pub(crate) default_input_modes: Option<Vec<LitStr>>,
    pub(crate) default_output_modes: Option<Vec<LitStr>>,
    /// Skills listed explicitly (for libraries and targets without link-time registration).
    #[darling(default)]
    pub(crate) skills: PathList,
    #[darling(rename = "crate")]
    pub(crate) krate: Option<syn::Path>,
}

/// Parses the tokens inside `#[skill(...)]` or `#[agent(...)]`.
pub(crate) fn parse<T: FromMeta>(args: TokenStream) -> darling::Result<T> {
    NestedMeta::parse_meta_list(args)
        .map_err(darling::Error::from)
        .and_then(|meta| T::from_list(&meta))
}
