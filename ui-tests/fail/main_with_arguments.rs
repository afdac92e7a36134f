use a2a_runtime::prelude::*;

/// Greets people.
#[agent]
struct Hello;

/// Say hello.
#[skill(agent = Hello)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

#[a2a_runtime::main(flavor = "current_thread")]
async fn main() -> Result<(), a2a_runtime::Error> {
    Hello.serve().await
}
