use a2a_runtime::prelude::*;

/// An agent.
#[agent]
pub struct Demo;

/// Read by the skill, never written by it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Order {
    /// How many.
    pub count: u32,
}

/// Written by the skill, never read back.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Receipt {
    /// How many.
    pub count: u32,
}

/// Takes an order. The skill compiles; its typed client method cannot be called, since an
/// `Order` cannot be sent and a `Receipt` cannot be read.
#[skill(agent = Demo)]
pub async fn take(order: Order) -> Receipt {
    Receipt { count: order.count }
}

async fn call(client: DemoClient) {
    let _ = client.take(Order { count: 1 }).await;
}

fn main() {
    drop(call);
}
