//! `#[agent]`: reads a struct into [`model::Agent`], reporting every problem at once.

use darling::Error;
use proc_macro2::TokenStream;
use quote::quote;

use crate::args::{self, AgentArgs};
use crate::errors::Errors;
use crate::model::{Agent, Extension};
use crate::paths::Runtime;
use crate::{check, codegen, docs, security};

/// Entry point: parse, check, generate; on error the struct is still emitted unchanged.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(item)) => item,
        other => return not_a_struct(other.ok(), &args, item),
    };
    let mut errors = Errors::new();
    let args = errors.handle(args::parse::<AgentArgs>(args));
    let runtime = Runtime::new(args.as_ref().and_then(|a| a.krate.as_ref()));
    let agent = args.and_then(|args| build(item.clone(), args, &mut errors));
    match (errors.finish(), agent) {
        (Ok(()), Some(agent)) => codegen::agent::generate(&agent, &runtime),
        (Err(err), _) => {
            let err = err.write_errors();
            let fallback =
                codegen::agent::fallback(&item.ident, &item.vis, &item.generics, &runtime);
            quote!(#err #item #fallback)
        }
        (Ok(()), None) => {
            quote!(::core::compile_error!("a2a-macros: #[agent] failed without a diagnostic; please report this bug"); #item)
        }
    }
}

/// `#[agent]` on an enum, a union, a fn...: one error on the item's keyword, and for a type the
/// fallback impl, so skills naming it do not each add "not an agent".
fn not_a_struct(item: Option<syn::Item>, args: &TokenStream, tokens: TokenStream) -> TokenStream {
    let message =
        "#[agent] goes on a struct (or unit struct) whose value is the agent's shared state";
    let runtime = args::parse::<AgentArgs>(args.clone())
        .ok()
        .map_or_else(|| Runtime::new(None), |a| Runtime::new(a.krate.as_ref()));
    let span = crate::errors::item_keyword_span(item.as_ref());
    let fallback = match &item {
        Some(syn::Item::Enum(item)) => {
            codegen::agent::fallback(&item.ident, &item.vis, &item.generics, &runtime)
        }
        Some(syn::Item::Union(item)) => {
            codegen::agent::fallback(&item.ident, &item.vis, &item.generics, &runtime)
        }
        _ => TokenStream::new(),
    };
    let err = Error::custom(message).with_span(&span).write_errors();
    quote!(#err #tokens #fallback)
}

fn build(item: syn::ItemStruct, args: AgentArgs, errors: &mut Errors) -> Option<Agent> {
    let before = errors.count();
    if !item.generics.params.is_empty() {
        errors.push(
            Error::custom(
                "#[agent] structs cannot be generic: the agent card is fixed at compile time",
            )
            .with_span(&item.generics),
        );
    }
    let doc = docs::read(&item.attrs);
    let description = args.description.or(doc.description);
    if description.is_none() {
        errors.push(
            Error::custom(format!(
                "agent `{}` has no doc comment; add `/// What this agent does.` above the struct \
                 (it becomes the agent card's description), or set `description = \"...\"`",
                item.ident
            ))
            .with_span(&item.ident),
        );
    }
    for (key, url) in [
        ("documentation_url", &args.documentation_url),
        ("icon_url", &args.icon_url),
    ] {
        if let Some(url) = url {
            errors.handle(check::absolute_url(url, key, url.span()));
        }
    }
    let modes = |modes: Option<args::StrList>, errors: &mut Errors| {
        modes.map(|modes| {
            modes
                .iter()
                .filter_map(|m| errors.handle(check::media_type(m)))
                .collect()
        })
    };
    let default_input_modes = modes(args.default_input_modes, errors);
    let default_output_modes = modes(args.default_output_modes, errors);
    let security = match args.security {
        Some(declared) => {
            let span = declared.span();
            security::read(declared.into_inner(), span, errors)
        }
        None => Vec::new(),
    };
    let extensions = extensions(args.extensions, errors);
    if errors.count() > before {
        return None;
    }
    Some(Agent {
        name: args
            .name
            .unwrap_or_else(|| docs::words_from_type_name(&item.ident.to_string())),
        description: description?,
        version: args.version,
        provider: args.provider.map(|p| (p.organization, p.url)),
        documentation_url: args.documentation_url.map(|u| (*u).clone()),
        instructions: args.instructions,
        icon_url: args.icon_url.map(|u| (*u).clone()),
        default_input_modes,
        default_output_modes,
        skills: args.skills.to_vec(),
        resources: args.resources.to_vec(),
        prompts: args.prompts.to_vec(),
        security,
        extensions,
        item,
    })
}

/// The declared extensions, each URI checked and listed once, each `params` a JSON object.
fn extensions(args: args::ExtensionsArgs, errors: &mut Errors) -> Vec<Extension> {
    let mut seen = std::collections::BTreeSet::new();
    let mut read = Vec::new();
    for extension in args.list {
        let uri = extension.uri.value();
        if let Err(error) = check::extension_uri(&extension.uri) {
            errors.push(error);
            continue;
        }
        if !seen.insert(uri.clone()) {
            errors.push(
                Error::custom(format!("extension {uri:?} is declared twice"))
                    .with_span(&extension.uri),
            );
            continue;
        }
        let params = match &extension.params {
            Some(params) => match check::json_object(params) {
                Ok(()) => Some(params.value()),
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            },
            None => None,
        };
        read.push(Extension {
            uri,
            description: extension.description.unwrap_or_default(),
            required: extension.required,
            params,
        });
    }
    read
}
