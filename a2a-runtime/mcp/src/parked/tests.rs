use std::time::Duration;

use std::collections::VecDeque;

use a2a_runtime_core::ask::AskError;

use super::*;

fn asker(
    parked: &Arc<ParkedCalls>,
    limits: &InputLimits,
) -> (MrtrAsker, mpsc::Receiver<CallEvent>) {
    let (events, receiver) = mpsc::channel(1);
    let asker = MrtrAsker {
        client: Client::Parks(ParkingClient {
            tool: "t",
            events,
            parked: Arc::clone(parked),
            limits: limits.clone(),
            cancel: CancellationToken::new(),
        }),
        record: Arc::new(Record {
            arguments: serde_json::json!({}),
            answers: Mutex::new(Vec::new()),
        }),
        replay: Mutex::new(VecDeque::new()),
        offered: Mutex::default(),
        abilities: Abilities {
            forms: true,
            sampling: false,
            roots: false,
        },
    };
    (asker, receiver)
}

fn question() -> Question {
    Question::input("How many?".into(), serde_json::json!({"type": "integer"}))
}

#[tokio::test]
async fn an_expired_question_is_reaped_and_frees_its_slot() {
    let parked = Arc::new(ParkedCalls::new(None));
    let limits = InputLimits::new(Duration::from_millis(20), 4);
    let (asker, mut events) = asker(&parked, &limits);
    let question = question();
    let waiting = tokio::spawn(async move { asker.wait(vec![question]).await });
    let Some(CallEvent::Asked(asked)) = events.recv().await else {
        panic!("the question is announced");
    };
    assert_eq!(parked.len(), 1);
    assert_eq!(limits.waiting(), 1);
    let outcome = waiting.await.expect("asker task");
    assert!(
        matches!(outcome, Err(AskError::Expired { .. })),
        "{outcome:?}"
    );
    assert_eq!(parked.len(), 0, "reaped");
    assert_eq!(limits.waiting(), 0, "slot freed");
    let sealed = SealedState {
        origin: parked.origin.clone(),
        round: asked,
        arguments: serde_json::json!({}),
        answers: Vec::new(),
    };
    let state = parked.input_required(&sealed, "t", "anonymous", Duration::from_secs(1));
    let state = state.request_state.expect("sealed state");
    assert!(matches!(
        parked.resume("t", "anonymous", &state, None, None, Duration::from_secs(1)),
        Err(ResumeError::Gone)
    ));
    // Sealed to its caller: another one cannot even learn that it is gone.
    assert!(matches!(
        parked.resume(
            "t",
            "bearer:mallory",
            &state,
            None,
            None,
            Duration::from_secs(1)
        ),
        Err(ResumeError::Forged)
    ));
}

#[tokio::test]
async fn questions_beyond_the_limit_are_refused() {
    let parked = Arc::new(ParkedCalls::new(None));
    let limits = InputLimits::new(Duration::from_secs(60), 1);
    let (first, mut events) = asker(&parked, &limits);
    let question = question();
    let held = question.clone();
    let _waiting = tokio::spawn(async move { first.wait(vec![held]).await });
    assert!(events.recv().await.is_some());
    let (second, _events) = asker(&parked, &limits);
    let refused = second.wait(vec![question]).await;
    assert!(
        matches!(refused, Err(AskError::Capacity { limit: 1, .. })),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_retry_that_answers_part_of_a_round_is_asked_for_the_rest() {
    let parked = Arc::new(ParkedCalls::new(None));
    let limits = InputLimits::new(Duration::from_secs(60), 4);
    let (asker, mut events) = asker(&parked, &limits);
    let named = |name: &str| Question {
        key: Some(name.into()),
        ..Question::input(name.into(), serde_json::json!({"type": "string"}))
    };
    let questions = vec![named("first"), named("second")];
    let waiting = tokio::spawn(async move { asker.wait(questions).await });
    let Some(CallEvent::Asked(round)) = events.recv().await else {
        panic!("the round is announced");
    };
    let sealed = SealedState {
        origin: parked.origin.clone(),
        round,
        arguments: serde_json::json!({}),
        answers: Vec::new(),
    };
    let ttl = Duration::from_secs(60);
    let result = parked.input_required(&sealed, "t", "anonymous", ttl);
    let keys: Vec<&String> = result
        .input_requests
        .iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, ["first", "second"]);
    // Parked calls need a call attached before a retry reaches them.
    let (_, events_rx) = mpsc::channel(1);
    let call = DetachedCall {
        skill: "t",
        owner: Arc::from("anonymous"),
        events: events_rx,
        published: Arc::default(),
        progress: Arc::default(),
        cancel: CancellationToken::new(),
        record: Arc::new(Record {
            arguments: serde_json::json!({}),
            answers: Mutex::new(Vec::new()),
        }),
    };
    assert!(parked.park(sealed.round.clone(), call, ttl).is_ok());
    let accept =
        |value: &str| serde_json::json!({"action": "accept", "content": {"answer": value}});
    let state = result.request_state.expect("state");
    let partial = InputResponses::from([("first".to_owned(), accept("one"))]);
    let Ok(Resumed::Unanswered(again)) =
        parked.resume("t", "anonymous", &state, Some(partial), None, ttl)
    else {
        panic!("the rest is asked for");
    };
    let keys: Vec<&String> = again
        .input_requests
        .iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, ["second"], "only what is missing");
    let rest = InputResponses::from([("second".to_owned(), accept("two"))]);
    let state = again.request_state.expect("a new state");
    assert!(matches!(
        parked.resume("t", "anonymous", &state, Some(rest), None, ttl),
        Ok(Resumed::Answered(_))
    ));
    let answers = waiting.await.expect("asker task").expect("answers");
    assert_eq!(
        answers,
        [
            Answer::Value(serde_json::json!("one")),
            Answer::Value(serde_json::json!("two"))
        ]
    );
}
