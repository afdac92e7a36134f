//! A2A 1.0's gRPC binding: the messages of `a2a.proto` (package `lf.a2a.v1`, normative),
//! declared with prost's derive and the proto's field numbers (no `protoc` at build time), the
//! model ⇄ proto conversions, and the error details a status carries.

pub mod card;
pub mod convert;
pub mod json;
pub mod messages;
pub mod push;
pub mod received;
pub mod status;

/// The service's full name: request paths are `/{SERVICE}/{method}`.
pub const SERVICE: &str = "lf.a2a.v1.A2AService";

/// The service's methods, as named in paths: A2A 1.0's operations.
pub use super::v1::METHODS;

#[cfg(test)]
mod tests;
