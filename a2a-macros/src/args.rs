//! Attribute arguments, parsed declaratively with darling. Unknown keys get "did you mean"
//! suggestions and duplicate keys are reported by darling itself.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::{Flag, Override, PathList, SpannedValue};
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
    pub(crate) tags: StrList,
    #[darling(default)]
    pub(crate) examples: StrList,
    #[darling(default)]
    pub(crate) input_modes: StrList,
    #[darling(default)]
    pub(crate) output_modes: StrList,
    #[darling(default)]
    pub(crate) scopes: StrList,
    /// Listed only on the extended agent card, shown to authenticated callers.
    pub(crate) extended_only: Flag,
    /// Callable over MCP without credentials on an agent that otherwise requires them.
    pub(crate) public: Flag,
    /// What a restart does with the skill's unfinished tasks: `"answers"`, `"rerun"`, `"never"`.
    pub(crate) resume: Option<LitStr>,
    /// Whether MCP clients of the tasks extension get a task: `"optional"`, `"required"`,
    /// `"forbidden"`.
    pub(crate) task_support: Option<LitStr>,
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
    /// What MCP's `initialize` tells a model about using the agent (its description otherwise).
    pub(crate) instructions: Option<String>,
    pub(crate) icon_url: Option<SpannedValue<String>>,
    pub(crate) default_input_modes: Option<StrList>,
    pub(crate) default_output_modes: Option<StrList>,
    /// Skills listed explicitly (for libraries and targets without link-time registration).
    #[darling(default)]
    pub(crate) skills: PathList,
    /// Resources and prompts listed explicitly, like `skills`.
    #[darling(default)]
    pub(crate) resources: PathList,
    #[darling(default)]
    pub(crate) prompts: PathList,
    /// The security schemes callers authenticate with.
    pub(crate) security: Option<SpannedValue<SecurityArgs>>,
    /// The A2A extensions the agent supports: `extensions(extension(uri = "..", ..), ..)`.
    #[darling(default)]
    pub(crate) extensions: ExtensionsArgs,
    #[darling(rename = "crate")]
    pub(crate) krate: Option<syn::Path>,
}

/// `extensions(extension(uri = "..", description = "..", required = true, params = "{..}"), ..)`.
#[derive(Debug, Default, FromMeta)]
pub(crate) struct ExtensionsArgs {
    #[darling(multiple, rename = "extension")]
    pub(crate) list: Vec<ExtensionArgs>,
}

/// One `extension(..)`: an entry of the card's `capabilities.extensions`.
#[derive(Debug, FromMeta)]
pub(crate) struct ExtensionArgs {
    pub(crate) uri: LitStr,
    pub(crate) description: Option<String>,
    /// Clients must activate it (`A2A-Extensions`) or every request is refused with -32008.
    #[darling(default)]
    pub(crate) required: bool,
    /// Its `params`: a JSON object, written as a string.
    pub(crate) params: Option<LitStr>,
}

/// `security(api_key, bearer, oauth2(..), openid_connect(..), mtls)` inside `#[agent(...)]`:
/// one entry per scheme kind; a bare word takes the defaults.
#[derive(Debug, Default, FromMeta)]
pub(crate) struct SecurityArgs {
    pub(crate) api_key: Option<SpannedValue<Override<ApiKeyArgs>>>,
    pub(crate) bearer: Option<SpannedValue<Override<SchemeArgs>>>,
    pub(crate) oauth2: Option<SpannedValue<Override<OAuth2Args>>>,
    pub(crate) openid_connect: Option<SpannedValue<OpenIdConnectArgs>>,
    pub(crate) mtls: Option<SpannedValue<Override<SchemeArgs>>>,
}

/// The keys every scheme takes: its name in the card and a description.
#[derive(Debug, Default, FromMeta)]
pub(crate) struct SchemeArgs {
    pub(crate) name: Option<SpannedValue<String>>,
    pub(crate) description: Option<String>,
}

/// `api_key(header = "X-API-Key")`, or `query = ..`, or `cookie = ..`.
#[derive(Debug, Default, FromMeta)]
pub(crate) struct ApiKeyArgs {
    pub(crate) name: Option<SpannedValue<String>>,
    pub(crate) description: Option<String>,
    pub(crate) header: Option<SpannedValue<String>>,
    pub(crate) query: Option<SpannedValue<String>>,
    pub(crate) cookie: Option<SpannedValue<String>>,
}

/// `oauth2(metadata_url = .., client_credentials(token_url = ..))`.
#[derive(Debug, Default, FromMeta)]
pub(crate) struct OAuth2Args {
    pub(crate) name: Option<SpannedValue<String>>,
    pub(crate) description: Option<String>,
    pub(crate) metadata_url: Option<SpannedValue<String>>,
    pub(crate) authorization_code: Option<SpannedValue<AuthorizationCodeArgs>>,
    pub(crate) client_credentials: Option<SpannedValue<ClientCredentialsArgs>>,
    pub(crate) device_code: Option<SpannedValue<DeviceCodeArgs>>,
}

/// The OAuth 2 authorization code flow (with PKCE).
#[derive(Debug, FromMeta)]
pub(crate) struct AuthorizationCodeArgs {
    pub(crate) authorization_url: SpannedValue<String>,
    pub(crate) token_url: SpannedValue<String>,
}

/// The OAuth 2 client credentials flow.
#[derive(Debug, FromMeta)]
pub(crate) struct ClientCredentialsArgs {
    pub(crate) token_url: SpannedValue<String>,
}

/// The OAuth 2 device authorization flow.
#[derive(Debug, FromMeta)]
pub(crate) struct DeviceCodeArgs {
    pub(crate) device_authorization_url: SpannedValue<String>,
    pub(crate) token_url: SpannedValue<String>,
}

/// `openid_connect(url = "https://issuer/.well-known/openid-configuration")`.
#[derive(Debug, FromMeta)]
pub(crate) struct OpenIdConnectArgs {
    pub(crate) name: Option<SpannedValue<String>>,
    pub(crate) description: Option<String>,
    pub(crate) url: SpannedValue<String>,
}

/// A list of string literals, `key = ["a", "b"]`. A lone string (`tags = "finance"`) is an
/// error that says the key takes a list, rather than darling's "unknown value".
#[derive(Debug, Default)]
pub(crate) struct StrList(pub(crate) Vec<LitStr>);

impl std::ops::Deref for StrList {
    type Target = Vec<LitStr>;

    fn deref(&self) -> &Vec<LitStr> {
        &self.0
    }
}

impl FromMeta for StrList {
    fn from_value(value: &syn::Lit) -> darling::Result<Self> {
        match value {
            syn::Lit::Str(text) => Err(darling::Error::custom(format!(
                "this key takes a list of strings: write `[{:?}]`",
                text.value()
            ))
            .with_span(text)),
            other => Err(darling::Error::unexpected_lit_type(other)),
        }
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        match expr {
            syn::Expr::Lit(lit) => Self::from_value(&lit.lit),
            syn::Expr::Group(group) => Self::from_expr(&group.expr),
            _ => Vec::<LitStr>::from_expr(expr).map(Self),
        }
    }
}

/// Parses the tokens inside `#[skill(...)]` or `#[agent(...)]`.
pub(crate) fn parse<T: FromMeta>(args: TokenStream) -> darling::Result<T> {
    NestedMeta::parse_meta_list(args)
        .map_err(darling::Error::from)
        .and_then(|meta| T::from_list(&meta))
}
