//! Wire types, one module per protocol and version. Nothing here does I/O.

pub(crate) mod a2a;
pub(crate) mod jsonrpc;
