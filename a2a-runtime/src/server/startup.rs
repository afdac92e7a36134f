//! What an application may read before it builds its agent: the command line with flags of its
//! own beside the server's, and the agent's [`Records`] where the configuration keeps its tasks.

use a2a_runtime_core::agent::Agent;

use super::config::{ServeConfig, StoreLocation};
use a2a_runtime_core::error::Error;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use a2a_runtime_sql::Records;

impl ServeConfig {
    /// Reads the command line and the environment as [`serve`](crate::AgentServer::serve) does,
    /// over the defaults, with the application's own flags `X` (a `#[derive(clap::Args)]`
    /// struct) beside the server's: for an agent whose state depends on them (its records'
    /// location, its own settings). Hand the configuration to
    /// [`AgentServer::config`](crate::AgentServer::config), which then reads no flags again.
    /// `None` when `--help` or `--version` printed and nothing should be served.
    pub fn from_command_line<A: Agent, X>() -> Result<Option<(Self, X)>, Error>
    where
        X: clap::Args + clap::FromArgMatches,
    {
        let descriptor = A::descriptor();
        let binary = super::cli::program_name();
        let about = format!("{}: {}", descriptor.name(), descriptor.description());
        super::cli::parse_with(
            std::env::args_os(),
            Self::default(),
            binary,
            descriptor.version(),
            about,
        )
    }

    /// Where the agent named `agent_name` keeps its [`Records`] under this configuration: the
    /// Postgres database of a Postgres store (shared by replicas), `records.sqlite3` beside a
    /// SQLite store's file, memory beside a memory store, and with no store named,
    /// `records.sqlite3` in the agent's directory under the data directory — over `--stdio`
    /// too, so the processes MCP hosts start for their sessions share it.
    pub fn records_location(&self, agent_name: &str) -> StoreLocation {
        match &self.store {
            Some(tasks) => super::storage::records_beside(tasks),
            None if cfg!(feature = "sqlite") => StoreLocation::Sqlite(
                a2a_runtime_core::data_dir::agent_data_dir(self.data_dir.clone(), agent_name)
                    .join("records.sqlite3"),
            ),
            None => StoreLocation::Memory,
        }
    }

    /// Opens the agent's records at [`records_location`](Self::records_location).
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub async fn open_records(&self, agent_name: &str) -> Result<Records, Error> {
        super::storage::open_records(&self.records_location(agent_name))
            .await
            .map_err(|e| Error::Config(format!("the agent's records: {e}")))
    }
}
