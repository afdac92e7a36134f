//! `#[a2a_runtime::main]`: an `async fn main` run on the runtime's own tokio, so the first
//! program needs no dependency besides `a2a-runtime`.

use proc_macro2::TokenStream;
use quote::quote;

/// The item under `#[tokio::main]`, spelled through the runtime's re-export of tokio. The
/// attribute takes no arguments (tokio's own would reach a tokio the user did not choose).
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    // Arguments are refused, and the fn is still run as `main` would be, so the refusal is the
    // only error.
    let error = args.into_iter().next().map(|first| {
        syn::Error::new(
            first.span(),
            "`#[a2a_runtime::main]` takes no arguments; for a configured runtime use \
             `#[tokio::main(...)]` with tokio added to Cargo.toml",
        )
        .to_compile_error()
    });
    quote! {
        #error
        #[::a2a_runtime::__private::tokio::main(crate = "::a2a_runtime::__private::tokio")]
        #item
    }
}
