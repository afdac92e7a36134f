use a2a_runtime::prelude::*;

#[agent(name = "Undocumented")]
struct Demo;

fn main() {}
