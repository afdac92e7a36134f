use a2a_runtime::prelude::*;

#[allow(non_camel_case_types)]
struct helper {}

/// An agent.
#[agent(skills(helper))]
struct Demo;

fn main() {}
