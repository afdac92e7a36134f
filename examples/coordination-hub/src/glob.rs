//! Whether two path globs have a path in common: the question file reservations ask, which
//! matching one against the other cannot answer (`src/api/**` and `src/**/*.rs` share
//! `src/api/users.rs`, though neither matches the other's text).
//!
//! Patterns are `/`-separated segments. A segment `**` stands for any number of segments; within
//! a segment `*` stands for any characters, `?` for one, `[…]` (or `[!…]`) for one of a set, and
//! `{a,b}` for alternatives (expanded first; a brace inside a class is the character itself);
//! `\\` escapes. This is the syntax reservations are validated with (globset, `*` not crossing
//! `/`). Classes are compared as sets of ranges, so a class's size costs its ranges, not its
//! characters. [`escape`] makes a file's real name a pattern naming only that file.

/// At most this many alternatives are expanded from braces; a reservation with more is refused
/// ([`check`]), and past it two patterns count as overlapping (erring on the side of caution).
pub const MAX_ALTERNATIVES: usize = 64;

/// At most this many bytes, over all of a pattern's alternatives: with [`MAX_ALTERNATIVES`], it
/// bounds the work of comparing two patterns (the product of their sizes).
pub const MAX_EXPANDED_BYTES: usize = 4096;

/// Whether `pattern` is within the bounds an overlap check can afford; why not, if it is not.
pub fn check(pattern: &str) -> Result<(), String> {
    let alternatives = expand(pattern)
        .ok_or_else(|| format!("has more than {MAX_ALTERNATIVES} alternatives in its braces"))?;
    let bytes: usize = alternatives.iter().map(String::len).sum();
    if bytes > MAX_EXPANDED_BYTES {
        return Err(format!(
            "stands for {bytes} bytes of patterns once its braces are expanded; at most \
             {MAX_EXPANDED_BYTES} are accepted"
        ));
    }
    Ok(())
}

/// Whether some path matches both `a` and `b`. Polynomial in the patterns' sizes: the segment
/// lists are walked as a product of two automata, each pair of positions visited once.
pub fn intersect(a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (expand(a), expand(b)) else {
        return true;
    };
    let a: Vec<Segments> = a.iter().map(|a| Segments::of(a)).collect();
    let b: Vec<Segments> = b.iter().map(|b| Segments::of(b)).collect();
    a.iter().any(|a| b.iter().any(|b| paths(a, b)))
}

/// The alternatives `pattern`'s braces stand for, or `None` past [`MAX_ALTERNATIVES`].
fn expand(pattern: &str) -> Option<Vec<String>> {
    let Some(open) = unescaped(pattern, '{') else {
        return Some(vec![pattern.to_owned()]);
    };
    let close = open + unescaped(&pattern[open..], '}')?;
    let (head, body, tail) = (
        &pattern[..open],
        &pattern[open + 1..close],
        &pattern[close + 1..],
    );
    let mut out = Vec::new();
    for choice in body.split(',') {
        for rest in expand(&format!("{choice}{tail}"))? {
            out.push(format!("{head}{rest}"));
            if out.len() > MAX_ALTERNATIVES {
                return None;
            }
        }
    }
    Some(out)
}

/// The byte offset of the first `c` neither escaped by `\\` nor inside a `[…]` class.
fn unescaped(text: &str, c: char) -> Option<usize> {
    let mut chars = text.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        match ch {
            '\\' => {
                chars.next();
            }
            '[' => skip_class(&mut chars),
            ch if ch == c => return Some(at),
            _ => {}
        }
    }
    None
}

/// Reads past a class whose `[` was read: an optional `!` or `^`, a first `]` that is a member,
/// up to the `]` that closes it (or the end: globset refuses an unclosed class).
fn skip_class(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    if matches!(chars.peek(), Some((_, '!' | '^'))) {
        chars.next();
    }
    if matches!(chars.peek(), Some((_, ']'))) {
        chars.next();
    }
    for (_, c) in chars.by_ref() {
        if c == ']' {
            return;
        }
    }
}

/// `path`, a file's real name, as a pattern matching that file alone: each character globs
/// give a meaning to (`*`, `?`, `[`, `]`, `{`, `}`) written as a class of itself (`[*]`).
/// A hook's file and `check_file`'s are names, never patterns: `app/[id]/page.tsx` is the one
/// file, not `app/i/page.tsx`.
pub fn escape(path: &str) -> String {
    let mut escaped = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}') {
            escaped.extend(['[', c, ']']);
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// One alternative of a pattern: its segments, each `**` (any number of segments) or the
/// tokens of one segment.
struct Segments(Vec<Segment>);

enum Segment {
    AnyDepth,
    One(Vec<Token>),
}

impl Segments {
    fn of(pattern: &str) -> Self {
        Self(
            pattern
                .split('/')
                .map(|segment| match segment {
                    "**" => Segment::AnyDepth,
                    segment => Segment::One(tokens(segment)),
                })
                .collect(),
        )
    }
}

/// Whether two segment lists have a path in common: a walk over pairs of positions (`i` in
/// `a`, `j` in `b`), each visited at most once, so the work is at most the product of their
/// lengths (times the segments' own comparisons), however many `**` they hold.
fn paths(a: &Segments, b: &Segments) -> bool {
    let (a, b) = (&a.0, &b.0);
    let width = b.len() + 1;
    let mut seen = vec![false; (a.len() + 1) * width];
    let mut stack = vec![(0, 0)];
    while let Some((i, j)) = stack.pop() {
        if std::mem::replace(&mut seen[i * width + j], true) {
            continue;
        }
        match (a.get(i), b.get(j)) {
            (None, None) => return true,
            // `**` matches no segment, or one more segment of the other side.
            (Some(Segment::AnyDepth), _) | (_, Some(Segment::AnyDepth)) => {
                if matches!(a.get(i), Some(Segment::AnyDepth)) {
                    stack.push((i + 1, j));
                    if j < b.len() {
                        stack.push((i, j + 1));
                    }
                }
                if matches!(b.get(j), Some(Segment::AnyDepth)) {
                    stack.push((i, j + 1));
                    if i < a.len() {
                        stack.push((i + 1, j));
                    }
                }
            }
            (Some(Segment::One(x)), Some(Segment::One(y))) => {
                if segments(x, y) {
                    stack.push((i + 1, j + 1));
                }
            }
            (None, _) | (_, None) => {}
        }
    }
    false
}

/// One position of a segment pattern.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// Any run of characters.
    Star,
    /// One character within `ranges` (or outside them, when `negated`); `?` is an empty
    /// negated set. The ranges are sorted, disjoint and not adjacent.
    One {
        ranges: Vec<(u32, u32)>,
        negated: bool,
    },
}

fn tokens(segment: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        let token = match c {
            '*' => {
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                Token::Star
            }
            '?' => Token::One {
                ranges: Vec::new(),
                negated: true,
            },
            '[' => class(&mut chars),
            '\\' => literal(chars.next().unwrap_or('\\')),
            c => literal(c),
        };
        out.push(token);
    }
    out
}

fn literal(c: char) -> Token {
    Token::One {
        ranges: vec![(u32::from(c), u32::from(c))],
        negated: false,
    }
}

/// A `[…]` class, its `[` read: its members as ranges, sorted and merged, whatever their width.
fn class(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Token {
    let negated = matches!(chars.peek(), Some('!' | '^'));
    if negated {
        chars.next();
    }
    let mut ranges = Vec::new();
    let mut first = true;
    while let Some(c) = chars.next() {
        if c == ']' && !first {
            break;
        }
        first = false;
        let start = u32::from(c);
        if chars.peek() == Some(&'-') {
            chars.next();
            match chars.next() {
                Some(']') => {
                    ranges.extend([(start, start), (u32::from('-'), u32::from('-'))]);
                    break;
                }
                Some(end) => ranges.push((start.min(u32::from(end)), start.max(u32::from(end)))),
                None => ranges.extend([(start, start), (0x2d, 0x2d)]),
            }
        } else {
            ranges.push((start, start));
        }
    }
    Token::One {
        ranges: merged(ranges),
        negated,
    }
}

/// `ranges` sorted, with overlapping and adjacent ones joined.
fn merged(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match out.last_mut() {
            Some(last) if start <= last.1.saturating_add(1) => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Whether two sorted range lists share a character: one pass over both.
fn share(x: &[(u32, u32)], y: &[(u32, u32)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let (Some(a), Some(b)) = (x.get(i), y.get(j)) {
        if a.0.max(b.0) <= a.1.min(b.1) {
            return true;
        }
        if a.1 < b.1 { i += 1 } else { j += 1 }
    }
    false
}

/// Whether some character of `x` is outside `y` (both sorted and merged): one pass over both.
fn exceeds(x: &[(u32, u32)], y: &[(u32, u32)]) -> bool {
    let mut j = 0;
    for &(start, end) in x {
        // The first range of `y` that could cover `start`.
        while y.get(j).is_some_and(|b| b.1 < start) {
            j += 1;
        }
        // Merged ranges are not adjacent, so one range must cover the whole of `x`'s.
        match y.get(j) {
            Some(&(b_start, b_end)) if b_start <= start && end <= b_end => {}
            _ => return true,
        }
    }
    false
}

/// Whether some character matches both single-character tokens.
fn both(a: &Token, b: &Token) -> bool {
    match (a, b) {
        (Token::Star, _) | (_, Token::Star) => true,
        (
            Token::One {
                ranges: x,
                negated: false,
            },
            Token::One {
                ranges: y,
                negated: false,
            },
        ) => share(x, y),
        (
            Token::One {
                ranges: x,
                negated: false,
            },
            Token::One {
                ranges: y,
                negated: true,
            },
        )
        | (
            Token::One {
                ranges: y,
                negated: true,
            },
            Token::One {
                ranges: x,
                negated: false,
            },
        ) => exceeds(x, y),
        // Two negated sets always leave some character both allow.
        _ => true,
    }
}

/// Whether two segment patterns match some common segment: a walk over pairs of positions.
fn segments(a: &[Token], b: &[Token]) -> bool {
    let mut seen = vec![false; (a.len() + 1) * (b.len() + 1)];
    let mut stack = vec![(0, 0)];
    while let Some((i, j)) = stack.pop() {
        let at = i * (b.len() + 1) + j;
        if std::mem::replace(&mut seen[at], true) {
            continue;
        }
        if i == a.len() && j == b.len() {
            return true;
        }
        // A star may match nothing.
        if a.get(i) == Some(&Token::Star) {
            stack.push((i + 1, j));
        }
        if b.get(j) == Some(&Token::Star) {
            stack.push((i, j + 1));
        }
        // Or both read one character they both allow.
        if let (Some(x), Some(y)) = (a.get(i), b.get(j))
            && both(x, y)
        {
            let next_i = if *x == Token::Star { i } else { i + 1 };
            let next_j = if *y == Token::Star { j } else { j + 1 };
            if (next_i, next_j) != (i, j) {
                stack.push((next_i, next_j));
            }
        }
    }
    false
}
