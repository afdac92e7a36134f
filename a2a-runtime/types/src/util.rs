//! Small shared helpers.

use std::future::Future;
use std::pin::Pin;

/// A boxed, `Send` future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The pause after failed attempt `attempt` (1-based): `first` doubled per earlier attempt, at
/// most `cap`, then a random part of it from a half up to the whole, so that parties refused
/// together do not come back together.
#[doc(hidden)]
pub fn backoff(
    first: std::time::Duration,
    attempt: u32,
    cap: std::time::Duration,
) -> std::time::Duration {
    let full = first
        .saturating_mul(1 << attempt.saturating_sub(1).min(20))
        .min(cap);
    // Random bits from a v4 UUID: no RNG crate needed for jitter.
    let random = u32::try_from(uuid::Uuid::new_v4().as_u128() % 1000).unwrap_or(0);
    full / 2 + full / 2 * random / 1000
}

/// The text of a panic payload, when it is a string.
#[doc(hidden)]
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&'static str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}

/// Percent-encodes everything but RFC 3986 unreserved characters (for a URI path segment).
#[doc(hidden)]
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `%XX` escapes decoded (a URI component, `+` left as is); `None` if an escape is malformed or
/// the result is not UTF-8.
#[doc(hidden)]
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            // from_str_radix alone would take a sign: "%+1" is malformed, not byte 1.
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// How many characters of a client's text an error message repeats.
const ECHOED_CHARS: usize = 64;

/// `text` as an error message may repeat it: whole when short, else its first characters and
/// how long it was, so an error about a megabyte of input is not itself megabytes (and an error
/// that names the input twice does not double it).
#[doc(hidden)]
pub fn echoed(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(ECHOED_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..cut], text.len()))
        }
    }
}

#[cfg(test)]
mod echoed_tests {
    use super::echoed;

    #[test]
    fn short_text_is_echoed_whole_and_long_text_cut_on_a_character_boundary() {
        assert_eq!(echoed("booking"), "booking");
        let long = "é".repeat(1000);
        let shown = echoed(&long);
        assert!(shown.starts_with(&"é".repeat(64)), "{shown}");
        assert!(shown.ends_with("… (2000 bytes)"), "{shown}");
    }
}

/// `duration` for an error message, largest unit first: `1m 30s`, `250ms`, `0s`.
#[doc(hidden)]
pub fn duration_text(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs();
    let nanos = duration.subsec_nanos();
    let parts = [
        (seconds / 86_400, "d"),
        (seconds / 3600 % 24, "h"),
        (seconds / 60 % 60, "m"),
        (seconds % 60, "s"),
        (u64::from(nanos / 1_000_000), "ms"),
        (u64::from(nanos / 1000 % 1000), "us"),
        (u64::from(nanos % 1000), "ns"),
    ];
    let text: Vec<String> = parts
        .iter()
        .filter(|(amount, _)| *amount > 0)
        .map(|(amount, unit)| format!("{amount}{unit}"))
        .collect();
    if text.is_empty() {
        "0s".to_owned()
    } else {
        text.join(" ")
    }
}

#[cfg(test)]
mod percent_tests {
    use super::percent_decode;

    #[test]
    fn escapes_are_decoded_and_malformed_ones_refused() {
        assert_eq!(percent_decode("a%2Fb%20c+d").as_deref(), Some("a/b c+d"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        for bad in ["%", "%4", "%+1", "%zz", "%FF"] {
            assert_eq!(percent_decode(bad), None, "{bad}");
        }
    }
}

#[cfg(test)]
mod duration_tests {
    use std::time::Duration;

    use super::duration_text;

    #[test]
    fn durations_read_largest_unit_first_without_zero_units() {
        assert_eq!(duration_text(Duration::ZERO), "0s");
        assert_eq!(duration_text(Duration::from_millis(250)), "250ms");
        assert_eq!(duration_text(Duration::from_secs(90)), "1m 30s");
        assert_eq!(duration_text(Duration::from_secs(90_061)), "1d 1h 1m 1s");
        assert_eq!(duration_text(Duration::new(2, 1_500)), "2s 1us 500ns");
    }
}
