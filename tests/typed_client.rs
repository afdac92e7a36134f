//! The typed client `#[agent]` generates (`CurrencyClient` for `currency::Currency`), over A2A
//! and over MCP against the currency agent served by the authors' test harness
//! (`a2a_runtime::testing::TestAgent`): the same typed values both ways, questions answered by
//! the caller's answerer (or the call ending in `InputRequired` without one), a skill's failure
//! as `SkillFailed`; and what the harness gives beside typed calls: progress, artifacts and
//! cancellation through its A2A client, declared callers whose tasks are their own, raw JSON.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::time::Duration;

use a2a_runtime::client::{
    A2aClient, ClientError, Question, SendOptions, SendResult, SkillClient, StreamEvent,
};
use a2a_runtime::futures::StreamExt;
use a2a_runtime::serde_json::{Value, json};
use a2a_runtime::testing::{TestAgent, TestError};
use a2a_runtime::{Message, Part, TaskState};
use currency::{Code, Currency, CurrencyClient, Money};

/// The currency agent served in-process, and a typed client of it over each protocol.
async fn both_clients() -> (TestAgent, [(&'static str, CurrencyClient); 2]) {
    let agent = TestAgent::start(Currency::with_reference_rates().server())
        .await
        .unwrap();
    let a2a = agent.client().await.unwrap();
    let mcp = agent.mcp_client().await.unwrap();
    (agent, [("A2A", a2a), ("MCP", mcp)])
}

/// A message calling the currency agent's `skill` with `input`.
fn call(skill: &str, input: Value) -> Message {
    let mut message = Message::user(vec![Part::data(input)]);
    message.metadata = json!({ "skill": skill }).as_object().cloned();
    message
}

#[tokio::test]
async fn the_generated_client_returns_the_same_typed_values_over_a2a_and_mcp() {
    let (_server, clients) = both_clients().await;
    let ten_usd = Money {
        amount: 10.0,
        currency: Code::USD,
    };
    let mut quotes = Vec::new();
    for (protocol, client) in &clients {
        let quote = client.convert(ten_usd, Code::EUR, None).await.unwrap();
        assert_eq!(quote.currency, Code::EUR, "{protocol}");
        assert!(
            quote.amount > 0.0 && quote.rate > 0.0,
            "{protocol}: {quote:?}"
        );
        let rates = client.rates(Some(Code::USD)).await.unwrap();
        assert!(rates.iter().any(|r| r.currency == Code::EUR), "{protocol}");
        let supported = client.is_supported("chf".into()).await.unwrap();
        assert!(!supported.is_empty(), "{protocol}");
        quotes.push((quote.amount, quote.rate, rates.len(), supported));
    }
    assert_eq!(quotes[0], quotes[1], "A2A and MCP answer the same");
}

#[tokio::test]
async fn a_skills_failure_is_skill_failed_over_both_protocols() {
    let (_server, clients) = both_clients().await;
    let negative = Money {
        amount: -1.0,
        currency: Code::USD,
    };
    for (protocol, client) in &clients {
        let error = client.convert(negative, Code::EUR, None).await.unwrap_err();
        let ClientError::SkillFailed { skill, message, .. } = &error else {
            panic!("{protocol}: expected SkillFailed, got {error}");
        };
        assert_eq!(skill, "convert", "{protocol}");
        assert!(message.contains("money.amount"), "{protocol}: {message}");
    }
}

/// Answers the exchange skill's two questions: the account, then yes.
async fn teller(question: Question) -> Option<Value> {
    if question.prompt.contains("account") {
        Some(json!("ACC-42"))
    } else if question.prompt.contains("Book it?") {
        Some(json!("yes"))
    } else {
        None
    }
}

#[tokio::test]
async fn questions_reach_the_callers_answerer_and_the_call_completes() {
    let (_server, clients) = both_clients().await;
    let hundred = Money {
        amount: 100.0,
        currency: Code::USD,
    };
    for (protocol, client) in clients {
        let client = client.on_question(teller);
        let booked = client.exchange(hundred, Code::CHF).await.unwrap();
        assert_eq!(booked.account, "ACC-42", "{protocol}");
        assert_eq!(booked.bought.currency, Code::CHF, "{protocol}");
    }
}

#[tokio::test]
async fn an_unanswered_question_ends_the_call_naming_it() {
    let (_server, clients) = both_clients().await;
    let hundred = Money {
        amount: 100.0,
        currency: Code::USD,
    };
    let [(_, a2a), _] = clients;
    let error = a2a.exchange(hundred, Code::CHF).await.unwrap_err();
    let ClientError::InputRequired {
        skill,
        prompt,
        task_id,
    } = &error
    else {
        panic!("expected InputRequired, got {error}");
    };
    assert_eq!(skill, "exchange");
    assert!(prompt.contains("account"), "{prompt}");
    assert!(task_id.is_some());
}

#[tokio::test]
async fn a_skill_longer_than_the_call_timeout_is_still_waited_for() {
    let agent = TestAgent::start(Currency::with_reference_rates().server())
        .await
        .unwrap();
    let impatient = A2aClient::builder(agent.url())
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    let client = CurrencyClient::from_skills(SkillClient::a2a(Arc::new(impatient)));
    // Three sections of 250 ms each: about 750 ms, over the 300 ms call timeout.
    let report = client
        .report(Some(vec![Code::USD, Code::GBP, Code::CHF]), Some(250))
        .await
        .unwrap();
    assert!(report.contains("3 currencies"), "{report}");
}

#[tokio::test]
async fn the_harness_streams_progress_and_artifacts_and_cancels_a_running_task() {
    let agent = TestAgent::start(Currency::with_reference_rates().server())
        .await
        .unwrap();
    let client = agent.a2a().await.unwrap();
    let input = json!({"currencies": ["USD", "GBP", "CHF", "JPY"], "pace_ms": 200});
    let mut events = client.send_streaming(call("report", input)).await.unwrap();
    let (mut task_id, mut progress, mut sections) = (None, Vec::new(), 0);
    // The heading, then the first section: its progress report comes between them.
    while sections < 2 {
        match events.next().await.unwrap().unwrap() {
            StreamEvent::Task(task) => task_id = Some(task.id.clone()),
            StreamEvent::Status(update) => {
                task_id.get_or_insert(update.task_id.clone());
                if let Some(message) = update.status.message {
                    progress.push(format!("{:?}", message.parts));
                }
            }
            StreamEvent::Artifact(update) => {
                assert_eq!(update.artifact.name.as_deref(), Some("market-report"));
                sections += 1;
            }
            StreamEvent::Message(message) => panic!("a task was expected: {message:?}"),
        }
    }
    assert!(
        progress.iter().any(|p| p.contains("Researching")),
        "{progress:?}"
    );
    let canceled = client.cancel_task(&task_id.unwrap()).await.unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled, "{canceled:?}");
}

#[tokio::test]
async fn a_declared_callers_tasks_are_its_own_and_anonymous_calls_are_refused() {
    let agent = TestAgent::builder(Currency::with_reference_rates().server())
        .caller("ann", Vec::<String>::new())
        .caller("bob", Vec::<String>::new())
        .start()
        .await
        .unwrap();
    let (ann, bob) = (
        agent.a2a_as("ann").await.unwrap(),
        agent.a2a_as("bob").await.unwrap(),
    );
    let waiting = SendOptions {
        return_immediately: true,
        history_length: None,
    };
    let input = json!({"currencies": ["USD"], "pace_ms": 30_000});
    let SendResult::Task(task) = ann.send_with(call("report", input), waiting).await.unwrap()
    else {
        panic!("a task was expected");
    };
    assert_eq!(ann.get_task(&task.id, None).await.unwrap().id, task.id);
    let hidden = bob.get_task(&task.id, None).await.unwrap_err();
    assert!(
        matches!(&hidden, ClientError::Remote(remote) if remote.code == -32001),
        "another caller must not see the task: {hidden}"
    );
    assert!(bob.cancel_task(&task.id).await.is_err());
    ann.cancel_task(&task.id).await.unwrap();
    // The typed client over MCP calls as the caller too; without a token, nothing is served.
    let typed: CurrencyClient = agent.mcp_client_as("ann").await.unwrap();
    assert!(!typed.rates(None).await.unwrap().is_empty());
    let anonymous = agent.client::<CurrencyClient>().await.unwrap();
    assert!(anonymous.rates(None).await.is_err());
    let unknown = agent.a2a_as("carol").await.unwrap_err();
    assert!(matches!(unknown, TestError::UnknownCaller(name) if name == "carol"));
}

#[tokio::test]
async fn the_harness_gives_the_wire_as_a_peer_sees_it() {
    let agent = TestAgent::start(Currency::with_reference_rates().server())
        .await
        .unwrap();
    let card = agent
        .get_json("/.well-known/agent-card.json")
        .await
        .unwrap();
    assert_eq!(card.status, 200);
    assert_eq!(card.body["supportedInterfaces"][0]["url"], agent.url());
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": {
            "messageId": "m1", "role": "ROLE_USER",
            "parts": [{"data": {"money": {"amount": 5, "currency": "USD"}, "to": "EUR"}}],
            "metadata": {"skill": "convert"}
        }}
    });
    let answer = agent
        .post_json("/", &request, &[("A2A-Version", "1.0")])
        .await
        .unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.body["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{}",
        answer.body
    );
}
