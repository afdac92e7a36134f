//! The only place where paths into the runtime are spelled.
//!
//! Generated code reaches the runtime exclusively through `::a2a_runtime::__private`, or through
//! the path given with `crate = ...` by crates that re-export `a2a-runtime` under another name.

use proc_macro2::TokenStream;
use quote::quote;

/// Where the runtime's private support module lives for one expansion.
#[derive(Clone)]
pub(crate) struct Runtime {
    private: TokenStream,
}

impl Runtime {
    /// The runtime reached through `krate` (from `crate = ...`) or the default `::a2a_runtime`.
    pub(crate) fn new(krate: Option<&syn::Path>) -> Self {
        let root = match krate {
            Some(path) => quote!(#path),
            None => quote!(::a2a_runtime),
        };
        Self {
            private: quote!(#root::__private),
        }
    }

    /// `<runtime>::__private`.
    pub(crate) fn private(&self) -> &TokenStream {
        &self.private
    }
}
