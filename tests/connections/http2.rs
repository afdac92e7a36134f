//! HTTP/2 (gRPC's transport) against clients that break its rules, frame by frame: more streams
//! than the server allows, a request whose message never comes, responses never read. Each ends
//! in a refusal or a status, never a hang, and the server's memory stays bounded.

use std::time::Duration;

use a2a_runtime_types::protocol::a2a::grpc::json::to_struct;
use a2a_runtime_types::protocol::a2a::grpc::messages as wire;
use a2a_tests::h2_raw::{Frame, RawH2, kind};
use prost::Message as _;

const CURRENCY: &str = env!("CARGO_BIN_EXE_interop-currency");
/// RST_STREAM's REFUSED_STREAM; GOAWAY's ENHANCE_YOUR_CALM (RFC 9113 §7).
const REFUSED_STREAM: u32 = 0x7;
const ENHANCE_YOUR_CALM: u32 = 0xb;
/// SETTINGS_INITIAL_WINDOW_SIZE.
const INITIAL_WINDOW_SIZE: u16 = 0x4;
const GET_TASK: &str = "/lf.a2a.v1.A2AService/GetTask";
const STREAM: &str = "/lf.a2a.v1.A2AService/SendStreamingMessage";

async fn currency(flags: &[&str]) -> (tokio::process::Child, String) {
    let (child, base) = a2a_tests::spawn_served_with(CURRENCY, flags).await;
    let address = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    (child, address)
}

/// Frames until `done` says enough, the server closes, or nothing comes for `quiet`.
async fn frames(
    raw: &mut RawH2,
    quiet: Duration,
    mut done: impl FnMut(&Frame) -> bool,
) -> Vec<Frame> {
    let mut seen = Vec::new();
    while let Some(frame) = raw.next(quiet).await {
        let enough = done(&frame);
        seen.push(frame);
        if enough {
            break;
        }
    }
    seen
}

#[tokio::test]
async fn ten_thousand_streams_on_one_connection_are_refused_past_the_cap_in_bounded_memory() {
    let (child, address) = currency(&["--max-streams-per-connection", "100"]).await;
    let pid = child.id().unwrap();
    let before = a2a_tests::rss_kb(pid);
    let mut raw = RawH2::connect(&address, &[]).await;
    // Streams whose messages never come: the first hundred wait for them, the rest are over.
    for i in 0..10_000u32 {
        raw.grpc_headers(1 + 2 * i, GET_TASK, false).await;
    }
    let mut refused = 0;
    let seen = frames(&mut raw, Duration::from_secs(20), |frame| {
        refused += usize::from(
            frame.error_code() == Some(REFUSED_STREAM) && frame.kind == kind::RST_STREAM,
        );
        frame.kind == kind::GOAWAY || refused >= 9_900
    })
    .await;
    let goaway = seen.iter().find(|f| f.kind == kind::GOAWAY);
    // Streams past the cap are refused; past a thousand refusals the server closes the
    // connection (GOAWAY, ENHANCE_YOUR_CALM: "too many internal resets").
    assert!(refused > 0, "streams past the cap are refused: {seen:?}");
    assert!(
        refused >= 9_900 || goaway.and_then(Frame::error_code) == Some(ENHANCE_YOUR_CALM),
        "every stream is refused, or the connection is: {refused} refused, {goaway:?}"
    );
    let grown = a2a_tests::rss_kb(pid).saturating_sub(before);
    assert!(grown < 64 * 1024, "the server grew by {grown} KiB");
    // The server still answers everyone else.
    let mut other = RawH2::connect(&address, &[]).await;
    other.grpc_headers(1, GET_TASK, false).await;
    let task = wire::GetTaskRequest {
        id: "no-such-task".into(),
        ..Default::default()
    };
    other.grpc_message(1, &task.encode_to_vec()).await;
    let answered = frames(&mut other, Duration::from_secs(10), |f| {
        f.stream == 1 && f.flags & 1 == 1
    })
    .await;
    assert!(
        answered
            .iter()
            .any(|f| f.stream == 1 && f.kind == kind::HEADERS),
        "{answered:?}"
    );
}

#[tokio::test]
async fn a_request_whose_message_never_comes_is_answered_within_the_body_timeout() {
    let (_child, address) = currency(&["--body-timeout", "1s"]).await;
    let mut raw = RawH2::connect(&address, &[]).await;
    raw.grpc_headers(1, GET_TASK, false).await;
    let started = std::time::Instant::now();
    // Trailers (HEADERS ending the stream) or a reset: the server gave up on the message.
    let seen = frames(&mut raw, Duration::from_secs(10), |f| {
        f.stream == 1
            && ((f.kind == kind::HEADERS && f.flags & 1 == 1) || f.kind == kind::RST_STREAM)
    })
    .await;
    let ended = seen
        .iter()
        .any(|f| f.stream == 1 && (f.flags & 1 == 1 || f.kind == kind::RST_STREAM));
    assert!(ended, "the stream is ended: {seen:?}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "ended in {:?}",
        started.elapsed()
    );
}

/// A `SendStreamingMessage` of the currency agent's slow report.
fn slow_report(id: u32) -> Vec<u8> {
    let input = serde_json::json!({"currencies": ["USD", "JPY"], "pace_ms": 2000});
    let data = a2a_runtime_types::protocol::a2a::grpc::json::to_value(&input);
    let skill = serde_json::json!({"skill": "report"});
    let message = wire::Message {
        message_id: format!("never-read-{id}"),
        role: wire::Role::User as i32,
        parts: vec![wire::Part {
            content: Some(wire::PartContent::Data(data)),
            ..Default::default()
        }],
        metadata: skill.as_object().map(to_struct),
        ..Default::default()
    };
    wire::SendMessageRequest {
        message: Some(message),
        ..Default::default()
    }
    .encode_to_vec()
}

#[tokio::test]
async fn streams_never_read_take_no_more_than_their_callers_share_and_free_it_when_closed() {
    let (child, address) = currency(&["--max-streams-per-caller", "8"]).await;
    let pid = child.id().unwrap();
    let before = a2a_tests::rss_kb(pid);
    // A window of 0: the server may send headers, never a message.
    let mut silent = RawH2::connect(&address, &[(INITIAL_WINDOW_SIZE, 0)]).await;
    for i in 0..12u32 {
        let stream = 1 + 2 * i;
        silent.grpc_headers(stream, STREAM, false).await;
        silent.grpc_message(stream, &slow_report(i)).await;
    }
    // The four past the caller's share are refused at once (trailers ending their streams).
    let mut ended = 0;
    frames(&mut silent, Duration::from_secs(5), |f| {
        ended += usize::from(f.kind == kind::HEADERS && f.flags & 1 == 1);
        ended >= 4
    })
    .await;
    assert_eq!(ended, 4, "the streams past the share are answered");
    let grown = a2a_tests::rss_kb(pid).saturating_sub(before);
    assert!(grown < 32 * 1024, "the server grew by {grown} KiB");
    // Closing the connection frees the share: a reader gets its stream's messages.
    drop(silent);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut reader = RawH2::connect(&address, &[]).await;
    reader.grpc_headers(1, STREAM, false).await;
    reader.grpc_message(1, &slow_report(99)).await;
    let seen = frames(&mut reader, Duration::from_secs(10), |f| {
        f.kind == kind::DATA && f.stream == 1
    })
    .await;
    assert!(
        seen.iter().any(|f| f.kind == kind::DATA && f.stream == 1),
        "{seen:?}"
    );
}

#[tokio::test]
async fn idle_http2_connections_that_only_answer_pings_are_closed_and_free_their_slots() {
    let flags = [
        "--header-timeout",
        "1s",
        "--max-connections",
        "4",
        "--max-connections-per-peer",
        "4",
    ];
    let (_child, address) = currency(&flags).await;
    // Four clients take every slot and use none: they only ping.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(RawH2::connect(&address, &[]).await);
    }
    let pinging = idle.iter_mut().map(|raw| {
        // A hang guard, far past the one second a connection may stay without a stream.
        raw.pings_until_closed(Duration::from_millis(200), Duration::from_secs(30))
    });
    let closed = futures::future::join_all(pinging).await;
    assert!(
        closed.iter().all(|c| *c),
        "every idle connection is closed: {closed:?}"
    );
    // Their slots are free: a new client is answered.
    let card = tokio::time::timeout(
        Duration::from_secs(30),
        a2a_tests::get(format!("http://{address}/.well-known/agent-card.json")),
    )
    .await
    .expect("a new client is answered")
    .unwrap();
    assert_eq!(card.status(), 200);
    // A connection in use is not idle: a request answered on it, then it closes once idle.
    let mut used = RawH2::connect(&address, &[]).await;
    used.grpc_headers(1, GET_TASK, false).await;
    let task = wire::GetTaskRequest {
        id: "no-such-task".into(),
        ..Default::default()
    };
    used.grpc_message(1, &task.encode_to_vec()).await;
    let answered = frames(&mut used, Duration::from_secs(10), |f| {
        f.stream == 1 && f.flags & 1 == 1
    })
    .await;
    assert!(answered.iter().any(|f| f.stream == 1), "{answered:?}");
    assert!(
        used.pings_until_closed(Duration::from_millis(200), Duration::from_secs(30))
            .await
    );
}

#[tokio::test]
async fn the_browser_guard_reads_the_authority_of_an_http2_request() {
    let (_child, address) = currency(&[]).await;
    let task = wire::GetTaskRequest {
        id: "no-such-task".into(),
        ..Default::default()
    };
    // A page of another name, reaching the loopback agent through DNS rebinding: HTTP/2 names
    // the host only as `:authority`.
    let mut rebound = RawH2::connect(&address, &[])
        .await
        .authority("evil.example");
    rebound.grpc_headers(1, GET_TASK, false).await;
    rebound.grpc_message(1, &task.encode_to_vec()).await;
    let answer = frames(&mut rebound, Duration::from_secs(10), |f| {
        f.stream == 1 && f.flags & 1 == 1
    })
    .await;
    let body: Vec<u8> = answer
        .iter()
        .filter(|f| f.stream == 1 && f.kind == kind::DATA)
        .flat_map(|f| f.payload.clone())
        .collect();
    let body = String::from_utf8_lossy(&body);
    assert!(
        body.contains("evil.example") && body.contains("not one this agent answers to"),
        "refused naming the host: {answer:?}"
    );
    // Its own name passes.
    let mut own = RawH2::connect(&address, &[]).await.authority(&address);
    own.grpc_headers(1, GET_TASK, false).await;
    own.grpc_message(1, &task.encode_to_vec()).await;
    let answer = frames(&mut own, Duration::from_secs(10), |f| {
        f.stream == 1 && f.flags & 1 == 1
    })
    .await;
    assert!(
        !answer.iter().any(|f| f.kind == kind::DATA && f.stream == 1),
        "a gRPC refusal is trailers only, never the guard's body: {answer:?}"
    );
}
