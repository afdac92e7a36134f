//! What the gRPC baseline's two binaries share: the one request scripts/bench-load sends over
//! every binding (A2A 1.0's `SendMessage` of the text "Ada", no history back) and its path.

use a2a_runtime_types::protocol::a2a::grpc::SERVICE;
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;

/// The method's path: `/lf.a2a.v1.A2AService/SendMessage`.
pub fn send_message_path() -> String {
    format!("/{SERVICE}/SendMessage")
}

/// The request every call sends, the JSON-RPC rows' body as the proto's message.
pub fn send_message() -> wire::SendMessageRequest {
    let text = wire::Part {
        content: Some(wire::PartContent::Text("Ada".into())),
        ..Default::default()
    };
    wire::SendMessageRequest {
        message: Some(wire::Message {
            message_id: "m1".into(),
            role: wire::Role::User as i32,
            parts: vec![text],
            ..Default::default()
        }),
        configuration: Some(wire::SendMessageConfiguration {
            history_length: Some(0),
            ..Default::default()
        }),
        ..Default::default()
    }
}
