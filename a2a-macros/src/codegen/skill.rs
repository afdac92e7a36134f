//! Code for one skill: the untouched user fn, a marker type for explicit registration, the input
//! struct, the call shim, the static descriptor and its link-time registration.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};

use super::{opt_bool, str_slice};
use crate::model::{ParamKind, ResumePolicy, Skill, TaskSupport};
use crate::paths::Runtime;

/// Everything `#[skill]` emits for a well-formed skill.
pub(crate) fn generate(skill: &Skill, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let func = &skill.func;
    let ident = &func.sig.ident;
    let marker = marker(func);
    let input = input_struct(skill, runtime);
    let shim = call_shim(skill, runtime);
    let agent = &skill.agent;
    let agent_check = quote_spanned! {agent_span(agent)=>
        const _: () = #private::assert_agent::<#agent>();
    };
    let output_fns = output_fns(skill, runtime);
    let client_method = client_method(skill, runtime);
    // The agent's tokens take the scopes' span, so rustc underlines the scopes.
    let scope_check = skill.scopes_span.map(|span| {
        let agent = respan(agent.to_token_stream(), span);
        quote_spanned! {span=>
            const _: () = #private::assert_scoped_security::<#agent>();
        }
    });
    let parts = skill_parts(skill, private);
    quote! {
        #func
        #marker
        const _: () = {
            #agent_check
            #scope_check
            #input
            #output_fns
            #shim
            static __A2A_DESCRIPTOR: #private::SkillDescriptor = #private::SkillDescriptor::__new(#parts);
            #[automatically_derived]
            impl #private::SkillDef for #ident {
                const DESCRIPTOR: &'static #private::SkillDescriptor = &__A2A_DESCRIPTOR;
            }
            #private::register_skill!(__A2A_DESCRIPTOR);
            #client_method
        };
    }
}

/// The `SkillParts` of the skill's descriptor: its card entry, MCP hints, policies, and the
/// fns the generated code defines beside it (schemas, decoding, the call shim).
fn skill_parts(skill: &Skill, private: &TokenStream) -> TokenStream {
    let agent = &skill.agent;
    let extended_only = skill.extended_only;
    let public = skill.public;
    let resume = match skill.resume {
        ResumePolicy::Answers => quote!(#private::Resume::Answers),
        ResumePolicy::Rerun => quote!(#private::Resume::Rerun),
        ResumePolicy::Never => quote!(#private::Resume::Never),
    };
    let task_support = match skill.task_support {
        TaskSupport::Optional => quote!(#private::TaskSupport::Optional),
        TaskSupport::Required => quote!(#private::TaskSupport::Required),
        TaskSupport::Forbidden => quote!(#private::TaskSupport::Forbidden),
    };
    let (id, name, description) = (&skill.id, &skill.name, &skill.description);
    let tags = str_slice(&skill.tags);
    let examples = str_slice(&skill.examples);
    let input_modes = str_slice(&skill.input_modes);
    let output_modes = str_slice(&skill.output_modes);
    let scopes = str_slice(&skill.scopes);
    let read_only = opt_bool(skill.hints.read_only);
    let destructive = opt_bool(skill.hints.destructive);
    let idempotent = opt_bool(skill.hints.idempotent);
    let open_world = opt_bool(skill.hints.open_world);
    let is_default = skill.is_default;
    let fn_name = skill.func.sig.ident.to_string();
    quote! {
        #private::SkillParts {
                agent: #private::agent_type_id::<#agent>,
                agent_name: #private::agent_type_name::<#agent>,
                id: #id,
                name: #name,
                description: #description,
                tags: #tags,
                examples: #examples,
                input_modes: #input_modes,
                output_modes: #output_modes,
                produces: __a2a_produces,
                replies: __a2a_replies,
                scopes: #scopes,
                extended_only: #extended_only,
                public: #public,
                resume: #resume,
                task_support: #task_support,
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
                is_default: #is_default,
                input_schema: __A2A_INPUT.schema,
                decode_input: __A2A_INPUT.decode,
                output_schema: __a2a_output_schema,
                call: __a2a_call,
                rust_path: ::core::concat!(::core::module_path!(), "::", #fn_name),
                file: ::core::file!(),
                line: ::core::line!(),
            }
    }
}

/// The skill's method on its agent's typed client (`CurrencyClient::convert` for skill
/// `convert` of agent `Currency`): the input parameters, typed, and the output, typed. Its
/// bounds name the method's lifetime, so a skill whose types are not serde both ways compiles
/// and only a call of its method fails (on those bounds).
fn client_method(skill: &Skill, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let mut client = skill.agent.clone();
    let Some(last) = client.segments.last_mut() else {
        return TokenStream::new();
    };
    last.ident = format_ident!("{}Client", last.ident);
    let func = &skill.func;
    let (vis, ident, id) = (&func.vis, &func.sig.ident, &skill.id);
    let lifetime = syn::Lifetime::new("'__a2a_client", Span::mixed_site());
    let inputs: Vec<_> = skill
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Input { .. }))
        .collect();
    let args = inputs.iter().map(|param| {
        let (ident, ty) = (&param.ident, &param.ty);
        quote!(#ident: #ty)
    });
    let arg_bounds = inputs.iter().map(|param| {
        let ty = &param.ty;
        quote!(#private::Wire<#lifetime, #ty>: #private::Encode<#ty>)
    });
    let inserts = inputs.iter().map(|param| {
        let (ident, ty) = (&param.ident, &param.ty);
        let name = syn::ext::IdentExt::unraw(ident).to_string();
        quote! {
            __a2a_input.insert(
                ::std::string::String::from(#name),
                <#private::Wire<#lifetime, #ty> as #private::Encode<#ty>>::encode(&#ident)?,
            );
        }
    });
    let output = match &skill.output.stream_item {
        Some(item) => quote!(::std::vec::Vec<#item>),
        None => {
            let value = &skill.output.value;
            quote!(#value)
        }
    };
    let doc = format!(
        "Calls skill `{id}` of the remote agent and waits for its output. {}",
        skill.description
    );
    quote! {
        #private::with_client! {
            impl #client {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments)]
                #vis async fn #ident<#lifetime>(
                    &#lifetime self,
                    #(#args),*
                ) -> ::core::result::Result<#output, #private::ClientError>
                where
                    #(#arg_bounds,)*
                    #private::Wire<#lifetime, #output>: #private::Decode<#output>,
                {
                    let mut __a2a_input = #private::serde_json::Map::new();
                    #(#inserts)*
                    let __a2a_output = self.skills().call(#id, __a2a_input).await?;
                    <#private::Wire<#lifetime, #output> as #private::Decode<#output>>::decode(#id, __a2a_output)
                }
            }
        }
    }
}

/// What `#[skill]` emits when expansion failed: the marker type bound to an inert descriptor, so
/// an `#[agent(skills(..))]` list naming this skill does not add a second wave of errors.
pub(crate) fn fallback(func: &syn::ItemFn, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let ident = &func.sig.ident;
    let marker = marker(func);
    quote! {
        #marker
        const _: () = {
            #[automatically_derived]
            impl #private::SkillDef for #ident {
                const DESCRIPTOR: &'static #private::SkillDescriptor = &#private::SkillDescriptor::INVALID;
            }
        };
    }
}

/// A braced struct with the fn's name lives in the type namespace only, so `path::to::convert`
/// names both the fn (as a value) and its descriptor (as a type) in `#[agent(skills(..))]`.
fn marker(func: &syn::ItemFn) -> TokenStream {
    let vis = &func.vis;
    let ident = &func.sig.ident;
    let doc = format!("Registration marker for the `{ident}` skill (generated by `#[skill]`).");
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, unreachable_pub)]
        #vis struct #ident {}
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

fn agent_span(agent: &syn::Path) -> Span {
    agent
        .segments
        .last()
        .map_or_else(Span::call_site, |seg| seg.ident.span())
}

/// The input object: one property per input parameter. Each parameter type is probed once,
/// in a fn spanned on it, so a type that is not `Deserialize + JsonSchema` gives exactly one
/// error, on the parameter; the object is assembled at run time from the probes, so nothing
/// derived over the user's types can fail a second time.
fn input_struct(skill: &Skill, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let inputs: Vec<_> = skill
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::Input { doc } => Some((param, doc)),
            ParamKind::Injected => None,
        })
        .collect();
    let probes: Vec<_> = (0..inputs.len())
        .map(|i| format_ident!("__a2a_field{}", i, span = Span::mixed_site()))
        .collect();
    let probe_fns = inputs.iter().zip(&probes).map(|((param, _), probe)| {
        let ty = &param.ty;
        let check = quote_spanned! {spanned_type(ty)=>
            #private::checked::<#ty, _>((&#private::Probe::<#ty>::new()).field_fns())
        };
        quote! {
            fn #probe() -> #private::FieldFns<#ty> {
                #[allow(unused_imports)]
                use #private::{ViaNothing as _, ViaSerde as _};
                #check
            }
        }
    });
    let names: Vec<String> = inputs
        .iter()
        .map(|(param, _)| syn::ext::IdentExt::unraw(&param.ident).to_string())
        .collect();
    let tys: Vec<_> = inputs.iter().map(|(param, _)| &param.ty).collect();
    let properties = inputs
        .iter()
        .zip(&names)
        .zip(&probes)
        .map(|(((_, doc), name), probe)| {
            let (title, description) = title_and_description(doc);
            quote!(#private::InputProperty::new(#name, #title, #description, &#probe()))
        });
    let values: Vec<_> = (0..inputs.len())
        .map(|i| format_ident!("__a2a_value{}", i, span = Span::mixed_site()))
        .collect();
    let object = format_ident!("__A2aInput", span = Span::mixed_site());
    quote! {
        #(#probe_fns)*
        #[allow(non_camel_case_types)]
        struct #object;
        #[automatically_derived]
        impl #private::InputObject for #object {
            type Values = (#(#tys,)*);
            fn properties() -> ::std::vec::Vec<#private::InputProperty> {
                ::std::vec![#(#properties),*]
            }
            fn decode(
                input: &#private::serde_json::Value,
            ) -> ::core::result::Result<Self::Values, #private::InputError> {
                let [#(#values),*] = #private::input_fields(input, &[#(#names),*])?;
                ::core::result::Result::Ok((
                    #(#private::input_value(#names, #values, &#probes())?,)*
                ))
            }
        }
        const __A2A_INPUT: #private::InputFns<(#(#tys,)*)> = #private::input_fns::<#object>();
    }
}

/// A parameter's doc comment as schemars reads one: a first line starting with `#` is the
/// title, the rest (trimmed) the description.
fn title_and_description(doc: &[String]) -> (String, String) {
    let text = doc.join("\n");
    let text = text.trim();
    match text.strip_prefix('#') {
        Some(heading) => {
            let (title, rest) = heading.split_once('\n').unwrap_or((heading, ""));
            (
                title.trim_start_matches('#').trim().to_owned(),
                rest.trim().to_owned(),
            )
        }
        None => (String::new(), text.to_owned()),
    }
}

fn spanned_type(ty: &syn::Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

/// `fn(Invocation) -> BoxFuture<SkillResult>`: take the decoded input, run the extractors, call
/// the user's fn unchanged, and convert what it returns.
fn call_shim(skill: &Skill, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let ident = &skill.func.sig.ident;
    let invocation = format_ident!("__a2a_invocation", span = Span::mixed_site());
    let input = format_ident!("__a2a_input", span = Span::mixed_site());
    let mut prelude = Vec::new();
    let mut call_args = Vec::new();
    let mut inputs = 0;
    for (index, param) in skill.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Injected => {
                let local = format_ident!("__a2a_arg{}", index, span = Span::mixed_site());
                let ty = &param.ty;
                let agent = &skill.agent;
                let extract = quote_spanned! {spanned_type(ty)=>
                    <#ty as #private::FromInvocation<#agent>>::from_invocation(&#invocation)
                };
                prelude.push(quote! {
                    let #local = match #extract {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => return #private::ready_err(error),
                    };
                });
                call_args.push(quote!(#local));
            }
            ParamKind::Input { .. } => {
                let position = syn::Index::from(inputs);
                inputs += 1;
                call_args.push(quote!(#input.#position));
            }
        }
    }
    let convert = convert_return(skill, runtime);
    let future = format_ident!("__a2a_future", span = Span::mixed_site());
    // A streamed output is driven by the runtime, which needs the task context to send chunks.
    let stream_context = skill.output.stream_item.as_ref().map(|_| {
        let context = stream_context_ident();
        quote!(let #context = #private::invocation_context(&#invocation);)
    });
    // Spanned on the fn name: a non-`Send` skill future is reported there, with rustc's notes
    // pointing at the value held across an `.await` inside the user's body.
    let boxed = quote_spanned! {ident.span()=>
        ::std::boxed::Box::pin(async move {
            let __a2a_ret = #future.await;
            #convert
        })
    };
    quote! {
        fn __a2a_call(mut #invocation: #private::Invocation) -> #private::BoxFuture<'static, #private::SkillResult> {
            let #input = match (__A2A_INPUT.take)(&mut #invocation) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => return #private::ready_err(error),
            };
            #stream_context
            #(#prelude)*
            let #future = #ident(#(#call_args),*);
            #boxed
        }
    }
}

fn convert_return(skill: &Skill, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let output = &skill.output;
    let value_span = spanned_type(&output.value);
    let context = stream_context_ident();
    let convert_value = |expr: TokenStream| match &output.stream_item {
        Some(_) => {
            quote_spanned!(value_span=> #private::stream_output(&__a2a_output(), #context, #expr).await)
        }
        None => quote_spanned!(value_span=> (__a2a_output().convert)(#expr)),
    };
    match &output.result {
        None => convert_value(quote!(__a2a_ret)),
        Some(error_ty) => {
            let ok = convert_value(quote!(value));
            let err = match error_ty {
                Some(error_ty) => {
                    quote_spanned!(spanned_type(error_ty)=> #private::skill_error::<#error_ty>(error))
                }
                None => quote_spanned!(output.span=> #private::skill_error(error)),
            };
            quote_spanned! {output.span=>
                match #private::IsResult::into_result(__a2a_ret) {
                    ::core::result::Result::Ok(value) => #ok,
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(#err),
                }
            }
        }
    }
}

/// `fn __a2a_output()`: the one place the return type's traits are required, spanned on it. A
/// plain type is probed by trait (its own `IntoSkillOutput`, else structured), never by name.
fn output_fns(skill: &Skill, runtime: &Runtime) -> TokenStream {
    let private = runtime.private();
    let output = if let Some(item) = &skill.output.stream_item {
        quote_spanned! {spanned_type(item)=>
            fn __a2a_output() -> #private::StreamFns<#item> {
                #private::stream_fns::<#item>()
            }
        }
    } else {
        let value_ty = &skill.output.value;
        let probe = quote_spanned! {spanned_type(value_ty)=>
            #private::checked_output::<#value_ty, _>(
                (&&&#private::OutputProbe::<#value_ty>::new()).output_fns(),
            )
        };
        quote! {
            fn __a2a_output() -> #private::OutputFns<#value_ty> {
                #[allow(unused_imports)]
                use #private::{ViaIntoOutput as _, ViaNoOutput as _, ViaStructured as _};
                #probe
            }
        }
    };
    quote! {
        #output
        fn __a2a_produces() -> &'static [&'static str] {
            __a2a_output().produces
        }
        fn __a2a_replies() -> bool {
            __a2a_output().replies
        }
        fn __a2a_output_schema(
            generator: &mut #private::schemars::SchemaGenerator,
        ) -> ::core::option::Option<#private::schemars::Schema> {
            (__a2a_output().schema)(generator)
        }
    }
}

fn stream_context_ident() -> syn::Ident {
    format_ident!("__a2a_stream_context", span = Span::mixed_site())
}
