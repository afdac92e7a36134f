//! Connections no client can hold forever: a slow or stalled request head or body is closed after
//! its timeout, a declared body over the limit is refused before it is read, and connections over
//! the cap wait instead of exhausting descriptors, while well-behaved requests are served.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::time::Duration;

use a2a_runtime::server::Limits;
use a2a_tests::lab::Lab;
use a2a_tests::{TestServer, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// HTTP/2, as gRPC clients use it, against clients that break its rules.
#[path = "connections/http2.rs"]
mod http2;

/// A hang guard, not a timing assertion.
const GUARD: Duration = Duration::from_secs(30);

async fn lab_with(limits: Limits) -> TestServer {
    start(Lab.server().limits(limits)).await
}

/// Reads until the server closes the connection; returns what it sent.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    tokio::time::timeout(GUARD, stream.read_to_end(&mut received))
        .await
        .expect("the server closed the connection")
        .unwrap_or_default();
    String::from_utf8_lossy(&received).into_owned()
}

async fn healthy(server: &TestServer) -> bool {
    let response = tokio::time::timeout(
        GUARD,
        server.http.get(format!("{}healthz", server.base)).send(),
    )
    .await
    .expect("served");
    response.is_ok_and(|r| r.status().is_success())
}

#[tokio::test]
async fn a_connection_sending_half_its_headers_is_closed_after_the_header_timeout() {
    let mut limits = Limits::default();
    limits.header_timeout = Duration::from_millis(300);
    let server = lab_with(limits).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
        .await
        .unwrap();
    assert!(healthy(&server).await, "others are served meanwhile");
    read_to_close(&mut slow).await;
}

/// What a server with a 300 ms body timeout answers to `head` followed by 12 of the 100 body
/// bytes it declares (the connection is closed after it); the server stays healthy.
async fn answer_to_a_stalled_body(head: &[u8]) -> String {
    let mut limits = Limits::default();
    limits.body_timeout = Duration::from_millis(300);
    let server = lab_with(limits).await;
    let mut stalled = TcpStream::connect(server.addr).await.unwrap();
    stalled.write_all(head).await.unwrap();
    stalled
        .write_all(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
        .await
        .unwrap();
    let answer = read_to_close(&mut stalled).await;
    assert!(healthy(&server).await);
    answer
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_given_up_after_the_body_timeout() {
    let head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    let answer = answer_to_a_stalled_body(head).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("paused for longer than 300ms"), "{answer}");
}

/// A connection from `source` (another loopback address is another peer) to `server`.
async fn connect_from(source: &str, server: &TestServer) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    socket.connect(server.addr).await.unwrap()
}

/// A request head declaring a 100 000-byte body to `path`, of which one byte is sent every
/// 100 ms (well within the body timeout) until the server closes the connection.
async fn trickle(mut stream: TcpStream, path: &str) -> String {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let dripping = tokio::spawn(async move {
        while write.write_all(b" ").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let mut received = Vec::new();
    tokio::time::timeout(GUARD, read.read_to_end(&mut received))
        .await
        .expect("the server closed the trickling connection")
        .unwrap_or_default();
    dripping.abort();
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test]
async fn slow_bodies_from_one_peer_are_cut_at_the_deadline_and_capped_while_others_are_served() {
    let mut limits = Limits::default();
    limits.max_connections = 12;
    limits.max_connections_per_peer = 4;
    limits.body_timeout = Duration::from_millis(500);
    limits.body_deadline = Duration::from_millis(1500);
    let server = lab_with(limits).await;
    // One peer (127.0.0.2) opens more trickling connections than its cap, on A2A and MCP.
    let mut trickles = Vec::new();
    for n in 0..8 {
        let stream = connect_from("127.0.0.2", &server).await;
        let path = if n % 2 == 0 { "/" } else { "/mcp" };
        trickles.push(tokio::spawn(trickle(stream, path)));
    }
    // Another peer is served meanwhile, several times over.
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_millis(1000) {
        assert!(healthy(&server).await, "another peer is starved");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut answers = Vec::new();
    for trickle in trickles {
        answers.push(trickle.await.unwrap());
    }
    let refused = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 429"))
        .count();
    assert_eq!(
        refused, 4,
        "the four over the cap are refused: {answers:#?}"
    );
    let cut: Vec<_> = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 408"))
        .collect();
    assert_eq!(
        cut.len(),
        4,
        "the four admitted are cut at the deadline: {answers:#?}"
    );
    assert!(
        cut.iter()
            .all(|a| a.contains("took longer than 1s 500ms to arrive in all")),
        "{cut:#?}"
    );
    // The peer's slots are back once its connections closed.
    let again = trickle(connect_from("127.0.0.2", &server).await, "/").await;
    assert!(again.starts_with("HTTP/1.1 408"), "{again}");
}

#[tokio::test]
async fn an_mcp_body_that_stalls_is_refused_after_the_body_timeout_naming_it() {
    let head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nConnection: close\r\n";
    let answer = answer_to_a_stalled_body(head).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("-32600"), "{answer}");
    assert!(
        answer.contains("the request body paused for longer than 300ms"),
        "{answer}"
    );
}

#[tokio::test]
async fn an_mcp_body_that_trickles_is_read_whole_when_no_pause_is_over_the_timeout() {
    let mut limits = Limits::default();
    limits.body_timeout = Duration::from_millis(300);
    let server = lab_with(limits).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    // Four pieces, 150 ms apart: 450 ms in all, more than the timeout, no pause over it.
    for piece in body.as_bytes().chunks(body.len().div_ceil(4)) {
        tokio::time::sleep(Duration::from_millis(150)).await;
        slow.write_all(piece).await.unwrap();
    }
    let answer = read_to_close(&mut slow).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"tools\""), "{answer}");
}

/// The first bytes of the answer to `head`, a request declaring a 100 MiB body of which not
/// one byte is sent.
async fn answer_to_an_oversized_declaration(head: &[u8]) -> [u8; 12] {
    let server = lab_with(Limits::default()).await;
    let mut eager = TcpStream::connect(server.addr).await.unwrap();
    eager.write_all(head).await.unwrap();
    eager
        .write_all(b"Content-Length: 104857600\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0_u8; 12];
    tokio::time::timeout(GUARD, eager.read_exact(&mut answer))
        .await
        .expect("answered")
        .unwrap();
    answer
}

#[tokio::test]
async fn a_declared_body_over_the_limit_is_refused_before_it_is_sent() {
    let head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    assert_eq!(
        &answer_to_an_oversized_declaration(head).await,
        b"HTTP/1.1 413"
    );
}

#[tokio::test]
async fn a_declared_mcp_body_over_the_limit_is_refused_before_it_is_sent() {
    let head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\n";
    assert_eq!(
        &answer_to_an_oversized_declaration(head).await,
        b"HTTP/1.1 413"
    );
}

#[tokio::test]
async fn connections_over_the_cap_wait_until_a_slot_frees() {
    let mut limits = Limits::default();
    limits.max_connections = 4;
    // One address may hold every connection only when told so (as behind a reverse proxy).
    limits.max_connections_per_peer = 4;
    limits.header_timeout = Duration::from_millis(500);
    let server = lab_with(limits).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\n")
            .await
            .unwrap();
        idle.push(stream);
    }
    // The well-behaved request queues in the backlog and is served once the stalled ones are
    // closed by their header timeout.
    assert!(healthy(&server).await);
    for mut stream in idle {
        read_to_close(&mut stream).await;
    }
}

/// `--max-connections` below the per-peer default: one address must not be able to hold every
/// slot with slow bodies, so the per-peer cap becomes a quarter of the total.
#[tokio::test]
async fn a_per_peer_cap_above_the_total_is_clamped_so_one_address_cannot_take_every_slot() {
    let mut limits = Limits::default();
    limits.max_connections = 8;
    limits.body_timeout = Duration::from_millis(500);
    limits.body_deadline = Duration::from_millis(1500);
    assert_eq!(limits.connections_per_peer(), 2);
    let server = lab_with(limits).await;
    let mut trickles = Vec::new();
    for _ in 0..6 {
        let stream = connect_from("127.0.0.2", &server).await;
        trickles.push(tokio::spawn(trickle(stream, "/")));
    }
    // Another address is still served while they trickle.
    assert!(healthy(&server).await, "another peer is starved");
    let mut refused = 0;
    for trickle in trickles {
        refused += usize::from(trickle.await.unwrap().starts_with("HTTP/1.1 429"));
    }
    assert_eq!(refused, 4, "two admitted, four over the clamped cap");
}

#[tokio::test]
async fn out_of_descriptors_the_server_backs_off_and_serves_again() {
    use tokio::io::AsyncBufReadExt;
    // 48 descriptors, a cap of 1 000 connections: accepting fails with EMFILE long before the
    // cap, as with 300 half-open connections under a 256-descriptor limit.
    let mut child = tokio::process::Command::new("sh")
        .args([
            "-c",
            "ulimit -n 48 && exec \"$0\" --bind 127.0.0.1:0 --store memory --max-connections 1000 --header-timeout 1s",
            env!("CARGO_BIN_EXE_lab-server"),
        ])
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let base = tokio::time::timeout(GUARD, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("A2A JSON-RPC: ") {
                return url.trim().to_owned();
            }
        }
        panic!("the server exited")
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let addr = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut stalled = Vec::new();
    for _ in 0..80 {
        if let Ok(mut stream) = TcpStream::connect(&addr).await {
            let _ = stream.write_all(b"GET /healthz HTTP/1.1\r\n").await;
            stalled.push(stream);
        }
    }
    // Once the header timeout closes the stalled connections, descriptors free up and a
    // well-behaved request is served.
    let served = tokio::time::timeout(GUARD, async {
        loop {
            let response = a2a_tests::http()
                .get(format!("{base}healthz"))
                .timeout(Duration::from_secs(5))
                .send()
                .await;
            if response.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(served.is_ok(), "the server never served again");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
    drop(stalled);
}

/// A blocking send's caller drives the skill on its own request; when it hangs up first, the
/// skill runs on by itself and its task ends stored, as it would have with the caller waiting.
#[tokio::test]
async fn a_blocking_send_whose_caller_hangs_up_still_finishes_its_task() {
    let server = lab_with(Limits::default()).await;
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER",
            "parts": [{"data": {"millis": 300}}], "metadata": {"skill": "wait"}}}
    })
    .to_string();
    let hung_up = server
        .http
        .post(&server.base)
        .header("A2A-Version", "1.0")
        .header("content-type", "application/json")
        .body(body)
        .timeout(Duration::from_millis(50))
        .send()
        .await;
    assert!(
        hung_up.is_err(),
        "the caller gave up before the skill finished"
    );
    let deadline = tokio::time::Instant::now() + GUARD;
    loop {
        let list = server.rpc("ListTasks", serde_json::json!({})).await;
        let tasks = list["result"]["tasks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let states: Vec<&str> = tasks
            .iter()
            .filter_map(|task| task["status"]["state"].as_str())
            .collect();
        if states == ["TASK_STATE_COMPLETED"] {
            let id = tasks[0]["id"].clone();
            let task = server.rpc("GetTask", serde_json::json!({"id": id})).await;
            let artifact = &task["result"]["artifacts"][0]["parts"][0]["text"];
            assert_eq!(artifact, "waited", "the skill ran to its end: {task}");
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task never finished: {list}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
