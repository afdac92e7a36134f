//! The builder methods that give a server or host an authorization server of the application's
//! own making (its sign-in, its lifetimes, its store).

use a2a_runtime_oauth::OAuthServer;

use crate::server::{AgentServer, Host};

impl AgentServer {
    /// Serves an OAuth 2.1 authorization server beside the agent, which accepts its tokens
    /// (as an `oauth2` scheme, unless the agent declares a scheme that takes JWTs): hosted
    /// assistants and MCP clients register, send the user to sign in and consent, and call
    /// the agent with the tokens. The `--oauth-*` flags add to these settings.
    ///
    /// ```no_run
    /// # use a2a_runtime::prelude::*;
    /// use a2a_runtime::oauth::OAuthServer;
    /// # /// Doc.
    /// # #[agent(security(bearer))] struct Notes;
    /// # /// Reads.
    /// # #[skill(agent = Notes, scopes = ["notes:read"])] async fn read(id: u32) -> String { id.to_string() }
    /// # async fn run() -> Result<(), a2a_runtime::Error> {
    /// Notes
    ///     .server()
    ///     .authorization_server(OAuthServer::dev_user("alice"))
    ///     .serve()
    ///     .await
    /// # }
    /// ```
    #[must_use]
    pub fn authorization_server(mut self, server: OAuthServer) -> Self {
        self.oauth = Some(server);
        self
    }
}

impl Host {
    /// Serves an OAuth 2.1 authorization server for every agent of the host (see
    /// [`AgentServer::authorization_server`]): one issuer, tokens bound to the resource they
    /// were asked for (the shared `/mcp`, an agent's `/{id}/mcp` or its URL).
    #[must_use]
    pub fn authorization_server(mut self, server: OAuthServer) -> Self {
        self.oauth = Some(server);
        self
    }
}
