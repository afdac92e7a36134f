//! A remote agent's task pushed by the host's own push machinery: the caller's webhook
//! receives the host's task (its ids, its states), signed with the caller's token, whatever the
//! remote does about push.

use super::*;

#[tokio::test]
async fn a_remote_agents_task_is_pushed_by_the_host_to_the_callers_webhook() {
    let mut receiver = Receiver::start(RECEIVER, &["--token", "caller-token"]).await;
    let remote = start(Lab.server()).await;
    let mut config = a2a_runtime::server::ServeConfig::default();
    config.push = local_push();
    let host = a2a_runtime::server::Host::new()
        .config(config)
        .remote_agent("lab", remote.base.clone());
    let host = a2a_tests::start_host(host).await;
    let push =
        json!({"taskPushNotificationConfig": {"url": receiver.url, "token": "caller-token"}});
    let sent = host
        .mounted("lab")
        .rpc(
            "SendMessage",
            send_params("tick", json!({"times": 2}), push),
        )
        .await;
    let task = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let delivered = receiver.accepted_until_terminal().await;
    assert!(
        delivered.iter().all(|d| d["taskId"] == json!(task)),
        "{delivered:#?}"
    );
    assert!(
        kinds(&delivered).contains(&"artifactUpdate"),
        "{delivered:#?}"
    );
    assert_eq!(delivered.last().unwrap()["state"], "TASK_STATE_COMPLETED");
}
