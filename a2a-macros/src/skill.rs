//! `#[skill]`: reads one `async fn` into [`model::Skill`], reporting every problem at once.

use darling::Error;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, ReturnType, Type};

use crate::args::{self, SkillArgs};
use crate::errors::Errors;
use crate::model::{Hints, Output, Param, ParamKind, Skill};
use crate::paths::Runtime;
use crate::types::last_segment;
use crate::{check, codegen, docs};

/// Parameter types the runtime injects, recognized by the last path segment. `#[inject]` and
/// `#[input]` on a parameter override this rule.
const INJECTED: &[&str] = &["State", "TaskContext", "Caller", "IncomingMessage"];

/// Entry point: parse, check, generate; on any error, the user's fn is still emitted (without our
/// helper attributes) so the rest of the crate keeps compiling and the IDE keeps working.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            let span = crate::errors::item_keyword_span(syn::parse2(item.clone()).ok().as_ref());
            let err = Error::custom("#[skill] goes on an `async fn`").with_span(&span);
            let err = err.write_errors();
            return quote!(#err #item);
        }
    };
    let mut errors = Errors::new();
    let args = errors.handle(args::parse::<SkillArgs>(args));
    let params = read_params(&mut func, &mut errors);
    let runtime = Runtime::new(args.as_ref().and_then(|a| a.krate.as_ref()));
    let skill = args.and_then(|args| build(func.clone(), args, params, &mut errors));
    match (errors.finish(), skill) {
        (Ok(()), Some(skill)) => codegen::skill::generate(&skill, &runtime),
        (Err(err), _) => {
            let err = err.write_errors();
            // Inside an `impl` (a `self` receiver) no item may be added next to the fn.
            let in_impl = func.sig.receiver().is_some();
            let marker = if in_impl {
                TokenStream::new()
            } else {
                codegen::skill::fallback(&func, &runtime)
            };
            quote!(#err #func #marker)
        }
        (Ok(()), None) => unreachable_state(),
    }
}

/// `build` only returns `None` after pushing an error, so this is never reached; it still gives a
/// compile error rather than a panic if that invariant is ever broken.
fn unreachable_state() -> TokenStream {
    quote!(::core::compile_error!("a2a-macros: #[skill] failed without a diagnostic; please report this bug");)
}

/// Reads the parameters and strips our helper attributes (`///` docs, `#[inject]`, `#[input]`)
/// from them, since they are not valid on fn parameters once the macro is done.
fn read_params(func: &mut syn::ItemFn, errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    for arg in &mut func.sig.inputs {
        match arg {
            FnArg::Receiver(receiver) => errors.push(
                Error::custom(
                    "#[skill] functions cannot take `self`; write a free `async fn` and take the \
                     agent's state as a `State<YourAgent>` parameter",
                )
                .with_span(&receiver.self_token),
            ),
            FnArg::Typed(pat_type) => {
                let doc = docs::lines(&pat_type.attrs);
                let forced_inject = take_flag(&mut pat_type.attrs, "inject");
                let forced_input = take_flag(&mut pat_type.attrs, "input");
                pat_type.attrs.retain(|attr| !attr.path().is_ident("doc"));
                let ident = match &*pat_type.pat {
                    Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                        pat.ident.clone()
                    }
                    other => {
                        errors.push(
                            Error::custom(
                                "#[skill] parameters must be plain names (`amount: f64`); \
                                 patterns cannot become input properties",
                            )
                            .with_span(other),
                        );
                        continue;
                    }
                };
                let injected = forced_inject || (!forced_input && is_injected(&pat_type.ty));
                let kind = if injected {
                    ParamKind::Injected
                } else {
                    ParamKind::Input { doc }
                };
                params.push(Param {
                    ident,
                    ty: (*pat_type.ty).clone(),
                    kind,
                });
            }
        }
    }
    params
}

/// A public skill needs no credentials, so it can need no scopes, and it is listed to callers
/// without any, so not only to authenticated ones.
fn check_public(args: &SkillArgs, errors: &mut Errors) {
    if !args.public.is_present() {
        return;
    }
    if let Some(scope) = args.scopes.first() {
        errors.push(
            Error::custom(
                "a `public` skill is called without credentials, so it cannot need scopes; \
                 drop `public` or the scopes",
            )
            .with_span(scope),
        );
    }
    if args.extended_only.is_present() {
        errors.push(
            Error::custom(
                "a `public` skill is listed to callers without credentials, and `extended_only` \
                 lists a skill only to authenticated ones; choose one",
            )
            .with_span(&args.extended_only.span()),
        );
    }
}

fn take_flag(attrs: &mut Vec<syn::Attribute>, name: &str) -> bool {
    let before = attrs.len();
    attrs.retain(|attr| !attr.path().is_ident(name));
    attrs.len() != before
}

fn is_injected(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|seg| INJECTED.iter().any(|name| seg.ident == name))
}

fn generic_types(seg: &syn::PathSegment) -> Vec<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn build(
    func: syn::ItemFn,
    args: SkillArgs,
    params: Vec<Param>,
    errors: &mut Errors,
) -> Option<Skill> {
    let sig = &func.sig;
    let before = errors.count();
    check_signature(sig, errors);
    check_public(&args, errors);
    let agent = args.agent.or_else(|| {
        errors.push(Error::custom(
            "#[skill] needs the agent it belongs to: `#[skill(agent = YourAgent)]`",
        ));
        None
    });
    let doc = docs::read(&func.attrs);
    let description = args.description.or(doc.description);
    if description.is_none() {
        errors.push(
            Error::custom(format!(
                "skill `{}` has no doc comment; add `/// What this skill does.` above the fn \
                 (its first line becomes the skill name, the whole comment its description), \
                 or set `description = \"...\"`",
                sig.ident
            ))
            .with_span(&sig.ident),
        );
    }
    let id = match &args.id {
        Some(id) => {
            errors.handle(check::tool_name(id, id.span()));
            (**id).clone()
        }
        None => sig.ident.to_string(),
    };
    let name = args.name.or(doc.title).unwrap_or_else(|| id.clone());
    let tags = checked_each(&args.tags, check::tag, errors);
    let input_modes = checked_each(&args.input_modes, check::media_type, errors);
    let output_modes = checked_each(&args.output_modes, check::media_type, errors);
    let scopes = checked_each(&args.scopes, check::scope, errors);
    let resume = checked_opt(args.resume.as_ref(), check::resume, errors);
    let task_support = checked_opt(args.task_support.as_ref(), check::task_support, errors);
    let output = read_output(&sig.output, errors);
    if errors.count() > before {
        return None;
    }
    Some(Skill {
        agent: agent?,
        id,
        name,
        description: description?,
        tags,
        examples: args.examples.iter().map(syn::LitStr::value).collect(),
        input_modes,
        output_modes,
        scopes,
        scopes_span: args.scopes.first().map(syn::LitStr::span),
        extended_only: args.extended_only.is_present(),
        public: args.public.is_present(),
        resume,
        task_support,
        hints: Hints {
            read_only: args.read_only,
            destructive: args.destructive,
            idempotent: args.idempotent,
            open_world: args.open_world,
        },
        is_default: args.default.is_present(),
        params,
        output,
        func,
    })
}

/// What a skill's signature may not be: anything but a plain `async fn` with concrete types.
fn check_signature(sig: &syn::Signature, errors: &mut Errors) {
    if sig.asyncness.is_none() {
        errors.push(
            Error::custom("#[skill] functions must be `async fn`; add `async` before `fn`")
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
        (
            sig.variadic.is_some(),
            "variadic arguments",
            sig.variadic.span(),
        ),
    ] {
        if present {
            errors.push(
                Error::custom(format!("#[skill] functions cannot be {what}")).with_span(&span),
            );
        }
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(
            Error::custom(
                "#[skill] functions cannot be generic: the input and output schemas are fixed at \
                 compile time; use concrete types",
            )
            .with_span(&sig.generics),
        );
    }
}

/// What `check` makes of `value`, or the default when it is absent or refused (a refusal is
/// one more error).
fn checked_opt<T: Default>(
    value: Option<&syn::LitStr>,
    check: fn(&syn::LitStr) -> darling::Result<T>,
    errors: &mut Errors,
) -> T {
    value
        .and_then(|value| errors.handle(check(value)))
        .unwrap_or_default()
}

/// Every item of `items` that `check` accepts; each refusal is one more error.
fn checked_each<T>(
    items: &[syn::LitStr],
    check: fn(&syn::LitStr) -> darling::Result<T>,
    errors: &mut Errors,
) -> Vec<T> {
    items
        .iter()
        .filter_map(|item| errors.handle(check(item)))
        .collect()
}

fn read_output(ret: &ReturnType, errors: &mut Errors) -> Output {
    let (ty, span) = match ret {
        ReturnType::Default => (syn::parse_quote!(()), Span::call_site()),
        ReturnType::Type(_, ty) => ((**ty).clone(), ty.span()),
    };
    let result = last_segment(&ty)
        .filter(|seg| seg.ident == "Result")
        .map(|seg| {
            let args = generic_types(seg);
            (
                args.first().map(|t| (*t).clone()),
                args.get(1).map(|t| (*t).clone()),
            )
        });
    let (value, error) = match result {
        Some((Some(value), error)) => (value, Some(error)),
        _ => (ty.clone(), None),
    };
    let stream_item = match &value {
        Type::ImplTrait(bounds) => {
            let item = stream_item(bounds);
            if item.is_none() {
                errors.push(
                    Error::custom(
                        "a skill may return `impl Trait` only as `impl Stream<Item = T>` (each item \
                         becomes a chunk of a streamed artifact); name the type otherwise",
                    )
                    .with_span(&value),
                );
            }
            item
        }
        _ => None,
    };
    Output {
        result: error,
        value,
        stream_item,
        span,
    }
}

/// `T` in `impl Stream<Item = T> + ...`.
fn stream_item(bounds: &syn::TypeImplTrait) -> Option<Type> {
    bounds.bounds.iter().find_map(|bound| {
        let syn::TypeParamBound::Trait(bound) = bound else {
            return None;
        };
        let seg = bound.path.segments.last()?;
        if seg.ident != "Stream" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &seg.arguments else {
            return None;
        };
        args.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(assoc) if assoc.ident == "Item" => Some(assoc.ty.clone()),
            _ => None,
        })
    })
}

impl ToTokens for Param {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.ident.to_tokens(tokens);
    }
}
