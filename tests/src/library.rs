//! An agent for the connector tests: a public tool anyone may call, one needing two scopes, and
//! one whose scope a wildcard grant covers.

use a2a_runtime::prelude::*;

/// Lends books to signed-in members.
#[agent(name = "Library", security(bearer))]
#[derive(Debug, Default)]
pub struct Library;

/// Search the catalog: open to anyone.
#[skill(agent = Library, public)]
pub async fn search(
    /// Words of the title.
    query: String,
) -> String {
    format!("3 books match {query}")
}

/// Borrow a book for a member.
#[skill(agent = Library, scopes = ["library:loans:write", "library:members:read"])]
pub async fn borrow(
    /// The book's title.
    title: String,
    caller: Caller,
) -> String {
    format!("{} borrowed {title}", caller.principal())
}

/// Read the librarian's notes.
#[skill(agent = Library, scopes = ["mcp:tools:notes"])]
pub async fn notes() -> String {
    "closed on Sundays".into()
}
