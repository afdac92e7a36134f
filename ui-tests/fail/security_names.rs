use a2a_runtime::prelude::*;

/// Two schemes under one name.
#[agent(security(bearer(name = "auth"), api_key(name = "auth", header = "X-Key")))]
struct Demo;

/// A key header no HTTP request can carry.
#[agent(security(api_key(header = "X Key")))]
struct Other;

fn main() {}
