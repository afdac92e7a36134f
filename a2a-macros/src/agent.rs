//! `#[agent]`: reads a struct into [`model::Agent`], reporting every problem at once.

use darling::Error;
use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::args::{self, AgentArgs};
use crate::errors::Errors;
use crate::model::Agent;
use crate::paths::Runtime;
use crate::{check, codegen, docs, security};

/// Entry point: parse, check, generate; on error the struct is still emitted unchanged.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemStruct = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = Error::custom(
                "#[agent] goes on a struct (or unit struct) whose value is the agent's shared state",
            )
            .with_span(&Span::call_site());
            let err = err.write_errors();
            return quote!(#err #item);
        }
    };
    let mut errors = Errors::new();
    let args = errors.handle(args::parse::<AgentArgs>(args));
    let runtime = Runtime::new(args.as_ref().and_then(|a| a.krate.as_ref()));
    let agent = args.and_then(|args| build(item.clone(), args, &mut errors));
    match (errors.finish(), agent) {
        (Ok(()), Some(agent)) => codegen::agent::generate(&agent, &runtime),
        (Err(err), _) => {
            let err = err.write_errors();
            let fallback = codegen::agent::fallback(&item, &runtime);
            quote!(#err #item #fallback)
        }
        (Ok(()), None) => {
            quote!(::core::compile_error!("a2a-macros: #[agent] failed without a diagnostic; please report this bug"); #item)
        }
    }
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
    let modes = |modes: Option<Vec<syn::LitStr>>, errors: &mut Errors| {
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
        icon_url: args.icon_url.map(|u| (*u).clone()),
        default_input_modes,
        default_output_modes,
        skills: args.skills.to_vec(),
        security,
        item,
    })
}
