use a2a_runtime::prelude::*;

/// Demo agent.
#[agent]
struct Demo;

/// Returns something opaque.
#[skill(agent = Demo)]
async fn opaque() -> impl std::fmt::Display {
    42
}

fn main() {}
