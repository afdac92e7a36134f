//! A reverse proxy on loopback, as operators put in front of the server (nginx's
//! `proxy_add_x_forwarded_for`): it forwards each request to one target, appending the address
//! its client connected from to `X-Forwarded-For` and naming the host asked for in
//! `X-Forwarded-Host`. Clients bound to different loopback addresses (127.0.0.2, 127.0.0.3…)
//! are then different clients behind one proxy.

use std::net::{IpAddr, SocketAddr};

use a2a_runtime::axum::Router;
use a2a_runtime::axum::body::Body;
use a2a_runtime::axum::extract::{ConnectInfo, Request, State};
use a2a_runtime::axum::http::{HeaderName, HeaderValue, StatusCode};
use a2a_runtime::axum::response::{IntoResponse, Response};

/// The largest body the proxy forwards.
const MAX_BODY: usize = 1024 * 1024;

/// Headers a proxy does not pass on (RFC 9110 §7.6.1), and those it sets itself.
const NOT_FORWARDED: [&str; 4] = ["connection", "keep-alive", "transfer-encoding", "host"];

/// Starts the proxy in front of `target` (a base URL such as `http://127.0.0.1:8080/`); the
/// proxy's base URL.
pub async fn start(target: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let base = format!(
        "http://127.0.0.1:{}/",
        listener.local_addr().expect("address").port()
    );
    let app = Router::new()
        .fallback(forward)
        .with_state(target.trim_end_matches('/').to_owned());
    let service = app.into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { a2a_runtime::axum::serve(listener, service).await });
    base
}

/// A client whose connections leave from `address` (a loopback one), as a distinct user.
pub fn client_from(address: &str) -> reqwest::Client {
    let address: IpAddr = address.parse().expect("an address");
    crate::http_builder()
        .local_address(address)
        .build()
        .expect("an HTTP client")
}

async fn forward(
    State(target): State<String>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = a2a_runtime::axum::body::to_bytes(body, MAX_BODY).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let mut outgoing = crate::http().request(parts.method, format!("{target}{path}"));
    let mut forwarded_for = peer.ip().to_string();
    for (name, value) in &parts.headers {
        if name == "x-forwarded-for" {
            let earlier = value.to_str().unwrap_or_default();
            forwarded_for = format!("{earlier}, {forwarded_for}");
        } else if !NOT_FORWARDED.contains(&name.as_str()) {
            outgoing = outgoing.header(name, value);
        }
    }
    if let Some(host) = parts.headers.get("host") {
        outgoing = outgoing.header("x-forwarded-host", host);
    }
    let outgoing = outgoing
        .header("x-forwarded-for", forwarded_for)
        .header("x-forwarded-proto", "http")
        .body(body);
    match outgoing.send().await {
        Ok(answer) => answered(answer).await,
        Err(_) => StatusCode::BAD_GATEWAY.into_response(),
    }
}

/// The target's answer, as the proxy's.
async fn answered(answer: reqwest::Response) -> Response {
    let status = answer.status();
    let headers: Vec<(HeaderName, HeaderValue)> = answer
        .headers()
        .iter()
        .filter(|(name, _)| !NOT_FORWARDED.contains(&name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let body = answer.bytes().await.unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().extend(headers);
    response
}
