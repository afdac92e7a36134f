//! The proto messages against the model and the card's ProtoJSON.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use prost::Message as _;
use serde_json::json;

use super::card::{AgentCard, OAuthFlow, Scheme};
use super::{convert, json as protojson, messages as wire};
use crate::model::{Message, Part};

#[test]
fn a_message_survives_the_wire_and_whole_numbers_stay_integers() {
    let mut message = Message::user(vec![
        Part::text("hi"),
        Part::data(json!({"amount": 10, "rate": 0.93, "tags": ["a", null], "deep": {"ok": true}})),
        Part::raw(vec![0, 159, 255], "image/png"),
    ]);
    message.context_id = Some("ctx".into());
    let bytes = convert::message(&message).encode_to_vec();
    let read = convert::message_in(wire::Message::decode(bytes.as_slice()).unwrap(), "message");
    assert_eq!(read.unwrap(), message);
}

#[test]
fn a_received_message_without_its_required_fields_is_refused_naming_them() {
    let mut message = convert::message(&Message::user(vec![Part::text("x")]));
    message.role = 0;
    let refused = convert::message_in(message.clone(), "message").unwrap_err();
    assert_eq!(refused.0, "message.role");
    message.role = 9;
    assert!(
        convert::message_in(message.clone(), "message")
            .unwrap_err()
            .1
            .contains("9")
    );
    message.role = wire::Role::User as i32;
    message.message_id.clear();
    assert_eq!(
        convert::message_in(message.clone(), "message")
            .unwrap_err()
            .0,
        "message.message_id"
    );
    message.message_id = "m".into();
    message.parts[0].content = None;
    assert_eq!(
        convert::message_in(message, "message").unwrap_err().0,
        "message.parts[0]"
    );
}

#[test]
fn values_nested_past_the_bound_or_not_finite_are_refused() {
    let nested = |levels: usize| {
        let mut value = protojson::to_value(&json!(1));
        for _ in 0..levels {
            let values = vec![value];
            let list = prost_types::ListValue { values };
            let kind = Some(prost_types::value::Kind::ListValue(list));
            value = prost_types::Value { kind };
        }
        value
    };
    assert!(protojson::from_value(nested(protojson::MAX_DEPTH)).is_ok());
    let value = nested(protojson::MAX_DEPTH + 1);
    assert!(protojson::from_value(value).is_err());
    let nan = prost_types::Value {
        kind: Some(prost_types::value::Kind::NumberValue(f64::NAN)),
    };
    assert!(protojson::from_value(nan).is_err());
    assert_eq!(
        protojson::from_value(protojson::to_value(&json!(2.5))).unwrap(),
        json!(2.5)
    );
}

#[test]
fn the_card_is_read_from_its_protojson_with_its_security_schemes() {
    let card = json!({
        "name": "Vault", "description": "Keeps secrets", "version": "1.0.0",
        "supportedInterfaces": [{"url": "http://127.0.0.1:8080", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "pushNotifications": false, "extendedAgentCard": true,
                         "extensions": [{"uri": "urn:x", "required": false, "params": {"a": 1}}]},
        "securitySchemes": {
            "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}},
            "oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials":
                {"tokenUrl": "https://as/token", "scopes": {"vault:open": "open it"}}}}},
            "mtls": {"mtlsSecurityScheme": {}}
        },
        "securityRequirements": [{"schemes": {"key": {"list": []}}}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": "open", "name": "open", "description": "Opens", "tags": ["vault"]}],
        "additionalInterfaces": "a field the proto does not have"
    });
    let card = AgentCard::from_json(card).unwrap();
    assert_eq!(card.supported_interfaces[0].protocol_binding, "JSONRPC");
    let capabilities = card.capabilities.as_ref().unwrap();
    assert_eq!(capabilities.streaming, Some(true));
    assert!(capabilities.extensions[0].params.is_some());
    let Some(Scheme::ApiKey(key)) = &card.security_schemes["key"].scheme else {
        panic!("an API key scheme");
    };
    assert_eq!(key.name, "X-API-Key");
    let Some(Scheme::Oauth2(oauth)) = &card.security_schemes["oauth"].scheme else {
        panic!("an OAuth 2 scheme");
    };
    let Some(OAuthFlow::ClientCredentials(flow)) = &oauth.flows.as_ref().unwrap().flow else {
        panic!("client credentials");
    };
    assert_eq!(flow.scopes["vault:open"], "open it");
    assert!(matches!(
        card.security_schemes["mtls"].scheme,
        Some(Scheme::MutualTls(_))
    ));
    assert!(card.security_requirements[0].schemes.contains_key("key"));
    assert_eq!(card.skills[0].tags, ["vault"]);
    let json = card.to_json();
    assert_eq!(
        json["capabilities"]["extensions"][0]["params"],
        json!({"a": 1})
    );
    assert_eq!(
        json["securitySchemes"]["mtls"],
        json!({"mtlsSecurityScheme": {}})
    );
    assert!(json.get("documentationUrl").is_none() && json.get("signatures").is_none());
    assert_eq!(AgentCard::from_json(json).unwrap(), card);
}

#[test]
fn an_a2a_error_status_carries_its_details_and_reads_back_as_their_json() {
    let details = json!([
        {"@type": super::status::ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND",
         "domain": "a2a-protocol.org", "metadata": {"taskId": "t"}},
        {"@type": super::status::BAD_REQUEST_TYPE,
         "fieldViolations": [{"field": "id", "description": "is required"}]},
        {"@type": super::status::RETRY_INFO_TYPE, "retryDelay": "3s"},
    ]);
    let status = super::status::RpcStatus::from_json_details(5, "no task t", &details);
    let read = super::status::RpcStatus::decode(status.encode_to_vec().as_slice()).unwrap();
    let info = read.error_info().unwrap();
    assert_eq!(
        (info.reason.as_str(), info.domain.as_str()),
        ("TASK_NOT_FOUND", "a2a-protocol.org")
    );
    assert_eq!(read.json_details(), details);
    assert_eq!(read.retry_delay(), Some(std::time::Duration::from_secs(3)));
}

#[test]
fn a_task_and_its_events_read_back_as_they_were_sent() {
    use crate::model::{Artifact, Task, TaskArtifactUpdate, TaskEvent, TaskState, TaskStatus};
    use crate::protocol::a2a::Received;
    let status = TaskStatus::now(TaskState::Working, Some(Message::agent_text("on it")));
    let artifact = Artifact::new(vec![Part::text("## USD")]);
    let task = Task {
        id: "task-1".into(),
        context_id: "ctx".into(),
        created_at: status.timestamp,
        status,
        artifacts: vec![artifact.clone()],
        history: vec![Message::user_text("go")],
        metadata: None,
    };
    let sent = wire::StreamResponse {
        payload: Some(wire::StreamPayload::Task(convert::task(&task))),
    };
    let Received::Task(read) = super::received::stream_item_in(sent).unwrap() else {
        panic!("a task");
    };
    assert_eq!(
        (read.id.as_str(), read.status.state),
        (task.id.as_str(), TaskState::Working)
    );
    assert_eq!(
        (read.history, read.artifacts),
        (task.history.clone(), task.artifacts.clone())
    );
    let event = TaskEvent::Artifact(TaskArtifactUpdate {
        task_id: task.id.clone(),
        context_id: "ctx".into(),
        artifact,
        append: true,
        last_chunk: false,
    });
    let sent = wire::StreamResponse {
        payload: Some(convert::event(&event)),
    };
    let Received::Event(read) = super::received::stream_item_in(sent).unwrap() else {
        panic!("an event");
    };
    assert_eq!(read, event);
    let mut stateless = convert::task(&task);
    stateless.status.as_mut().unwrap().state = 0;
    let refused = super::received::task_in(stateless, "task").unwrap_err();
    assert_eq!(refused.0, "task.status.state");
}
