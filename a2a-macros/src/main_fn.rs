//! `#[a2a_runtime::main]`: an `async fn main` run on the runtime's own tokio, so the first
//! program needs no dependency besides `a2a-runtime`.

use proc_macro2::TokenStream;
use quote::quote;

/// The item under `#[tokio::main]`, spelled through the runtime's re-export of tokio. The
/// attribute takes no arguments (tokio's own would reach a tokio the user did not choose).
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(first) = args.clone().into_iter().next() {
        let error = syn::Error::new(
            first.span(),
            "`#[a2a_runtime::main]` takes no arguments; for a configured runtime use \
             `#[tokio::main(...)]` with tokio added to Cargo.toml",
        );
        let error = error.to_compile_error();
        return quote!(#error #item);
    }
    quote! {
        #[::a2a_runtime::__private::tokio::main(crate = "::a2a_runtime::__private::tokio")]
        #item
    }
}
