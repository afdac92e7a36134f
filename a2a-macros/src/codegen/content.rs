//! Code for one `#[resource]` or `#[prompt]` fn: the untouched fn, a marker type named like it,
//! the reader that fills its parameters and converts what it returns, and its static descriptor.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::opt_str;
use crate::content::{Content, ContentParam, Kind};
use crate::paths::Runtime;

/// Everything the attribute emits.
pub(crate) fn generate(content: &Content, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let func = &content.func;
    let ident = &func.sig.ident;
    let agent = &content.agent;
    let marker = marker(content.kind, func);
    let request = format_ident!("__a2a_request", span = Span::mixed_site());
    let Parameters {
        args,
        extractions,
        arguments,
        choices,
    } = parameters(content, private, &request);
    let (item, reader_output, convert, descriptor) =
        kind_parts(content, private, &request, &arguments);
    quote! {
        #func
        #marker
        const _: () = {
            const _: () = #private::assert_agent::<#agent>();
            #(#choices)*
            fn __a2a_read(
                #request: #private::ReadRequest,
            ) -> #private::BoxFuture<
                'static,
                ::core::result::Result<::std::vec::Vec<#private::#item>, #private::SkillError>,
            > {
                let _ = &#request;
                #(#extractions)*
                #reader_output
                let __a2a_future = #ident(#(#args),*);
                ::std::boxed::Box::pin(async move {
                    let __a2a_value = __a2a_future.await;
                    #convert
                })
            }
            #descriptor
        };
    }
}

/// What the parameters of a resource or prompt fn become: the reader's locals and extractions,
/// the prompt's argument descriptors, and the helper fns they name.
#[derive(Default)]
struct Parameters {
    args: Vec<syn::Ident>,
    extractions: Vec<TokenStream>,
    arguments: Vec<TokenStream>,
    choices: Vec<TokenStream>,
}

/// Each parameter of `content`: injected ones read with `FromRead`, values read from the
/// request's arguments (with their choices and completer).
fn parameters(content: &Content, private: &TokenStream, request: &syn::Ident) -> Parameters {
    let agent = &content.agent;
    let mut out = Parameters::default();
    for (index, param) in content.params.iter().enumerate() {
        let arg = format_ident!("__a2a_arg{index}", span = Span::mixed_site());
        let extraction = match param {
            ContentParam::Injected { ty } => quote_spanned! {ty.span()=>
                <#ty as #private::FromRead<#agent>>::from_read(&#request)
            },
            ContentParam::Value {
                name,
                description,
                ty,
                optional,
                complete,
                ..
            } => {
                let read = if *optional {
                    quote_spanned!(ty.span()=> #private::optional_argument::<#ty>(&#request, #name))
                } else {
                    quote_spanned!(ty.span()=> #private::required_argument::<#ty>(&#request, #name))
                };
                let choices_fn = format_ident!("__a2a_choices{index}");
                out.choices.push(quote! {
                    fn #choices_fn() -> ::std::vec::Vec<::std::string::String> {
                        #[allow(unused_imports)]
                        use #private::{ViaChoices as _, ViaNoChoices as _};
                        ((&&#private::ChoicesProbe::<#ty>::new()).choices())()
                    }
                });
                let required = !*optional;
                // Spanned on the user's path: a fn of the wrong shape is an error there.
                let complete = match complete {
                    Some(path) => {
                        let completer = format_ident!("__a2a_complete{index}");
                        out.choices.push(quote_spanned! {path.span()=>
                            fn #completer(
                                request: #private::Completion,
                            ) -> #private::BoxFuture<'static, ::std::vec::Vec<::std::string::String>> {
                                ::std::boxed::Box::pin(#path(request))
                            }
                        });
                        quote!(::core::option::Option::Some(#completer))
                    }
                    None => quote!(::core::option::Option::None),
                };
                out.arguments.push(quote! {
                    #private::Argument {
                        name: #name,
                        description: #description,
                        required: #required,
                        choices: #choices_fn,
                        complete: #complete,
                    }
                });
                read
            }
        };
        out.extractions.push(quote! {
            let #arg = match #extraction {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => return #private::ready_read_err(error),
            };
        });
        out.args.push(arg);
    }
    out
}

/// What differs between a resource and a prompt: the reader's item type, what it reads first,
/// how the fn's value converts, and the descriptor with its registration.
fn kind_parts(
    content: &Content,
    private: &TokenStream,
    request: &syn::Ident,
    arguments: &[TokenStream],
) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let ident = &content.func.sig.ident;
    let output = &content.output;
    match content.kind {
        Kind::Resource => {
            let uri = format_ident!("__a2a_uri", span = Span::mixed_site());
            let mime = opt_str(content.mime_type.as_ref());
            let convert = quote_spanned! {output.span()=>
                #private::resource_contents::<#output>(__a2a_value, &#uri, #mime)
            };
            let fields = resource_fields(content, private, arguments);
            (
                quote!(ResourceContent),
                quote!(let #uri = ::std::string::String::from(#request.uri());),
                convert,
                quote! {
                    fn __a2a_default_mime_type() -> ::core::option::Option<&'static str> {
                        #[allow(unused_imports)]
                        use #private::{ViaContents as _, ViaNoContents as _};
                        (&&#private::MimeProbe::<#output>::new()).mime_type()
                    }
                    static __A2A_DESCRIPTOR: #private::ResourceDescriptor =
                        #private::ResourceDescriptor::__new(#private::ResourceParts { #fields });
                    #[automatically_derived]
                    impl #private::ResourceDef for #ident {
                        const DESCRIPTOR: &'static #private::ResourceDescriptor = &__A2A_DESCRIPTOR;
                    }
                    #private::register_resource!(__A2A_DESCRIPTOR);
                },
            )
        }
        Kind::Prompt => {
            let convert = quote_spanned! {output.span()=>
                #private::prompt_messages::<#output>(__a2a_value)
            };
            let fields = prompt_fields(content, private, arguments);
            (
                quote!(PromptMessage),
                TokenStream::new(),
                convert,
                quote! {
                    static __A2A_DESCRIPTOR: #private::PromptDescriptor =
                        #private::PromptDescriptor::__new(#private::PromptParts { #fields });
                    #[automatically_derived]
                    impl #private::PromptDef for #ident {
                        const DESCRIPTOR: &'static #private::PromptDescriptor = &__A2A_DESCRIPTOR;
                    }
                    #private::register_prompt!(__A2A_DESCRIPTOR);
                },
            )
        }
    }
}

fn resource_fields(
    content: &Content,
    private: &TokenStream,
    arguments: &[TokenStream],
) -> TokenStream {
    let agent = &content.agent;
    let (uri, name, description) = (&content.key, &content.name, &content.description);
    let title = opt_str(content.title.as_ref());
    let mime = opt_str(content.mime_type.as_ref());
    let fn_name = content.func.sig.ident.to_string();
    quote! {
        agent: #private::agent_type_id::<#agent>,
        agent_name: #private::agent_type_name::<#agent>,
        uri: #uri,
        name: #name,
        title: #title,
        description: #description,
        mime_type: #mime,
        default_mime_type: __a2a_default_mime_type,
        variables: &[#(#arguments),*],
        read: __a2a_read,
        rust_path: ::core::concat!(::core::module_path!(), "::", #fn_name),
    }
}

fn prompt_fields(
    content: &Content,
    private: &TokenStream,
    arguments: &[TokenStream],
) -> TokenStream {
    let agent = &content.agent;
    let (name, description) = (&content.name, &content.description);
    let title = opt_str(content.title.as_ref());
    let fn_name = content.func.sig.ident.to_string();
    quote! {
        agent: #private::agent_type_id::<#agent>,
        agent_name: #private::agent_type_name::<#agent>,
        name: #name,
        title: #title,
        description: #description,
        arguments: &[#(#arguments),*],
        get: __a2a_read,
        rust_path: ::core::concat!(::core::module_path!(), "::", #fn_name),
    }
}

/// The marker type named like the fn, which `#[agent(resources(..), prompts(..))]` lists.
fn marker(kind: Kind, func: &syn::ItemFn) -> TokenStream {
    let vis = &func.vis;
    let ident = &func.sig.ident;
    let what = match kind {
        Kind::Resource => "resource",
        Kind::Prompt => "prompt",
    };
    let doc = format!("Registration marker for the `{ident}` {what} (generated by `#[{what}]`).");
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, unreachable_pub)]
        #vis struct #ident {}
    }
}

/// What the attribute emits when expansion failed: the marker type bound to an inert
/// descriptor, so a list naming it does not add a second wave of errors.
pub(crate) fn fallback(kind: Kind, func: &syn::ItemFn, runtime: &Runtime) -> TokenStream {
    if func.sig.receiver().is_some() {
        return TokenStream::new();
    }
    let private = runtime.private();
    let ident = &func.sig.ident;
    let marker = marker(kind, func);
    let def = match kind {
        Kind::Resource => quote! {
            impl #private::ResourceDef for #ident {
                const DESCRIPTOR: &'static #private::ResourceDescriptor =
                    &#private::ResourceDescriptor::INVALID;
            }
        },
        Kind::Prompt => quote! {
            impl #private::PromptDef for #ident {
                const DESCRIPTOR: &'static #private::PromptDescriptor =
                    &#private::PromptDescriptor::INVALID;
            }
        },
    };
    quote! {
        #marker
        const _: () = {
            #[automatically_derived]
            #def
        };
    }
}
