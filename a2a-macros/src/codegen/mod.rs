//! Token generation from the checked model. Every generated item sits inside `const _: () = {..}`
//! and reaches the runtime only through the paths in [`crate::paths`].

pub(crate) mod agent;
pub(crate) mod content;
mod package;
pub(crate) mod skill;

use proc_macro2::TokenStream;
use quote::quote;

/// `&["a", "b"]` as a `&'static [&'static str]` expression.
pub(crate) fn str_slice(items: &[String]) -> TokenStream {
    quote!(&[#(#items),*])
}

/// `Some("x")` / `None` as an `Option<&'static str>` expression.
pub(crate) fn opt_str(item: Option<&String>) -> TokenStream {
    match item {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// `Some(true)` / `None` as an `Option<bool>` expression.
pub(crate) fn opt_bool(item: Option<bool>) -> TokenStream {
    match item {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}
