//! The typed client `#[agent]` generates (`CurrencyClient` for `currency::Currency`), over A2A
//! and over MCP against the served currency agent: the same typed values both ways, questions
//! answered by the caller's answerer (or the call ending in `InputRequired` without one), and a
//! skill's failure as `SkillFailed`.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::sync::Arc;
use std::time::Duration;

use a2a_runtime::client::{A2aClient, ClientError, Question, SkillClient};
use a2a_runtime::serde_json::{Value, json};
use a2a_tests::start;
use currency::{Code, Currency, CurrencyClient, Money};

/// A client of the same served agent over each protocol.
async fn both_clients() -> (a2a_tests::TestServer, [(&'static str, CurrencyClient); 2]) {
    let server = start(Currency::with_reference_rates().server()).await;
    let a2a = CurrencyClient::connect(&server.base).await.unwrap();
    let mcp = CurrencyClient::connect_mcp(format!("{}mcp", server.base))
        .await
        .unwrap();
    (server, [("A2A", a2a), ("MCP", mcp)])
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
    let server = start(Currency::with_reference_rates().server()).await;
    let impatient = A2aClient::builder(&server.base)
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
