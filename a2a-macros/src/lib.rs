//! Procedural macros behind `a2a-runtime`.
//!
//! Do not depend on this crate directly: add `a2a-runtime`, which re-exports [`agent`],
//! [`skill`], [`resource`], [`prompt`] and [`main`] and provides everything the generated code needs (through its hidden `__private`
//! module), so the two crates can never drift apart.

mod agent;
mod args;
mod check;
mod codegen;
mod content;
mod docs;
mod errors;
mod json_shape;
mod main_fn;
mod model;
mod paths;
mod security;
mod skill;
#[cfg(test)]
mod snapshots;
mod types;

use proc_macro::TokenStream;

/// Declares an agent: a struct whose value is the agent's shared state, and whose doc comment and
/// attribute arguments become the A2A agent card.
///
/// See the `a2a-runtime` crate documentation for the accepted keys.
#[proc_macro_attribute]
pub fn agent(args: TokenStream, item: TokenStream) -> TokenStream {
    agent::expand(args.into(), item.into()).into()
}

/// Declares a skill: an `async fn` served as an A2A skill and as an MCP tool.
///
/// See the `a2a-runtime` crate documentation for the accepted keys and parameter rules.
#[proc_macro_attribute]
pub fn skill(args: TokenStream, item: TokenStream) -> TokenStream {
    skill::expand(args.into(), item.into()).into()
}

/// Declares an MCP resource: an `async fn` whose return value is the contents of a static URI or
/// of every URI a template (`notes://{id}`) matches; template variables are its parameters.
///
/// See the `a2a-runtime` crate documentation for the accepted keys and return types.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    content::expand(content::Kind::Resource, args.into(), item.into()).into()
}

/// Declares an MCP prompt: an `async fn` whose parameters are the prompt's arguments and whose
/// return value is its messages.
///
/// See the `a2a-runtime` crate documentation for the accepted keys and return types.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    content::expand(content::Kind::Prompt, args.into(), item.into()).into()
}

/// Runs `async fn main` on the runtime's tokio (multi-threaded): `#[a2a_runtime::main]` is
/// `#[tokio::main]` without adding tokio to `Cargo.toml`.
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    main_fn::expand(args.into(), item.into()).into()
}
