//! The JSON syntax of an attribute's literal, checked at compile time so the error points at
//! it: what kind of value the text holds, or where it stops being JSON (RFC 8259). Only the
//! shape is needed, so no value is built and no JSON library is compiled into the macros.

/// What kind of JSON value `text` is (`"an object"`, `"an array"`, …), or why it is not JSON,
/// with the line and column.
pub(crate) fn kind(text: &str) -> Result<&'static str, String> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    reader.space();
    let kind = reader.value(0)?;
    reader.space();
    match reader.peek() {
        None => Ok(kind),
        Some(_) => Err(reader.error("trailing characters")),
    }
}

/// Nesting deeper than this is refused rather than recursed into.
const DEEPEST: usize = 128;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// `what` at the current position, as `line L column C` (columns count characters).
    fn error(&self, what: &str) -> String {
        let before = String::from_utf8_lossy(&self.bytes[..self.at.min(self.bytes.len())]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{what} at line {line} column {column}")
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), String> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else if self.peek().is_none() {
            Err(self.error(&format!("the text ends where {what} was expected")))
        } else {
            Err(self.error(&format!("{what} expected")))
        }
    }

    fn value(&mut self, depth: usize) -> Result<&'static str, String> {
        if depth > DEEPEST {
            return Err(self.error("nested too deeply"));
        }
        match self.peek() {
            None => Err(self.error("the text ends where a value was expected")),
            Some(b'{') => self.object(depth).map(|()| "an object"),
            Some(b'[') => self.array(depth).map(|()| "an array"),
            Some(b'"') => self.string().map(|()| "a string"),
            Some(b't') => self.word("true").map(|()| "a boolean"),
            Some(b'f') => self.word("false").map(|()| "a boolean"),
            Some(b'n') => self.word("null").map(|()| "null"),
            Some(b'-' | b'0'..=b'9') => self.number().map(|()| "a number"),
            Some(_) => Err(self.error("a value expected")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<(), String> {
        self.at += 1;
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.space();
            if self.peek() != Some(b'"') {
                return Err(self.error("a quoted member name expected"));
            }
            self.string()?;
            self.space();
            self.expect(b':', "`:`")?;
            self.space();
            self.value(depth + 1)?;
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                _ => return self.expect(b'}', "`,` or `}`"),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<(), String> {
        self.at += 1;
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.space();
            self.value(depth + 1)?;
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                _ => return self.expect(b']', "`,` or `]`"),
            }
        }
    }

    fn string(&mut self) -> Result<(), String> {
        self.at += 1;
        loop {
            match self.peek() {
                None => return Err(self.error("the text ends inside a string")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.at += 1;
                        }
                        Some(b'u') => {
                            self.at += 1;
                            for _ in 0..4 {
                                if !self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                                    return Err(self.error("four hex digits expected after \\u"));
                                }
                                self.at += 1;
                            }
                        }
                        _ => return Err(self.error("an unknown escape")),
                    }
                }
                Some(0..=0x1f) => return Err(self.error("a control character inside a string")),
                Some(_) => self.at += 1,
            }
        }
    }

    fn word(&mut self, word: &str) -> Result<(), String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(())
        } else {
            Err(self.error("a value expected"))
        }
    }

    fn number(&mut self) -> Result<(), String> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("a digit expected")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Result<(), String> {
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return Err(self.error("a digit expected"));
        }
        self.digits();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::kind;

    #[test]
    fn json_texts_are_told_apart_by_their_top_level_kind() {
        assert_eq!(
            kind(r#" {"a": [1, -2.5e+3, true, null, "\u00e9\n"], "b": {}} "#),
            Ok("an object")
        );
        assert_eq!(kind("[1, 2]"), Ok("an array"));
        assert_eq!(kind(r#""x""#), Ok("a string"));
        assert_eq!(kind("0"), Ok("a number"));
        assert_eq!(kind("false"), Ok("a boolean"));
        assert_eq!(kind("null"), Ok("null"));
    }

    #[test]
    fn what_is_not_json_is_refused_where_it_stops() {
        assert_eq!(
            kind(r#"{"open": "#),
            Err("the text ends where a value was expected at line 1 column 10".into())
        );
        assert_eq!(
            kind("{\n  \"a\": 1,\n}"),
            Err("a quoted member name expected at line 3 column 1".into())
        );
        for bad in [
            "", "01", "1.", "-", "[1,]", "{'a': 1}", "tru", "\"a\tb\"", r#""\x""#, "{} {}",
            "[1 2]", "NaN",
        ] {
            assert!(kind(bad).is_err(), "{bad:?} is not JSON");
        }
        assert!(
            kind(&"[".repeat(200))
                .unwrap_err()
                .contains("nested too deeply")
        );
    }
}
