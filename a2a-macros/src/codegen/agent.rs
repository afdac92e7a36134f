//! Code for one agent: the untouched struct, its static descriptor and its `Agent` impl.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{opt_str, str_slice};
use crate::model::{Agent, Flow, KeyLocation, Scheme, SchemeKind};
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
    let listed = |paths: &[syn::Path], def: TokenStream| -> Vec<TokenStream> {
        paths
            .iter()
            .map(|path| {
                let span = path
                    .segments
                    .last()
                    .map_or_else(proc_macro2::Span::call_site, |seg| seg.ident.span());
                quote_spanned!(span=> <#path as #private::#def>::DESCRIPTOR)
            })
            .collect()
    };
    let skills = listed(&agent.skills, quote!(SkillDef));
    let resources = listed(&agent.resources, quote!(ResourceDef));
    let prompts = listed(&agent.prompts, quote!(PromptDef));
    let type_name = ident.to_string();
    let security = agent
        .security
        .iter()
        .map(|scheme| scheme_expr(scheme, private));
    // Skills that require scopes check, at compile time, that their agent declares a scheme
    // whose tokens carry them.
    let scoped = agent
        .security
        .iter()
        .any(|scheme| scheme.kind.carries_scopes())
        .then(|| {
            quote! {
                #[automatically_derived]
                impl #private::ScopedSecurity for #ident {}
            }
        });
    let extensions = agent.extensions.iter().map(|extension| {
        let (uri, description, required) =
            (&extension.uri, &extension.description, extension.required);
        let params = opt_str(extension.params.as_ref());
        quote!(#private::ExtensionDescriptor {
            uri: #uri,
            description: #description,
            required: #required,
            params: #params,
        })
    });
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
                resources: &[#(#resources),*],
                prompts: &[#(#prompts),*],
                security: || ::std::vec![#(#security),*],
                extensions: &[#(#extensions),*],
            });
            #[automatically_derived]
            impl #private::Agent for #ident {
                fn __descriptor() -> &'static #private::AgentDescriptor {
                    &__A2A_AGENT
                }
            }
            #scoped
        };
    }
}

/// What `#[agent]` emits when expansion failed: the `Agent` impl (and the scope marker) over an
/// inert descriptor, so each of its skills does not add a "not an agent" error to the real one.
pub(crate) fn fallback(
    ident: &syn::Ident,
    generics: &syn::Generics,
    runtime: &Runtime,
) -> TokenStream {
    if !generics.params.is_empty() {
        return TokenStream::new();
    }
    let private = runtime.private();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #private::Agent for #ident {
                fn __descriptor() -> &'static #private::AgentDescriptor {
                    &#private::AgentDescriptor::INVALID
                }
            }
            #[automatically_derived]
            impl #private::ScopedSecurity for #ident {}
        };
    }
}

/// A `NamedScheme` expression for one declared scheme.
fn scheme_expr(scheme: &Scheme, private: &TokenStream) -> TokenStream {
    let string = |value: &String| quote!(::std::string::String::from(#value));
    let kind = match &scheme.kind {
        SchemeKind::ApiKey { location, name } => {
            let location = match location {
                KeyLocation::Header => quote!(Header),
                KeyLocation::Query => quote!(Query),
                KeyLocation::Cookie => quote!(Cookie),
            };
            let name = string(name);
            quote!(#private::SecurityScheme::ApiKey {
                location: #private::ApiKeyLocation::#location,
                name: #name,
            })
        }
        SchemeKind::Bearer => quote!(#private::SecurityScheme::Bearer),
        SchemeKind::OAuth2 { metadata_url, flow } => {
            let metadata_url = match metadata_url {
                Some(url) => {
                    let url = string(url);
                    quote!(::core::option::Option::Some(#url))
                }
                None => quote!(::core::option::Option::None),
            };
            let flow = match flow {
                None => quote!(::core::option::Option::None),
                Some(flow) => {
                    let flow = match flow {
                        Flow::AuthorizationCode {
                            authorization_url,
                            token_url,
                        } => {
                            let (a, t) = (string(authorization_url), string(token_url));
                            quote!(#private::OAuthFlow::AuthorizationCode { authorization_url: #a, token_url: #t })
                        }
                        Flow::ClientCredentials { token_url } => {
                            let t = string(token_url);
                            quote!(#private::OAuthFlow::ClientCredentials { token_url: #t })
                        }
                        Flow::DeviceCode {
                            device_authorization_url,
                            token_url,
                        } => {
                            let (d, t) = (string(device_authorization_url), string(token_url));
                            quote!(#private::OAuthFlow::DeviceCode { device_authorization_url: #d, token_url: #t })
                        }
                    };
                    quote!(::core::option::Option::Some(#flow))
                }
            };
            quote!(#private::SecurityScheme::OAuth2 { metadata_url: #metadata_url, flow: #flow })
        }
        SchemeKind::OpenIdConnect { url } => {
            let url = string(url);
            quote!(#private::SecurityScheme::OpenIdConnect { url: #url })
        }
        SchemeKind::MutualTls => quote!(#private::SecurityScheme::MutualTls),
    };
    let name = &scheme.name;
    let description = opt_str(scheme.description.as_ref());
    quote!(#private::declared_scheme(#name, #description, #kind))
}
