//! The paths and globs file reservations name, made comparable: two spellings of one file must
//! be one reservation, or two agents both hold "exclusive" locks on it (`src/./x.rs` and
//! `src/x.rs`). A pattern is normalized lexically before it is stored or matched:
//!
//! - `.` segments, repeated `/` and a trailing `/` are dropped, and `**/**` is one `**`;
//! - Unicode is compared in NFC (macOS file systems hand out decomposed names);
//! - `..`, absolute paths (`/etc/x`), drive letters (`C:x`), NUL and control characters are
//!   refused: a reservation names a file inside the repository;
//! - `\` is refused rather than guessed at: it is a separator on Windows and an escape in globs,
//!   and either reading would make two agents disagree about a file. Use `/`; a glob character
//!   meant literally is written as a class (`[*]`);
//! - with `--paths-case-insensitive` (teams on case-insensitive file systems: macOS, Windows),
//!   patterns are compared without case, so `Src/X.rs` and `src/x.rs` are one file.

use unicode_normalization::UnicodeNormalization;

/// The longest pattern, in bytes, once normalized.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// How a hub compares paths.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct PathRules {
    /// Compare paths without regard to case.
    pub case_insensitive: bool,
}

/// Why a path or glob was refused, for the `file_path` error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl PathRules {
    /// `path` in the form reservations store: normalized as the module says, or why not.
    pub fn normalize(self, path: &str) -> Result<String, Refused> {
        let path = path.trim();
        if let Some(c) = path.chars().find(|c| c.is_control()) {
            return Err(Refused(format!(
                "must not contain control characters; found U+{:04X}",
                u32::from(c)
            )));
        }
        if path.contains('\\') {
            return Err(Refused(
                "must use `/` as its separator; `\\` is not accepted (write a glob character \
                 meant literally as a class, like `[*]`)"
                    .into(),
            ));
        }
        if path.starts_with('/') {
            return Err(Refused(format!(
                "must be relative to the repository, not absolute; got {path:?}"
            )));
        }
        let bytes = path.as_bytes();
        if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
            return Err(Refused(format!(
                "must be relative to the repository, not on a drive; got {path:?}"
            )));
        }
        let mut segments: Vec<&str> = Vec::new();
        for segment in path.split('/') {
            match segment {
                "" | "." => {}
                ".." => {
                    return Err(Refused(format!(
                        "must stay inside the repository (no `..`); got {path:?}"
                    )));
                }
                "**" if segments.last() == Some(&"**") => {}
                segment => segments.push(segment),
            }
        }
        let joined = segments.join("/");
        let text: String = if self.case_insensitive {
            joined.nfc().flat_map(char::to_lowercase).collect()
        } else {
            joined.nfc().collect()
        };
        if text.is_empty() || text.len() > MAX_PATTERN_BYTES {
            return Err(Refused(format!(
                "must be a path or glob of 1 to {MAX_PATTERN_BYTES} bytes"
            )));
        }
        Ok(text)
    }
}
