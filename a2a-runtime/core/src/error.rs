//! Library errors: what can go wrong building or starting a server.
//!
//! Request-level errors belong to each protocol front-end, which maps them to its wire codes in
//! one place.

use std::net::SocketAddr;

/// An error starting or running an agent server.
///
/// `Debug` prints the same message as `Display`, so `fn main() -> Result<(), Error>` reports it
/// readably.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The agent has no skills.
    #[error(
        "agent `{agent}` has no skills. Annotate an `async fn` with `#[skill(agent = {agent})]`; \
         if the skills live in another crate, make sure the binary links it (`use that_crate as _;`) \
         or list them with `#[agent(skills(...))]`"
    )]
    NoSkills {
        /// The agent's type name.
        agent: String,
    },
    /// Two different skills share one id.
    #[error(
        "two skills share the id `{id}`: {first} and {second}; give one of them another `id = \"...\"`"
    )]
    DuplicateSkill {
        /// The shared id.
        id: String,
        /// Where the first is defined.
        first: String,
        /// Where the second is defined.
        second: String,
    },
    /// A skill id that MCP clients would reject as a tool name.
    #[error(
        "skill id `{id}` ({location}) is not a legal MCP tool name; use 1 to 128 ASCII letters, \
         digits, `_`, `.` or `-`"
    )]
    IllegalToolName {
        /// The id.
        id: String,
        /// Where the skill is defined.
        location: String,
    },
    /// Invalid configuration (flags, environment variables or builder calls).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// An I/O error while serving.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The MCP stdio transport failed.
    #[error("MCP stdio transport: {0}")]
    Stdio(String),
    /// The task store could not be opened or recovered at startup.
    #[error("task store: {0}")]
    Store(#[from] crate::task::StoreError),
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
