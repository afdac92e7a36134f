use a2a_runtime::prelude::*;

/// Demo agent.
#[agent]
struct Demo;

/// Streams numbers, which are not chunks.
#[skill(agent = Demo)]
async fn numbers() -> impl Stream<Item = u32> {
    a2a_runtime::futures::stream::iter([1, 2, 3])
}

fn main() {}
