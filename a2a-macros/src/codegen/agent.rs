//! Code for one agent: the untouched struct, its static descriptor and its `Agent` impl.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{opt_str, str_slice};
use crate::model::Agent;
use crate::paths::Runtime;

/// Everything `#[agent]` emits.
pub(crate) fn generate(agent: &Agent, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let item = &agent.item;
    let ident = &item.ident;
    let (name, description) = (&agent.name, &agent.description);
    let version = match &agent.version {
        Some(version) => quote!(#version),
        // Expanded in the user's crate, so it is the user's package version.
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let provider = match &agent.provider {
        Some((organization, url)) => quote!(::core::option::Option::Some((#organization, #url))),
        None => quote!(::core::option::Option::None),
    };
    let documentation_url = opt_str(agent.documentation_url.as_ref());
    let icon_url = opt_str(agent.icon_url.as_ref());
    let modes = |modes: &Option<Vec<String>>| match modes {
        Some(modes) => {
            let slice = str_slice(modes);
            quote!(::core::option::Option::Some(#slice))
        }
        None => quote!(::core::option::Option::None),
    };
    let default_input_modes = modes(&agent.default_input_modes);
    let default_output_modes = modes(&agent.default_output_modes);
    let skills = agent.skills.iter().map(|path| {
        let span = path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |seg| seg.ident.span());
        quote_spanned!(span=> <#path as #private::SkillDef>::DESCRIPTOR)
    });
    let type_name = ident.to_string();
    quote! {
        #item
        const _: () = {
            static __A2A_AGENT: #private::AgentDescriptor = #private::AgentDescriptor::__new(#private::AgentParts {
                type_name: #type_name,
                name: #name,
                description: #description,
                version: #version,
                provider: #provider,
                documentation_url: #documentation_url,
                icon_url: #icon_url,
                default_input_modes: #default_input_modes,
                default_output_modes: #default_output_modes,
                skills: &[#(#skills),*],
            });
            #[automatically_derived]
            impl #private::Agent for #ident {
                fn __descriptor() -> &'static #private::AgentDescriptor {
                    &__A2A_AGENT
                }
            }
        };
    }
}
