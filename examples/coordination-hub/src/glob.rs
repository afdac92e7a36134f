//! Whether two path globs have a path in common: the question file reservations ask, which
//! matching one against the other cannot answer (`src/api/**` and `src/**/*.rs` share
//! `src/api/users.rs`, though neither matches the other's text).
//!
//! Patterns are `/`-separated segments. A segment `**` stands for any number of segments; within
//! a segment `*` stands for any characters, `?` for one, `[…]` (or `[!…]`) for one of a set, and
//! `{a,b}` for alternatives (expanded first); `\\` escapes. This is the syntax reservations are
//! validated with (globset, `*` not crossing `/`).

/// At most this many alternatives are expanded from braces; past it, patterns count as
/// overlapping (a reservation errs on the side of caution).
const MAX_ALTERNATIVES: usize = 64;

/// Whether some path matches both `a` and `b`.
pub fn intersect(a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (expand(a), expand(b)) else {
        return true;
    };
    a.iter().any(|a| {
        b.iter().any(|b| {
            let a: Vec<&str> = a.split('/').collect();
            let b: Vec<&str> = b.split('/').collect();
            paths(&a, &b)
        })
    })
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

/// The byte offset of the first `c` not escaped by `\\`.
fn unescaped(text: &str, c: char) -> Option<usize> {
    let mut escaped = false;
    for (at, ch) in text.char_indices() {
        match ch {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ch if ch == c => return Some(at),
            _ => {}
        }
    }
    None
}

/// Whether two segment lists have a path in common.
fn paths(a: &[&str], b: &[&str]) -> bool {
    match (a.first(), b.first()) {
        (None, None) => true,
        (Some(&"**"), _) => paths(&a[1..], b) || (!b.is_empty() && paths(a, &b[1..])),
        (_, Some(&"**")) => paths(a, &b[1..]) || (!a.is_empty() && paths(&a[1..], b)),
        (None, _) | (_, None) => false,
        (Some(x), Some(y)) => segments(&tokens(x), &tokens(y)) && paths(&a[1..], &b[1..]),
    }
}

/// One position of a segment pattern.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// Any run of characters.
    Star,
    /// One character from `chars` (or not from them, when `negated`); `?` is an empty negated
    /// set.
    One { chars: Vec<char>, negated: bool },
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
                chars: Vec::new(),
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
        chars: vec![c],
        negated: false,
    }
}

/// A `[…]` class, its `[` read: its characters, ranges expanded. A range wider than 256
/// characters is not listed: a class with one stands for any character, and a negated one
/// excludes only the range's ends, so either way overlaps are found, never missed.
fn class(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Token {
    let negated = matches!(chars.peek(), Some('!' | '^'));
    if negated {
        chars.next();
    }
    let mut set = Vec::new();
    let mut first = true;
    let mut wide = false;
    while let Some(c) = chars.next() {
        if c == ']' && !first {
            break;
        }
        first = false;
        if chars.peek() == Some(&'-') {
            chars.next();
            match chars.next() {
                Some(']') => {
                    set.extend([c, '-']);
                    break;
                }
                Some(end) if (end as u32).saturating_sub(c as u32) <= 256 => set.extend(c..=end),
                Some(end) => {
                    wide = true;
                    set.extend([c, end]);
                }
                None => set.extend([c, '-']),
            }
        } else {
            set.push(c);
        }
    }
    if wide && !negated {
        // Any character: an empty negated set.
        return Token::One {
            chars: Vec::new(),
            negated: true,
        };
    }
    Token::One {
        chars: set,
        negated,
    }
}

/// Whether some character matches both single-character tokens.
fn both(a: &Token, b: &Token) -> bool {
    match (a, b) {
        (Token::Star, _) | (_, Token::Star) => true,
        (
            Token::One {
                chars: x,
                negated: false,
            },
            Token::One {
                chars: y,
                negated: false,
            },
        ) => x.iter().any(|c| y.contains(c)),
        (
            Token::One {
                chars: x,
                negated: false,
            },
            Token::One {
                chars: y,
                negated: true,
            },
        )
        | (
            Token::One {
                chars: y,
                negated: true,
            },
            Token::One {
                chars: x,
                negated: false,
            },
        ) => x.iter().any(|c| !y.contains(c)),
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
