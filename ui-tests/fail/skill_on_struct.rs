use a2a_runtime::prelude::*;

/// Demo agent.
#[agent]
struct Demo;

/// Not a function.
#[skill(agent = Demo)]
struct Greet;

fn main() {}
