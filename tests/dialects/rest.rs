//! What only HTTP+JSON has: content types, a configurable prefix, push config and extended card
//! routes, ProtoJSON readers.

use super::*;

#[tokio::test]
async fn rest_refuses_foreign_content_types_with_415_and_accepts_bodyless_posts() {
    let server = lab().await;
    let response = server
        .http
        .post(format!("{}message:send", server.base))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT", "{body}");
    let response = server
        .http
        .post(format!("{}tasks/nope:cancel", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(body["error"]["details"][0]["metadata"]["taskId"], "nope");
    // The same routes answer under a tenant prefix.
    let response = server
        .http
        .get(format!("{}acme/tasks/nope", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
}

#[tokio::test]
async fn rest_routes_follow_a_configured_prefix() {
    let server = start(Lab.server().rest_prefix("/rest")).await;
    let card = server.card().await;
    let rest = format!("{}rest", server.base);
    assert_eq!(card["supportedInterfaces"][1]["url"], rest.as_str());
    let body = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}],
        "metadata": {"skill": "echo"}}});
    let response = server
        .http
        .post(format!("{rest}/message:send"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let task: Value = response.json().await.unwrap();
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let err = Lab.server().rest_prefix("rest/").router().unwrap_err();
    assert!(err.to_string().contains("rest_prefix"), "{err}");
}

#[tokio::test]
async fn rest_push_config_and_extended_card_routes_refuse_with_the_right_reason() {
    let mut push = a2a_runtime::server::PushOptions::default();
    push.enabled = false;
    let server = start(Lab.server().push(push)).await;
    for dialect in [Dialect::V1Rest, Dialect::V03Rest] {
        let card = if dialect == Dialect::V1Rest {
            "extendedAgentCard"
        } else {
            "card"
        };
        let cases = [
            (
                reqwest::Method::GET,
                "tasks/t1/pushNotificationConfigs".to_owned(),
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ),
            (
                reqwest::Method::DELETE,
                "tasks/t1/pushNotificationConfigs/c1".to_owned(),
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ),
            (
                reqwest::Method::GET,
                card.to_owned(),
                "UNSUPPORTED_OPERATION",
            ),
        ];
        for (method, path, reason) in cases {
            let failure = dialect
                .rest(&server, method.clone(), &path, None)
                .await
                .expect_err("refused");
            assert_eq!(failure.code, 400, "{dialect:?} {method} {path}");
            assert_eq!(failure.reason, reason, "{dialect:?} {method} {path}");
        }
        // Other methods on those routes are not A2A operations.
        let url = format!(
            "{}{}tasks/t1/pushNotificationConfigs",
            server.base,
            if dialect == Dialect::V03Rest {
                "v1/"
            } else {
                ""
            }
        );
        let response = server.http.put(url).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 405, "{dialect:?} PUT");
    }
}

#[tokio::test]
async fn protojson_readers_take_proto_names_and_quoted_integers_and_ids_are_echoed_as_sent() {
    let server = lab().await;
    // 0.3 HTTP+JSON in the 0.3 proto's field names, with a quoted integer.
    let sent = json!({
        "message": {"message_id": "snake-1", "role": "ROLE_USER",
                    "content": [{"data": {"data": {"text": "snake"}}}],
                    "metadata": {"skill": "echo", "keep_snake": true}},
        "configuration": {"history_length": "1", "blocking": true},
    });
    let task = Dialect::V03Rest
        .rest(&server, reqwest::Method::POST, "message:send", Some(sent))
        .await
        .unwrap();
    assert_eq!(
        normalize_state(task["task"]["status"]["state"].as_str().unwrap()),
        "completed",
        "{task}"
    );
    let id = task["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        task["task"]["history"].as_array().map(Vec::len),
        Some(1),
        "{task}"
    );
    // A push config in proto names is read as one (its loopback URL is then refused by name).
    let config = json!({"push_notification_config": {"url": "http://127.0.0.1:9/", "id": "p1"}});
    let refused = Dialect::V03Rest
        .rest(
            &server,
            reqwest::Method::POST,
            &format!("tasks/{id}/pushNotificationConfigs"),
            Some(config),
        )
        .await
        .unwrap_err();
    assert!(
        refused
            .message
            .starts_with("pushNotificationConfig.url: `http://127.0.0.1:9/`"),
        "{refused:?}"
    );
    // 1.0 JSON-RPC params in proto names too, and a quoted historyLength.
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask",
        "params": {"id": id, "history_length": "0"}});
    let (_, got) = server.post_raw(body.to_string(), Some("1.0")).await;
    assert_eq!(got["result"]["id"], id.as_str(), "{got}");
    assert!(got["result"].get("history").is_none(), "{got}");
    // An integer id beyond 64 bits comes back as it was sent, not as 1e20.
    let huge =
        r#"{"jsonrpc":"2.0","id":100000000000000000000,"method":"GetTask","params":{"id":"nope"}}"#;
    let response = server
        .http
        .post(&server.base)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(huge)
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    assert!(text.contains(r#""id":100000000000000000000"#), "{text}");
}
