//! `#[resource]` and `#[prompt]`: read one `async fn` into [`Content`], reporting every problem
//! at once, then generate its descriptor (`codegen/content.rs`).

use darling::util::SpannedValue;
use darling::{Error, FromMeta};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType, Type};

use crate::errors::Errors;
use crate::paths::Runtime;
use crate::types::last_segment;
use crate::{args, check, codegen, docs};

/// Parameter types the runtime injects into resources and prompts, by last path segment.
const INJECTED: &[&str] = &["State", "Caller", "PromptContext"];

/// `#[resource(...)]`.
#[derive(Debug, FromMeta)]
pub(crate) struct ResourceArgs {
    pub(crate) agent: Option<syn::Path>,
    /// The URI, or a URI template with `{name}` variables.
    pub(crate) uri: syn::LitStr,
    pub(crate) name: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<syn::LitStr>,
    #[darling(rename = "crate")]
    pub(crate) krate: Option<syn::Path>,
}

/// `#[prompt(...)]`.
#[derive(Debug, FromMeta)]
pub(crate) struct PromptArgs {
    pub(crate) agent: Option<syn::Path>,
    pub(crate) name: Option<SpannedValue<String>>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    #[darling(rename = "crate")]
    pub(crate) krate: Option<syn::Path>,
}

/// Which attribute is being expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    fn attribute(self) -> &'static str {
        match self {
            Self::Resource => "#[resource]",
            Self::Prompt => "#[prompt]",
        }
    }
}

/// One parameter: injected, or a value read from text (a template variable or an argument).
pub(crate) enum ContentParam {
    Injected {
        ty: Type,
    },
    Value {
        /// The name clients use (the parameter's, unless `#[arg(name = "..")]`).
        name: String,
        /// The span to report the name at.
        span: Span,
        description: String,
        /// The type read: the parameter's, or `T` of an `Option<T>`.
        ty: Type,
        optional: bool,
        /// The fn completing it (`#[arg(complete = path)]`).
        complete: Option<syn::Path>,
    },
}

/// One `#[resource]` or `#[prompt]` fn, read and checked.
pub(crate) struct Content {
    pub(crate) kind: Kind,
    pub(crate) func: syn::ItemFn,
    pub(crate) agent: syn::Path,
    /// The resource URI or template; the prompt name.
    pub(crate) key: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) mime_type: Option<String>,
    pub(crate) params: Vec<ContentParam>,
    /// The value type the fn returns.
    pub(crate) output: Type,
}

/// Entry point for both attributes. On any error the user's fn is still emitted (without our
/// parameter attributes), with its marker type, so the rest of the crate keeps compiling.
pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            let span = crate::errors::item_keyword_span(syn::parse2(item.clone()).ok().as_ref());
            let err = Error::custom(format!("{} goes on an `async fn`", kind.attribute()))
                .with_span(&span);
            let err = err.write_errors();
            return quote!(#err #item);
        }
    };
    let mut errors = Errors::new();
    let params = read_params(kind, &mut func, &mut errors);
    let (content, krate) = match kind {
        Kind::Resource => match errors.handle(args::parse::<ResourceArgs>(args)) {
            Some(args) => {
                let krate = args.krate.clone();
                (
                    build_resource(func.clone(), args, params, &mut errors),
                    krate,
                )
            }
            None => (None, None),
        },
        Kind::Prompt => match errors.handle(args::parse::<PromptArgs>(args)) {
            Some(args) => {
                let krate = args.krate.clone();
                (build_prompt(func.clone(), args, params, &mut errors), krate)
            }
            None => (None, None),
        },
    };
    let runtime = Runtime::new(krate.as_ref());
    match (errors.finish(), content) {
        (Ok(()), Some(content)) => codegen::content::generate(&content, &runtime),
        (Err(err), _) => {
            let err = err.write_errors();
            let marker = codegen::content::fallback(kind, &func, &runtime);
            quote!(#err #func #marker)
        }
        (Ok(()), None) => quote!(::core::compile_error!(
            "a2a-macros: expansion failed without a diagnostic; please report this bug"
        );),
    }
}

/// Reads the parameters, stripping `///` docs, `#[inject]` and `#[arg(name = "..")]` from them.
fn read_params(kind: Kind, func: &mut syn::ItemFn, errors: &mut Errors) -> Vec<ContentParam> {
    let mut params = Vec::new();
    for arg in &mut func.sig.inputs {
        let pat_type = match arg {
            FnArg::Receiver(receiver) => {
                errors.push(
                    Error::custom(format!(
                        "{} functions cannot take `self`; take the agent's state as a \
                         `State<YourAgent>` parameter",
                        kind.attribute()
                    ))
                    .with_span(&receiver.self_token),
                );
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        let description = docs::lines(&pat_type.attrs).join("\n").trim().to_owned();
        let before = pat_type.attrs.len();
        pat_type
            .attrs
            .retain(|attr| !attr.path().is_ident("inject"));
        let forced_inject = pat_type.attrs.len() != before;
        let ArgAttr { renamed, complete } = take_arg_attr(&mut pat_type.attrs, errors);
        pat_type.attrs.retain(|attr| !attr.path().is_ident("doc"));
        let ident = match &*pat_type.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
            other => {
                errors.push(
                    Error::custom(format!(
                        "{} parameters must be plain names (`id: String`)",
                        kind.attribute()
                    ))
                    .with_span(other),
                );
                continue;
            }
        };
        let ty = (*pat_type.ty).clone();
        if forced_inject || is_injected(&ty) {
            if let Some(path) = &complete {
                errors.push(
                    Error::custom(
                        "an injected parameter is not an argument; it has no completions",
                    )
                    .with_span(path),
                );
            }
            params.push(ContentParam::Injected { ty });
            continue;
        }
        let (name, span) = match renamed {
            Some(lit) => (lit.value(), lit.span()),
            None => (
                ident.to_string().trim_start_matches("r#").to_owned(),
                ident.span(),
            ),
        };
        let (ty, optional) = match option_inner(&ty) {
            Some(inner) => (inner.clone(), true),
            None => (ty, false),
        };
        params.push(ContentParam::Value {
            name,
            span,
            description,
            ty,
            optional,
            complete,
        });
    }
    params
}

/// What `#[arg(..)]` says of a parameter.
struct ArgAttr {
    /// `name = "resourceUri"`: the name clients use.
    renamed: Option<syn::LitStr>,
    /// `complete = path::to::fn`: the fn offering its completions.
    complete: Option<syn::Path>,
}

/// Reads and strips `#[arg(name = "..", complete = path)]`.
fn take_arg_attr(attrs: &mut Vec<syn::Attribute>, errors: &mut Errors) -> ArgAttr {
    let mut found = ArgAttr {
        renamed: None,
        complete: None,
    };
    attrs.retain(|attr| {
        if !attr.path().is_ident("arg") {
            return true;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                found.renamed = Some(meta.value()?.parse::<syn::LitStr>()?);
                Ok(())
            } else if meta.path.is_ident("complete") {
                let value = meta.value()?;
                found.complete = Some(value.parse::<syn::Path>().map_err(|_| {
                    value.error(
                        "expected the path of an `async fn(Completion) -> Vec<String>`, \
                         as in `complete = suggest_names`",
                    )
                })?);
                Ok(())
            } else {
                Err(meta.error("expected `name = \"...\"` or `complete = path::to::fn`"))
            }
        });
        if let Err(error) = parsed {
            errors.push(error.into());
        }
        false
    });
    found
}

fn is_injected(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|seg| INJECTED.iter().any(|name| seg.ident == name))
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty).filter(|seg| seg.ident == "Option")?;
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
            match args.args.first() {
                Some(syn::GenericArgument::Type(inner)) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The checks every fn shape shares: `async`, no qualifiers, not generic, an agent, a doc
/// comment; the value type it returns.
fn check_fn(
    kind: Kind,
    func: &syn::ItemFn,
    agent: Option<syn::Path>,
    description: Option<String>,
    errors: &mut Errors,
) -> (Option<syn::Path>, Option<String>, Type) {
    let sig = &func.sig;
    let attribute = kind.attribute();
    if sig.asyncness.is_none() {
        errors.push(
            Error::custom(format!(
                "{attribute} functions must be `async fn`; add `async` before `fn`"
            ))
            .with_span(&sig.fn_token),
        );
    }
    for (present, what, span) in [
        (sig.constness.is_some(), "`const`", sig.constness.span()),
        (
            matches!(sig.safety, syn::Safety::Unsafe(_)),
            "`unsafe`",
            sig.safety.span(),
        ),
        (sig.abi.is_some(), "an `extern` ABI", sig.abi.span()),
    ] {
        if present {
            errors.push(
                Error::custom(format!("{attribute} functions cannot be {what}")).with_span(&span),
            );
        }
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(
            Error::custom(format!(
                "{attribute} functions cannot be generic; use concrete types"
            ))
            .with_span(&sig.generics),
        );
    }
    if agent.is_none() {
        let keyword = match kind {
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        };
        errors.push(Error::custom(format!(
            "{attribute} needs the agent it belongs to: `#[{keyword}(agent = YourAgent, ..)]`"
        )));
    }
    let description = description.or(docs::read(&func.attrs).description);
    if description.is_none() {
        errors.push(
            Error::custom(format!(
                "`{}` has no doc comment; add `/// What this is.` above the fn (MCP clients \
                 show it), or set `description = \"...\"`",
                sig.ident
            ))
            .with_span(&sig.ident),
        );
    }
    let output = match &sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => syn::parse_quote_spanned!(sig.ident.span()=> ()),
    };
    (agent, description, output)
}

fn build_resource(
    func: syn::ItemFn,
    args: ResourceArgs,
    params: Vec<ContentParam>,
    errors: &mut Errors,
) -> Option<Content> {
    let before = errors.count();
    let (agent, description, output) =
        check_fn(Kind::Resource, &func, args.agent, args.description, errors);
    let uri = args.uri.value();
    // An unreadable template is reported once, not again at every parameter.
    let variables = errors.handle(check::uri_template(&args.uri));
    if let Some(variables) = &variables {
        check_variables(&args.uri, &uri, variables, &params, errors);
    }
    let mime_type = args
        .mime_type
        .as_ref()
        .and_then(|m| errors.handle(check::media_type(m)));
    if errors.count() > before {
        return None;
    }
    Some(Content {
        kind: Kind::Resource,
        name: args.name.unwrap_or_else(|| func.sig.ident.to_string()),
        agent: agent?,
        key: uri,
        title: args.title,
        description: description?,
        mime_type,
        params,
        output,
        func,
    })
}

/// The parameters of a resource fn against the `variables` of its URI template (`uri_lit`,
/// `uri`): each value parameter is a variable, never optional, and each variable has one.
fn check_variables(
    uri_lit: &syn::LitStr,
    uri: &str,
    variables: &[String],
    params: &[ContentParam],
    errors: &mut Errors,
) {
    for param in params {
        let ContentParam::Value {
            name,
            span,
            optional,
            ..
        } = param
        else {
            continue;
        };
        if !variables.contains(name) {
            let hint = if variables.is_empty() {
                format!("`{uri}` is a static URI: it has no variables")
            } else {
                format!("its variables are {}", variables.join(", "))
            };
            errors.push(
                Error::custom(format!(
                    "parameter `{name}` is not a variable of the resource's URI template; \
                     {hint} (inject the agent's state with `State<YourAgent>`)"
                ))
                .with_span(span),
            );
        } else if *optional {
            errors.push(
                Error::custom(format!(
                    "template variable `{name}` is always present in a matching URI; take it \
                     as `T`, not `Option<T>`"
                ))
                .with_span(span),
            );
        }
    }
    for variable in variables {
        let taken = params
            .iter()
            .any(|p| matches!(p, ContentParam::Value { name, .. } if name == variable));
        if !taken {
            errors.push(
                Error::custom(format!(
                    "URI template variable `{variable}` has no parameter; add `{variable}: \
                     String` (or another `FromStr` type) to the fn"
                ))
                .with_span(uri_lit),
            );
        }
    }
}

fn build_prompt(
    func: syn::ItemFn,
    args: PromptArgs,
    params: Vec<ContentParam>,
    errors: &mut Errors,
) -> Option<Content> {
    let before = errors.count();
    let (agent, description, output) =
        check_fn(Kind::Prompt, &func, args.agent, args.description, errors);
    let name = match &args.name {
        Some(name) => {
            errors.handle(check::prompt_name(name, name.span()));
            (**name).clone()
        }
        None => func.sig.ident.to_string(),
    };
    let mut seen = std::collections::BTreeSet::new();
    for param in &params {
        if let ContentParam::Value { name, span, .. } = param
            && !seen.insert(name.clone())
        {
            errors.push(
                Error::custom(format!("two parameters are both named `{name}`")).with_span(span),
            );
        }
    }
    if errors.count() > before {
        return None;
    }
    Some(Content {
        kind: Kind::Prompt,
        agent: agent?,
        key: name.clone(),
        name,
        title: args.title,
        description: description?,
        mime_type: None,
        params,
        output,
        func,
    })
}
