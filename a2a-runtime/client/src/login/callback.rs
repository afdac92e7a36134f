//! The loopback redirect (RFC 8252 §7.3): a listener on 127.0.0.1 the browser is sent back to
//! with the code. Each connection's request head is read within bounds; anything but the
//! callback path is answered 404 and the wait goes on, until the deadline.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

use super::LoginError;

/// The path the browser is sent back to.
pub(super) const CALLBACK_PATH: &str = "/callback";

/// The largest request head read from the browser.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// How long one connection may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// The query parameters the browser brings back to `listener`'s callback path, waiting at most
/// `patience`.
pub(super) async fn receive(
    listener: &TcpListener,
    patience: Duration,
) -> Result<Vec<(String, String)>, LoginError> {
    let deadline = Instant::now() + patience;
    loop {
        let accepted = tokio::time::timeout_at(deadline, listener.accept()).await;
        let (stream, _) = match accepted {
            Err(_) => return Err(LoginError::TimedOut(patience)),
            Ok(Err(error)) => {
                return Err(LoginError::Callback(format!(
                    "the loopback listener failed: {error}"
                )));
            }
            Ok(Ok(connection)) => connection,
        };
        if let Some(query) = answer(stream).await {
            return Ok(query);
        }
    }
}

/// Reads one request from `stream` and answers it: the callback's query, or `None` for any
/// other request (a favicon, a probe), which is answered 404.
async fn answer(mut stream: TcpStream) -> Option<Vec<(String, String)>> {
    let head = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream))
        .await
        .ok()??;
    let target = head
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())?
        .to_owned();
    let url = url::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    if url.path() != CALLBACK_PATH {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return None;
    }
    let query: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let refused = query.iter().any(|(name, _)| name == "error");
    let body = if refused {
        "<!doctype html><title>Not signed in</title><p>The sign-in was not completed. \
         The terminal says why; you may close this tab.</p>"
    } else {
        "<!doctype html><title>Signed in</title><p>Signed in. You may close this tab and \
         return to the terminal.</p>"
    };
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
         cache-control: no-store\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    Some(query)
}

/// The request head (through the blank line), or `None` when it is larger than
/// [`MAX_HEAD_BYTES`] or the connection ends first.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 || head.len() + read > MAX_HEAD_BYTES {
            return None;
        }
        head.extend_from_slice(&chunk[..read]);
    }
    String::from_utf8(head).ok()
}
