//! The A2A front-end: agent card and JSON-RPC methods.

pub(crate) mod card;
mod error;
pub(crate) mod jsonrpc;
mod sse;

pub(crate) use error::RequestError;
