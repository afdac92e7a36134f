//! Where an agent sits on its server: at the root, or at `/{id}` of a host. Every path, URL,
//! endpoint and key that depends on it is derived here, once.

use a2a_runtime_a2a::card::Endpoints;

/// Where an agent sits on its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mount {
    /// At the root: the server is the agent.
    Root,
    /// At `/{id}` of a host, which knows it by that id (its tenant, its tools' prefix).
    At(String),
}

impl Mount {
    /// The id a host knows the agent by; `None` at the root.
    pub(crate) fn id(&self) -> Option<&str> {
        match self {
            Self::Root => None,
            Self::At(id) => Some(id),
        }
    }

    /// The path the agent's routes sit below: empty at the root, else `/{id}`.
    pub(crate) fn path(&self) -> String {
        match self {
            Self::Root => String::new(),
            Self::At(id) => format!("/{id}"),
        }
    }

    /// The agent's URL below the server's: empty at the root, else `/{id}/`.
    pub(crate) fn url_path(&self) -> String {
        match self {
            Self::Root => String::new(),
            Self::At(id) => format!("/{id}/"),
        }
    }

    /// The agent's URL on the server at `base` (which ends in `/`): `base` itself, or
    /// `{base}{id}/`.
    pub(crate) fn url(&self, base: &str) -> String {
        match self {
            Self::Root => base.to_owned(),
            Self::At(id) => format!("{base}{id}/"),
        }
    }

    /// Where the agent's bindings are reached on the server at `base`: at the root, its
    /// HTTP+JSON routes below `rest_prefix`; on a host, at its own URL and at the server's
    /// with its id as the tenant.
    pub(crate) fn endpoints(&self, base: &str, rest_prefix: &str) -> Endpoints {
        match self {
            Self::Root => Endpoints::new(base, rest_prefix),
            Self::At(id) => Endpoints::hosted(base, id),
        }
    }

    /// The key the agent's tasks are stored under in the store the server's agents share:
    /// its id, or for the one agent of a server the empty key its stored tasks have always
    /// had.
    pub(crate) fn task_key(&self) -> &str {
        self.id().unwrap_or_default()
    }
}
