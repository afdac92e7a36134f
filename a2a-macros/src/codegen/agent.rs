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
    let vis = &item.vis;
    let parts = agent_parts(agent, private);
    let client = client_struct(agent, runtime);
    // Skills that require scopes check, at compile time, that their agent declares a scheme
    // whose tokens carry them.
    let serving = serving(ident, vis, private);
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
    quote! {
        #item
        #client
        const _: () = {
            static __A2A_AGENT: #private::AgentDescriptor = #private::AgentDescriptor::__new(#parts);
            #[automatically_derived]
            impl #private::Agent for #ident {
                fn __descriptor() -> &'static #private::AgentDescriptor {
                    &__A2A_AGENT
                }
            }
            #scoped
        };
        #serving
    }
}

/// The `AgentParts` of the agent's descriptor: its card metadata, the skills, resources and
/// prompts listed explicitly, its security schemes and extensions.
fn agent_parts(agent: &Agent, private: &TokenStream) -> TokenStream {
    let type_name = agent.item.ident.to_string();
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
    let instructions = opt_str(agent.instructions.as_ref());
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
    let security = agent
        .security
        .iter()
        .map(|scheme| scheme_expr(scheme, private));
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
    let package = super::package::package_parts(private);
    quote! {
        #private::AgentParts {
                type_name: #type_name,
                name: #name,
                description: #description,
                version: #version,
                provider: #provider,
                documentation_url: #documentation_url,
                instructions: #instructions,
                icon_url: #icon_url,
                default_input_modes: #default_input_modes,
                default_output_modes: #default_output_modes,
                skills: &[#(#skills),*],
                resources: &[#(#resources),*],
                prompts: &[#(#prompts),*],
                security: || ::std::vec![#(#security),*],
                extensions: &[#(#extensions),*],
                package: #package,
            }
    }
}

/// `server()` and `serve()` on the agent's own type: inherent, so calling them needs no import.
fn serving(ident: &syn::Ident, vis: &syn::Visibility, private: &TokenStream) -> TokenStream {
    quote! {
        #[automatically_derived]
        #[allow(dead_code)]
        impl #ident {
            /// A server for this agent, to configure before serving or mounting (generated by
            /// `#[agent]`).
            #vis fn server(self) -> #private::AgentServer {
                #private::AgentServer::new(self)
            }

            /// Serves this agent over A2A and MCP, configured from command-line flags and
            /// environment variables, until Ctrl-C (generated by `#[agent]`).
            #vis async fn serve(self) -> ::core::result::Result<(), #private::Error> {
                #private::AgentServer::new(self).serve().await
            }
        }
    }
}

/// The agent's typed client, `{Agent}Client`, beside the agent: how it connects and answers
/// questions. Each `#[skill]` of the agent adds its method.
fn client_struct(agent: &Agent, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let item = &agent.item;
    let vis = &item.vis;
    let client = quote::format_ident!("{}Client", item.ident);
    let doc = format!(
        "A typed client of the `{}` agent (generated by `#[agent]`): one async method per skill, \
         with the skill's input and output types, over A2A or MCP.",
        agent.name
    );
    quote! {
        #private::with_client! {
            #[doc = #doc]
            #[derive(Clone, Debug)]
            #vis struct #client {
                skills: #private::SkillClient,
            }

            impl #client {
                /// Connects over A2A to the agent at `base_url` (its card is read there).
                #vis async fn connect(
                    base_url: impl ::core::convert::Into<::std::string::String>,
                ) -> ::core::result::Result<Self, #private::ClientError> {
                    ::core::result::Result::Ok(Self {
                        skills: #private::SkillClient::connect(base_url).await?,
                    })
                }

                /// Connects over MCP (streamable HTTP) to the agent's MCP endpoint `url`.
                #vis async fn connect_mcp(
                    url: impl ::core::convert::Into<::std::string::String>,
                ) -> ::core::result::Result<Self, #private::ClientError> {
                    ::core::result::Result::Ok(Self {
                        skills: #private::SkillClient::connect_mcp(url).await?,
                    })
                }

                /// Calls through `skills` (an A2A client set up with authentication, say).
                #vis fn from_skills(skills: #private::SkillClient) -> Self {
                    Self { skills }
                }

                /// Answers the skills' questions with `answer` (`None` leaves one unanswered).
                #[must_use]
                #vis fn on_question<F, Fut>(self, answer: F) -> Self
                where
                    F: ::core::ops::Fn(#private::Question) -> Fut
                        + ::core::marker::Send
                        + ::core::marker::Sync
                        + 'static,
                    Fut: ::core::future::Future<
                            Output = ::core::option::Option<#private::serde_json::Value>,
                        > + ::core::marker::Send
                        + 'static,
                {
                    Self { skills: self.skills.on_question(answer) }
                }

                /// The untyped client underneath.
                #vis fn skills(&self) -> &#private::SkillClient {
                    &self.skills
                }
            }

            impl #private::TypedClient for #client {
                fn from_skills(skills: #private::SkillClient) -> Self {
                    Self { skills }
                }
            }
        }
    }
}

/// What `#[agent]` emits when expansion failed: the `Agent` impl (and the scope marker) over an
/// inert descriptor, so each of its skills does not add a "not an agent" error to the real one.
pub(crate) fn fallback(
    ident: &syn::Ident,
    vis: &syn::Visibility,
    generics: &syn::Generics,
    runtime: &Runtime,
) -> TokenStream {
    if !generics.params.is_empty() {
        return TokenStream::new();
    }
    let private = runtime.private();
    let serving = serving(ident, vis, private);
    quote! {
        #serving
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
