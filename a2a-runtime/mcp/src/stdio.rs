//! MCP over stdin/stdout: one JSON-RPC message per line, read within bounds. A line that is
//! not JSON is answered -32700 and one that is not a JSON-RPC message -32600, as over HTTP; a
//! line longer than the body limit is skipped without being held in memory (only its first and
//! last bytes are kept, to find its id) and answered -32600 naming the limit, under the
//! request's id when those bytes show it. rmcp's own stdio transport drops such lines
//! unanswered, which leaves a client waiting on a request that will never be answered.

use std::io;

use futures::{Sink, Stream};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use a2a_runtime_types::protocol::jsonrpc::code;

/// Lines waiting for stdout; a slow reader of our output holds back the server, not its memory.
const OUTGOING_LINES: usize = 64;

/// How many of an over-long line's first bytes are kept to find its id in.
const KEPT_HEAD: usize = 4096;

/// How many of its last bytes are kept, for an id written after the params.
const KEPT_TAIL: usize = 256;

/// The transport rmcp serves (its sink of answers, its stream of messages) and the task that
/// writes every line to `output`, which ends once both halves are dropped.
pub fn transport<R, W>(
    input: R,
    output: W,
    max_line: usize,
) -> (
    (
        impl Sink<ServerJsonRpcMessage, Error = io::Error> + Send + Unpin + 'static,
        impl Stream<Item = ClientJsonRpcMessage> + Send + Unpin + 'static,
    ),
    JoinHandle<()>,
)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (lines, outgoing) = mpsc::channel::<Vec<u8>>(OUTGOING_LINES);
    let writer = tokio::spawn(write_lines(outgoing, output));
    let sink = futures::sink::unfold(
        lines.clone(),
        |lines, message: ServerJsonRpcMessage| async move {
            let line = serde_json::to_vec(&message).map_err(io::Error::other)?;
            send(&lines, line).await?;
            Ok::<_, io::Error>(lines)
        },
    );
    let reader = Reader {
        input: BufReader::new(input),
        max_line,
        answers: lines,
    };
    let messages = futures::stream::unfold(reader, |mut reader| async move {
        let message = reader.next_message().await?;
        Some((message, reader))
    });
    ((Box::pin(sink), Box::pin(messages)), writer)
}

async fn send(lines: &mpsc::Sender<Vec<u8>>, mut line: Vec<u8>) -> io::Result<()> {
    line.push(b'\n');
    lines
        .send(line)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
}

async fn write_lines<W: AsyncWrite + Unpin>(mut outgoing: mpsc::Receiver<Vec<u8>>, mut output: W) {
    while let Some(line) = outgoing.recv().await {
        let written = async {
            output.write_all(&line).await?;
            output.flush().await
        };
        if let Err(error) = written.await {
            tracing::debug!(%error, "stdout closed");
            return;
        }
    }
}

/// Reads messages off the input, answering what cannot be one.
struct Reader<R> {
    input: BufReader<R>,
    max_line: usize,
    answers: mpsc::Sender<Vec<u8>>,
}

/// One line of input.
enum Line {
    Text(Vec<u8>),
    /// Longer than the limit: its bytes were skipped but for its first and last few.
    TooLong(Skipped),
}

/// What is kept of a line too long to read.
#[derive(Default)]
struct Skipped {
    /// Its first [`KEPT_HEAD`] bytes.
    head: Vec<u8>,
    /// Its last [`KEPT_TAIL`] bytes.
    tail: Vec<u8>,
    /// How long it was.
    length: usize,
}

impl Skipped {
    fn take(&mut self, piece: &[u8]) {
        self.length += piece.len();
        let room = KEPT_HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&piece[..room.min(piece.len())]);
        self.tail.extend_from_slice(piece);
        let over = self.tail.len().saturating_sub(KEPT_TAIL);
        self.tail.drain(..over);
    }

    /// The answer refusing the line, under its id when its kept bytes show one.
    fn refusal(&self, max_line: usize) -> Vec<u8> {
        let id = a2a_runtime_types::protocol::truncated::request_id(&self.head, &self.tail);
        refusal(
            &id.unwrap_or(Value::Null),
            code::INVALID_REQUEST,
            &format!(
                "the message is {} bytes long, over the {max_line} bytes this server reads \
                 (--max-body-bytes)",
                self.length
            ),
        )
    }
}

impl<R: AsyncRead + Unpin> Reader<R> {
    /// The next message; lines that are not one are answered and skipped. `None` at the end
    /// of the input.
    async fn next_message(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let line = match read_line(&mut self.input, self.max_line).await {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(error) => {
                    tracing::debug!(%error, "stdin closed");
                    return None;
                }
            };
            let refusal = match line {
                Line::TooLong(skipped) => skipped.refusal(self.max_line),
                Line::Text(text) if text.trim_ascii().is_empty() => continue,
                Line::Text(text) => match parse(&text) {
                    Ok(message) => return Some(message),
                    Err(refusal) => refusal,
                },
            };
            if send(&self.answers, refusal).await.is_err() {
                return None;
            }
        }
    }
}

/// `text` as a message, or the answer refusing it.
fn parse(text: &[u8]) -> Result<ClientJsonRpcMessage, Vec<u8>> {
    let value: Value = serde_json::from_slice(text).map_err(|error| {
        refusal(
            &Value::Null,
            code::PARSE_ERROR,
            &format!("invalid JSON: {error}"),
        )
    })?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|error| {
        refusal(
            &id,
            code::INVALID_REQUEST,
            &format!("not a JSON-RPC 2.0 request, notification or response: {error}"),
        )
    })
}

fn refusal(id: &Value, code: i64, message: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
        .into_bytes()
}

/// The next line of `input` without its newline, or [`Line::TooLong`] once it passes
/// `max` bytes (the rest of it is read and dropped, never held); `None` at the end.
async fn read_line<R: AsyncBufRead + Unpin>(input: &mut R, max: usize) -> io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut skipped: Option<Skipped> = None;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(match (skipped, line.is_empty()) {
                (Some(skipped), _) => Some(Line::TooLong(skipped)),
                (None, true) => None,
                (None, false) => Some(Line::Text(line)),
            });
        }
        let (piece, ends) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], Some(at + 1)),
            None => (buffer, None),
        };
        match &mut skipped {
            Some(skipped) => skipped.take(piece),
            None if line.len() + piece.len() > max => {
                let mut kept = Skipped::default();
                kept.take(&std::mem::take(&mut line));
                kept.take(piece);
                skipped = Some(kept);
            }
            None => line.extend_from_slice(piece),
        }
        let consumed = ends.unwrap_or(buffer.len());
        input.consume(consumed);
        if ends.is_some() {
            return Ok(Some(match skipped {
                Some(skipped) => Line::TooLong(skipped),
                None => Line::Text(line),
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_over_the_limit_are_skipped_and_the_next_is_read() {
        let mut input = BufReader::with_capacity(8, &b"short\nthis one is too long\nnext"[..]);
        let mut read = Vec::new();
        while let Some(line) = read_line(&mut input, 10).await.unwrap() {
            read.push(match line {
                Line::Text(text) => String::from_utf8(text).unwrap(),
                Line::TooLong(skipped) => format!("(too long: {})", skipped.length),
            });
        }
        assert_eq!(read, ["short", "(too long: 20)", "next"]);
    }
}
