//! Questions over MCP on a real socket: input-required results and retries on protocol
//! 2026-07-28 (sealed, single-use request state; expiry), questions in tasks-extension calls,
//! and calls that cannot be asked anything.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_tests::talker::Talker;
use a2a_tests::{TestServer, response_from, start};
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn elicits() -> Value {
    json!({ "elicitation": { "form": {} } })
}

/// A stateless `tools/call` from a client declaring `capabilities`; the JSON-RPC response.
async fn call(server: &TestServer, params: Value, capabilities: Value) -> Value {
    let (_, body) = server.mcp_modern("tools/call", params, capabilities).await;
    response_from(&body)
}

/// The one input request of an input-required result: its key and elicitation params.
fn input_request(result: &Value) -> (String, Value) {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{result}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    (key.clone(), request["params"].clone())
}

/// A stateless call of `tool` from a client declaring nothing, which must be refused with
/// MissingRequiredClientCapability (-32021, HTTP 400); the JSON-RPC response.
async fn refused_call(server: &TestServer, tool: &str) -> Value {
    let (status, body) = server
        .mcp_modern(
            "tools/call",
            json!({ "name": tool, "arguments": {} }),
            json!({}),
        )
        .await;
    let refused = response_from(&body);
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    refused
}

fn retry(tool: &str, result: &Value, key: &str, answer: Value) -> Value {
    json!({
        "name": tool,
        "arguments": {},
        "requestState": result["requestState"],
        "inputResponses": { key: { "action": "accept", "content": { "answer": answer } } },
    })
}

#[tokio::test]
async fn a_question_returns_input_required_and_the_retry_completes_the_call() {
    let server = start(Talker::default().server()).await;
    let first = call(
        &server,
        json!({ "name": "double", "arguments": {} }),
        elicits(),
    )
    .await;
    let result = &first["result"];
    let (key, params) = input_request(result);
    assert_eq!(params["message"], "How many?");
    assert_eq!(
        params["requestedSchema"]["properties"]["answer"]["type"],
        "integer"
    );
    assert!(
        result["requestState"].as_str().unwrap().len() > 40,
        "{result}"
    );

    // An unreadable answer comes back as the same question, naming the problem.
    let again = call(
        &server,
        retry("double", result, &key, json!("lots")),
        elicits(),
    )
    .await;
    let (key, params) = input_request(&again["result"]);
    let message = params["message"].as_str().unwrap();
    assert!(
        message.starts_with("Could not use that answer ("),
        "{message}"
    );
    assert!(message.ends_with("How many?"), "{message}");

    let done = call(
        &server,
        retry("double", &again["result"], &key, json!(8)),
        elicits(),
    )
    .await;
    assert_eq!(done["result"]["structuredContent"]["result"], 16, "{done}");
    assert_eq!(done["result"]["isError"], false);
}

#[tokio::test]
async fn request_state_is_sealed_single_use_and_bound_to_the_tool() {
    let server = start(Talker::default().server()).await;
    let first = call(
        &server,
        json!({ "name": "double", "arguments": {} }),
        elicits(),
    )
    .await;
    let result = first["result"].clone();
    let (key, _) = input_request(&result);

    let mut tampered = retry("double", &result, &key, json!(1));
    let state = result["requestState"].as_str().unwrap();
    let flipped = if state.ends_with('A') { "B" } else { "A" };
    tampered["requestState"] = json!(format!("{}{flipped}", &state[..state.len() - 1]));
    let refused = call(&server, tampered, elicits()).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("failed verification")
    );

    // The state of one tool does not resume a call of another.
    let other = call(&server, retry("greet", &result, &key, json!(1)), elicits()).await;
    assert_eq!(other["error"]["code"], -32602, "{other}");

    let done = call(&server, retry("double", &result, &key, json!(2)), elicits()).await;
    assert_eq!(done["result"]["structuredContent"]["result"], 4, "{done}");
    let replayed = call(&server, retry("double", &result, &key, json!(3)), elicits()).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert!(
        replayed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("names no waiting call"),
        "{replayed}"
    );
}

#[tokio::test]
async fn a_retry_without_the_answer_gets_the_question_again() {
    let server = start(Talker::default().server()).await;
    let first = call(
        &server,
        json!({ "name": "greet", "arguments": {} }),
        elicits(),
    )
    .await;
    let (key, _) = input_request(&first["result"]);
    let bare = json!({ "name": "greet", "arguments": {}, "requestState": first["result"]["requestState"] });
    let again = call(&server, bare, elicits()).await;
    let (same, params) = input_request(&again["result"]);
    assert_eq!(same, key, "the same question still waits");
    assert_eq!(params["message"], "What is your name?");
    let done = call(
        &server,
        retry("greet", &again["result"], &key, json!("Ada")),
        elicits(),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Ada!",
        "{done}"
    );
}

#[tokio::test]
async fn an_unanswered_input_request_expires() {
    let talker = Talker::default();
    let server = start(
        talker
            .clone()
            .server()
            .input_timeout(Duration::from_millis(100)),
    )
    .await;
    let first = call(
        &server,
        json!({ "name": "double", "arguments": {} }),
        elicits(),
    )
    .await;
    let (key, _) = input_request(&first["result"]);
    let seen = talker.logged("ask failed").await.unwrap();
    assert!(seen.contains("Expired"), "{seen}");
    let late = call(
        &server,
        retry("double", &first["result"], &key, json!(1)),
        elicits(),
    )
    .await;
    assert_eq!(late["error"]["code"], -32602, "{late}");
}

#[tokio::test]
async fn a_declined_question_fails_the_call_as_a_tool_error() {
    let server = start(Talker::default().server()).await;
    let first = call(
        &server,
        json!({ "name": "greet", "arguments": {} }),
        elicits(),
    )
    .await;
    let (key, _) = input_request(&first["result"]);
    let declined = json!({
        "name": "greet",
        "arguments": {},
        "requestState": first["result"]["requestState"],
        "inputResponses": { key: { "action": "decline" } },
    });
    let done = call(&server, declined, elicits()).await;
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "the caller declined to answer \"What is your name?\""
    );
}

#[tokio::test]
async fn a_client_without_elicitation_is_told_what_was_needed() {
    let server = start(Talker::default().server()).await;
    // On 2026-07-28 the request itself is refused: -32021 naming the capability, HTTP 400.
    let refused = refused_call(&server, "greet").await;
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({ "elicitation": {} })
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("this call needs more input (\"What is your name?\")"),
        "{message}"
    );

    // A 2025 session has no such error: the call is a tool error saying the same.
    let mut session = server.mcp_session().await;
    let legacy = session
        .request("tools/call", json!({ "name": "greet", "arguments": {} }))
        .await;
    assert_eq!(legacy["result"]["isError"], true, "{legacy}");
    let text = legacy["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`elicitation` capability"), "{legacy}");
}

#[tokio::test]
async fn authorization_cannot_be_awaited_by_a_plain_call() {
    let server = start(Talker::default().server()).await;
    let done = call(
        &server,
        json!({ "name": "whoami", "arguments": {} }),
        elicits(),
    )
    .await;
    assert_eq!(done["result"]["isError"], true, "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("this call needs authorization"), "{text}");
    assert!(text.contains("tasks extension"), "{text}");
}

#[tokio::test]
async fn a_task_waiting_for_input_is_answered_with_tasks_update() {
    let talker = Talker::default();
    let agent = talker.clone().server().mcp_task_after(Duration::ZERO);
    let server = start(agent).await;
    let capabilities = json!({ "extensions": { TASKS: {} }, "elicitation": {} });
    let created = call(
        &server,
        json!({ "name": "double", "arguments": {} }),
        capabilities.clone(),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();

    let polled = server
        .poll_mcp_task(&task_id, |t| t["status"] == "input_required")
        .await;
    let requests = polled["inputRequests"].as_object().unwrap();
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["params"]["message"], "How many?");
    // The same task over A2A waits in INPUT_REQUIRED.
    let a2a = server.rpc("GetTask", json!({ "id": task_id })).await;
    assert_eq!(
        a2a["result"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );

    // A response to a request the task does not wait for is acknowledged and ignored
    // (SEP-2663): the task keeps waiting on its own request.
    let (_, ignored) = server
        .mcp_modern(
            "tasks/update",
            json!({ "taskId": task_id, "inputResponses": { "other-key": {} } }),
            capabilities.clone(),
        )
        .await;
    let ignored = response_from(&ignored);
    assert!(ignored["error"].is_null(), "{ignored}");
    let still = server
        .poll_mcp_task(&task_id, |t| t["status"] == "input_required")
        .await;
    assert!(
        still["inputRequests"].get(key.as_str()).is_some(),
        "{still}"
    );
    // A response that does not answer the request is refused, naming it.
    let (_, wrong) = server
        .mcp_modern(
            "tasks/update",
            json!({ "taskId": task_id, "inputResponses": { key: { "unrelated": true } } }),
            capabilities.clone(),
        )
        .await;
    let wrong = response_from(&wrong);
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    assert!(
        wrong["error"]["message"]
            .as_str()
            .unwrap()
            .contains(key.as_str())
    );

    let (_, updated) = server
        .mcp_modern(
            "tasks/update",
            json!({
                "taskId": task_id,
                "inputResponses": { key: { "action": "accept", "content": { "answer": 20 } } },
            }),
            capabilities,
        )
        .await;
    assert!(response_from(&updated)["error"].is_null(), "{updated}");
    let done = server
        .poll_mcp_task(&task_id, |t| t["status"] == "completed")
        .await;
    assert_eq!(done["result"]["structuredContent"]["result"], 40, "{done}");
}

/// Asks questions under names clients can rely on.
#[a2a_runtime::agent(name = "Doorman", crate = a2a_runtime)]
#[derive(Debug, Default)]
pub struct Doorman;

/// Greet a visitor by the name they give.
#[a2a_runtime::skill(agent = Doorman, crate = a2a_runtime)]
pub async fn welcome(ctx: a2a_runtime::TaskContext) -> Result<String, a2a_runtime::SkillError> {
    let name: String = ctx.ask_named("visitor_name", "Who is there?").await?;
    Ok(format!("Welcome, {name}!"))
}

#[tokio::test]
async fn a_named_question_is_keyed_by_its_name() {
    let server = start(Doorman.server()).await;
    let first = call(
        &server,
        json!({ "name": "welcome", "arguments": {} }),
        elicits(),
    )
    .await;
    let (key, params) = input_request(&first["result"]);
    assert_eq!(key, "visitor_name");
    assert_eq!(params["message"], "Who is there?");
    let done = call(
        &server,
        retry("welcome", &first["result"], "visitor_name", json!("Ada")),
        elicits(),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Welcome, Ada!",
        "{done}"
    );
}

#[tokio::test]
async fn responses_sent_with_the_call_answer_the_questions_they_name() {
    let server = start(Doorman.server()).await;
    let done = call(
        &server,
        json!({
            "name": "welcome",
            "arguments": {},
            "inputResponses": {
                "visitor_name": { "action": "accept", "content": { "answer": "Grace" } },
                "something_else": { "action": "accept", "content": {} },
            },
        }),
        elicits(),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Welcome, Grace!",
        "{done}"
    );
}

/// Runs jobs that must be tasks, and one that never is.
#[a2a_runtime::agent(name = "Foreman", crate = a2a_runtime)]
#[derive(Debug, Default)]
pub struct Foreman;

/// A batch job: always a task.
#[a2a_runtime::skill(agent = Foreman, crate = a2a_runtime, task_support = "required")]
pub async fn batch() -> String {
    "batch done".into()
}

/// A job that crashes: always a task.
#[a2a_runtime::skill(agent = Foreman, crate = a2a_runtime, task_support = "required")]
#[allow(clippy::panic)] // The point of the skill.
pub async fn crash() -> String {
    panic!("the job crashed")
}

/// A quick answer: never a task.
#[a2a_runtime::skill(agent = Foreman, crate = a2a_runtime, task_support = "forbidden")]
pub async fn quick() -> String {
    "quick".into()
}

#[tokio::test]
async fn a_tool_that_requires_tasks_refuses_clients_without_the_extension() {
    let server = start(Foreman.server()).await;
    let refused = refused_call(&server, "batch").await;
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
        json!({})
    );
}

#[tokio::test]
async fn task_support_decides_whether_a_call_becomes_a_task() {
    let server = start(Foreman.server()).await;
    let tasks = json!({ "extensions": { TASKS: {} } });
    // Required: a task, however quickly it ends.
    let created = call(
        &server,
        json!({ "name": "batch", "arguments": {} }),
        tasks.clone(),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap();
    let done = server
        .poll_mcp_task(task_id, |t| t["status"] == "completed")
        .await;
    assert_eq!(done["result"]["content"][0]["text"], "batch done", "{done}");
    // Forbidden: the result, even for a client of the extension.
    let quick = call(
        &server,
        json!({ "name": "quick", "arguments": {} }),
        tasks.clone(),
    )
    .await;
    assert_eq!(quick["result"]["resultType"], "complete", "{quick}");
    assert_eq!(quick["result"]["content"][0]["text"], "quick");
    // A panic fails the task with a JSON-RPC error, not a tool error.
    let crashed = call(&server, json!({ "name": "crash", "arguments": {} }), tasks).await;
    let task_id = crashed["result"]["taskId"].as_str().unwrap();
    let failed = server
        .poll_mcp_task(task_id, |t| t["status"] == "failed")
        .await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
}

/// A long job that needs a name first: always a task.
#[a2a_runtime::skill(agent = Foreman, crate = a2a_runtime, task_support = "required")]
pub async fn survey(ctx: a2a_runtime::TaskContext) -> Result<String, a2a_runtime::SkillError> {
    let name: String = ctx.ask_named("surveyor", "Who runs the survey?").await?;
    Ok(format!("survey by {name}"))
}

#[tokio::test]
async fn a_tool_that_requires_tasks_asks_first_and_hands_over_its_task_once_answered() {
    let server = start(Foreman.server()).await;
    let capabilities = json!({ "extensions": { TASKS: {} }, "elicitation": {} });
    let first = call(
        &server,
        json!({ "name": "survey", "arguments": {} }),
        capabilities.clone(),
    )
    .await;
    let (key, params) = input_request(&first["result"]);
    assert_eq!(key, "surveyor");
    assert_eq!(params["message"], "Who runs the survey?");
    assert!(first["result"].get("taskId").is_none(), "{first}");
    // A retry without the answer is asked again, under the same state.
    let unanswered = call(
        &server,
        json!({
            "name": "survey",
            "arguments": {},
            "requestState": first["result"]["requestState"],
        }),
        capabilities.clone(),
    )
    .await;
    assert_eq!(unanswered["result"]["resultType"], "input_required");
    assert_eq!(
        unanswered["result"]["requestState"],
        first["result"]["requestState"]
    );
    let handed = call(
        &server,
        retry("survey", &first["result"], "surveyor", json!("Ada")),
        capabilities,
    )
    .await;
    assert_eq!(handed["result"]["resultType"], "task", "{handed}");
    assert!(handed["result"].get("requestState").is_none(), "{handed}");
    let task_id = handed["result"]["taskId"].as_str().unwrap();
    let done = server
        .poll_mcp_task(task_id, |t| t["status"] == "completed")
        .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "survey by Ada",
        "{done}"
    );
}
