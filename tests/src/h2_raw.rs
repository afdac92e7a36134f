//! A clear-text HTTP/2 connection written frame by frame, for tests that must break the rules a
//! real client keeps (more streams than the server allows, a window it never opens). Headers
//! are HPACK literals without Huffman coding; what the server sends back is read as frames,
//! never decoded past their type, flags and stream.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Frame types (RFC 9113 §6).
pub mod kind {
    /// DATA.
    pub const DATA: u8 = 0;
    /// HEADERS.
    pub const HEADERS: u8 = 1;
    /// RST_STREAM.
    pub const RST_STREAM: u8 = 3;
    /// SETTINGS.
    pub const SETTINGS: u8 = 4;
    /// GOAWAY.
    pub const GOAWAY: u8 = 7;
}

/// One frame as received.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Its type.
    pub kind: u8,
    /// Its flags.
    pub flags: u8,
    /// Its stream (0: the connection).
    pub stream: u32,
    /// Its payload.
    pub payload: Vec<u8>,
}

impl Frame {
    /// The error code of a RST_STREAM or GOAWAY.
    pub fn error_code(&self) -> Option<u32> {
        let at = match self.kind {
            kind::RST_STREAM => 0,
            kind::GOAWAY => 4,
            _ => return None,
        };
        let bytes = self.payload.get(at..at + 4)?;
        Some(u32::from_be_bytes(bytes.try_into().ok()?))
    }
}

/// A connection that has sent the preface and its SETTINGS.
pub struct RawH2 {
    stream: TcpStream,
    /// The `:authority` its requests name.
    authority: String,
}

impl RawH2 {
    /// Connects to `address` and opens HTTP/2 with `settings` (identifier, value): an initial
    /// window of 0 (`(4, 0)`) lets the server send no response data at all.
    pub async fn connect(address: &str, settings: &[(u16, u32)]) -> Self {
        let mut stream = TcpStream::connect(address)
            .await
            .expect("the server listens");
        stream
            .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            .await
            .expect("preface sent");
        let payload: Vec<u8> = settings
            .iter()
            .flat_map(|(id, value)| [id.to_be_bytes().as_slice(), &value.to_be_bytes()].concat())
            .collect();
        let mut raw = Self {
            stream,
            authority: "127.0.0.1".to_owned(),
        };
        raw.frame(kind::SETTINGS, 0, 0, &payload).await;
        raw
    }

    /// Writes one frame.
    pub async fn frame(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
        let frame = frame_bytes(kind, flags, stream, payload);
        // A server that has given up on the connection may close it first: that is its answer.
        let _ = self.stream.write_all(&frame).await;
    }

    /// Opens stream `stream` with a gRPC request to `path` (END_HEADERS; END_STREAM when
    /// `finished`).
    pub async fn grpc_headers(&mut self, stream: u32, path: &str, finished: bool) {
        self.grpc_headers_with(stream, path, finished, &[]).await;
    }

    /// [`grpc_headers`](Self::grpc_headers) with `metadata` too (`idempotency-key`, …).
    pub async fn grpc_headers_with(
        &mut self,
        stream: u32,
        path: &str,
        finished: bool,
        metadata: &[(&str, &str)],
    ) {
        let mut block = Vec::new();
        let fixed = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", path),
            (":authority", self.authority.as_str()),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
            ("a2a-version", "1.0"),
        ];
        for &(name, value) in fixed.iter().chain(metadata) {
            // Literal without indexing, new name (RFC 7541 §6.2.2), no Huffman coding.
            block.push(0);
            for text in [name, value] {
                block.push(u8::try_from(text.len()).expect("a short header"));
                block.extend_from_slice(text.as_bytes());
            }
        }
        let flags = 0x4 | if finished { 0x1 } else { 0 };
        self.frame(kind::HEADERS, flags, stream, &block).await;
    }

    /// Sends `message` as one gRPC frame on `stream`, ending it.
    pub async fn grpc_message(&mut self, stream: u32, message: &[u8]) {
        self.message(stream, message).await;
    }

    /// Its requests name `authority` as `:authority` (no `Host` header is sent: HTTP/2 has none).
    #[must_use]
    pub fn authority(mut self, authority: &str) -> Self {
        self.authority = authority.to_owned();
        self
    }

    async fn message(&mut self, stream: u32, message: &[u8]) {
        let mut data = vec![0];
        data.extend_from_slice(&u32::try_from(message.len()).expect("small").to_be_bytes());
        data.extend_from_slice(message);
        self.frame(kind::DATA, 0x1, stream, &data).await;
    }

    /// Sends a PING every `every` and reads what comes back, until the server closes the
    /// connection (`true`) or `within` passes with it open (`false`): a client that keeps a
    /// connection alive without using it.
    pub async fn pings_until_closed(&mut self, every: Duration, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < deadline {
            const PING: u8 = 6;
            if self
                .stream
                .write_all(&frame_bytes(PING, 0, 0, &[7; 8]))
                .await
                .is_err()
            {
                return true;
            }
            let mut buf = [0u8; 4096];
            let read = tokio::time::timeout(every, self.stream.read(&mut buf)).await;
            if let Ok(Ok(0) | Err(_)) = read {
                return true;
            }
            if read.is_ok() {
                tokio::time::sleep(every).await;
            }
        }
        false
    }

    /// The next frame, or `None` when the server closed the connection or sent nothing within
    /// `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Frame> {
        tokio::time::timeout(wait, async {
            let mut head = [0u8; 9];
            self.stream.read_exact(&mut head).await.ok()?;
            let length = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let mut payload = vec![0; length];
            self.stream.read_exact(&mut payload).await.ok()?;
            let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            Some(Frame {
                kind: head[3],
                flags: head[4],
                stream,
                payload,
            })
        })
        .await
        .ok()
        .flatten()
    }
}

/// A frame's bytes: its 9-byte head and `payload`.
fn frame_bytes(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len())
        .expect("a small frame")
        .to_be_bytes();
    let mut frame = Vec::with_capacity(9 + payload.len());
    frame.extend_from_slice(&length[1..]);
    frame.extend_from_slice(&[kind, flags]);
    frame.extend_from_slice(&stream.to_be_bytes());
    frame.extend_from_slice(payload);
    frame
}
