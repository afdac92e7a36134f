//! The lowest layer of [a2a-runtime](https://docs.rs/a2a-runtime): the version-neutral model
//! (tasks, messages, parts, events), the wire shapes of every protocol version, and the W3C
//! trace context. Nothing here does I/O; the `https` feature only sets up the TLS of the
//! layers' outgoing HTTP clients.
//!
//! Applications depend on `a2a-runtime`, which re-exports what they use from here. The hidden
//! modules are shared with the crates above this one and are not API.

#[cfg(feature = "https")]
pub mod https;
pub mod model;
pub mod outgoing;
#[doc(hidden)]
pub mod protocol;
mod trace;
#[doc(hidden)]
pub mod util;

pub use trace::TraceContext;
pub use util::BoxFuture;
