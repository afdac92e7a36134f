//! The checked intermediate form of an agent and a skill. Spans are kept so codegen can point
//! diagnostics at the user's tokens; no tokens are built here.

use proc_macro2::Span;

/// One `#[skill]` function, read and checked.
pub(crate) struct Skill {
    pub(crate) func: syn::ItemFn,
    pub(crate) agent: syn::Path,
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) tags: Vec<String>,
    pub(crate) examples: Vec<String>,
    pub(crate) input_modes: Vec<String>,
    pub(crate) output_modes: Vec<String>,
    pub(crate) scopes: Vec<String>,
    /// The span of the first scope, where a missing scope-carrying scheme is reported.
    pub(crate) scopes_span: Option<Span>,
    pub(crate) extended_only: bool,
    /// Callable over MCP without credentials.
    pub(crate) public: bool,
    pub(crate) resume: ResumePolicy,
    pub(crate) task_support: TaskSupport,
    pub(crate) hints: Hints,
    pub(crate) is_default: bool,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Output,
}

/// `task_support = "..."`: whether MCP calls of the skill become tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum TaskSupport {
    #[default]
    Optional,
    Required,
    Forbidden,
}

impl TaskSupport {
    /// The values by the names the attribute takes.
    pub(crate) const NAMES: [(&'static str, Self); 3] = [
        ("optional", Self::Optional),
        ("required", Self::Required),
        ("forbidden", Self::Forbidden),
    ];
}

/// `resume = "..."`: what a restart does with the skill's unfinished tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum ResumePolicy {
    #[default]
    Answers,
    Rerun,
    Never,
}

impl ResumePolicy {
    /// The policies by the names the attribute takes.
    pub(crate) const NAMES: [(&'static str, Self); 3] = [
        ("answers", Self::Answers),
        ("rerun", Self::Rerun),
        ("never", Self::Never),
    ];
}

/// MCP tool annotations.
#[derive(Default)]
pub(crate) struct Hints {
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

/// One parameter of a skill function.
pub(crate) struct Param {
    pub(crate) ident: syn::Ident,
    pub(crate) ty: syn::Type,
    pub(crate) kind: ParamKind,
}

/// Whether the runtime injects a parameter or the caller supplies it.
pub(crate) enum ParamKind {
    /// Filled by an extractor (`State<A>`, `TaskContext`, ...).
    Injected,
    /// A property of the skill's input object.
    Input { doc: Vec<String> },
}

/// How the return value becomes a skill result.
pub(crate) struct Output {
    /// `Some(error type)` when the fn returns a `Result`-like type. The error type is `None` for a
    /// one-argument alias such as `anyhow::Result<T>`, whose error type cannot be seen.
    pub(crate) result: Option<Option<syn::Type>>,
    /// The success value's type (the whole return type unless it is a `Result`).
    pub(crate) value: syn::Type,
    /// `Some(T)` when the value is `impl Stream<Item = T>`: the runtime drives the stream and
    /// sends each item as a chunk of a streamed artifact.
    pub(crate) stream_item: Option<syn::Type>,
    /// The span of the declared return type, for diagnostics.
    pub(crate) span: Span,
}

/// One `#[agent]` struct, read and checked.
pub(crate) struct Agent {
    pub(crate) item: syn::ItemStruct,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) version: Option<String>,
    pub(crate) provider: Option<(String, String)>,
    pub(crate) documentation_url: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) icon_url: Option<String>,
    pub(crate) default_input_modes: Option<Vec<String>>,
    pub(crate) default_output_modes: Option<Vec<String>>,
    pub(crate) skills: Vec<syn::Path>,
    pub(crate) resources: Vec<syn::Path>,
    pub(crate) prompts: Vec<syn::Path>,
    pub(crate) security: Vec<Scheme>,
    pub(crate) extensions: Vec<Extension>,
}

/// One A2A extension declared with `#[agent(extensions(..))]`.
pub(crate) struct Extension {
    pub(crate) uri: String,
    pub(crate) description: String,
    pub(crate) required: bool,
    /// Checked to be a JSON object.
    pub(crate) params: Option<String>,
}

/// One security scheme declared with `#[agent(security(..))]`.
pub(crate) struct Scheme {
    /// Its key in the card's `securitySchemes`.
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) kind: SchemeKind,
}

/// What kind of credentials a scheme takes.
pub(crate) enum SchemeKind {
    /// A static key in a header, query parameter or cookie (`location`, `name`).
    ApiKey { location: KeyLocation, name: String },
    /// `Authorization: Bearer <JWT>`.
    Bearer,
    /// OAuth 2 access tokens.
    OAuth2 {
        metadata_url: Option<String>,
        flow: Option<Flow>,
    },
    /// OpenID Connect tokens, the provider named by its discovery document.
    OpenIdConnect { url: String },
    /// A client certificate.
    MutualTls,
}

impl SchemeKind {
    /// Whether this scheme's tokens carry scopes, so skills may require them.
    pub(crate) fn carries_scopes(&self) -> bool {
        matches!(
            self,
            Self::Bearer | Self::OAuth2 { .. } | Self::OpenIdConnect { .. }
        )
    }
}

/// Where an API key travels.
#[derive(Clone, Copy)]
pub(crate) enum KeyLocation {
    Header,
    Query,
    Cookie,
}

/// The OAuth 2 flow a client uses.
pub(crate) enum Flow {
    AuthorizationCode {
        authorization_url: String,
        token_url: String,
    },
    ClientCredentials {
        token_url: String,
    },
    DeviceCode {
        device_authorization_url: String,
        token_url: String,
    },
}
