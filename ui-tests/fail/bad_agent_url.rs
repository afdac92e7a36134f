use a2a_runtime::prelude::*;

/// An agent.
#[agent(documentation_url = "docs.example.com", default_input_modes = ["text"])]
struct Demo;

fn main() {}
