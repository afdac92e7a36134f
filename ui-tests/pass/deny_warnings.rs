//! The expansion compiles under the strictest lints a user may set.
#![deny(warnings, missing_docs, unreachable_pub)]

use a2a_runtime::prelude::*;

/// A documented agent.
#[agent]
pub struct Strict;

/// A documented skill.
#[skill(agent = Strict)]
pub async fn check(
    /// A documented input.
    input: String,
) -> String {
    input
}

/// A private skill.
#[skill(agent = Strict)]
async fn private_check() -> &'static str {
    "ok"
}

fn main() {
    let _ = Strict.server();
}
