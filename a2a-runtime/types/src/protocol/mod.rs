//! Wire types, one module per protocol and version. Nothing here does I/O.

pub mod a2a;
pub mod jsonrpc;
pub mod tenant;
pub mod truncated;
