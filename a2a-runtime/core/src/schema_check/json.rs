//! JSON values as JSON Schema compares them: numbers by their mathematical value (`1` equals
//! `1.0`), objects regardless of key order, `multipleOf` exact for decimal literals.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// Whether `a` and `b` are the same JSON value (the `enum`, `const` and `uniqueItems` equality).
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Ordering::Equal,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}

/// Whether every item of `items` differs from every other (by [`equal`]).
pub(super) fn unique(items: &[Value]) -> bool {
    // Pairwise for short arrays; longer ones by a canonical form, so a large array costs
    // n log n, not n².
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b)));
    }
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    items.iter().all(|item| {
        let mut form = String::new();
        canonical(item, &mut form);
        seen.insert(form)
    })
}

/// A text that two values share exactly when they are [`equal`].
fn canonical(value: &Value, out: &mut String) {
    use std::fmt::Write as _;
    match value {
        Value::Number(n) => match integer(n) {
            Some(i) => {
                let _ = write!(out, "{i}");
            }
            None => {
                let _ = write!(out, "{:e}", as_f64(n));
            }
        },
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for key in keys {
                let _ = write!(out, "{key:?}:");
                canonical(&map[key.as_str()], out);
                out.push(',');
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// The number as an integer, when it has no fractional part and fits.
pub(super) fn integer(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // Below 2^100 an f64 without a fraction converts exactly.
    #[allow(clippy::cast_possible_truncation)] // Bounded just above.
    (f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

/// Whether the number is an integer in JSON Schema's sense (`1.0` is one).
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The number as an `f64` (possibly rounded).
pub(super) fn as_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// The order of two numbers: exact between integers, by `f64` otherwise.
pub(super) fn compare(a: &Number, b: &Number) -> Ordering {
    match (exact_integer(a), exact_integer(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => as_f64(a).partial_cmp(&as_f64(b)).unwrap_or(Ordering::Equal),
    }
}

/// The integer a number was written as (not a float that happens to be whole).
fn exact_integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Whether `x` is an integer multiple of `divisor` (> 0). Exact for the decimal literals JSON
/// carries, where dividing in floating point would call `0.3` no multiple of `0.1`.
pub(super) fn is_multiple(x: &Number, divisor: &Number) -> bool {
    if let (Some(x), Some(d)) = (exact_integer(x), exact_integer(divisor)) {
        return d != 0 && x % d == 0;
    }
    let (Some((a, ea)), Some((b, eb))) = (decimal(as_f64(x)), decimal(as_f64(divisor))) else {
        return false;
    };
    if a == 0 {
        return true;
    }
    if b == 0 {
        return false;
    }
    // x / d = (a / b) · 10^(ea - eb), with a and b below 10^17.
    if ea >= eb {
        let shift = u32::try_from(ea - eb).unwrap_or(u32::MAX);
        ((a % b) * pow10_mod(shift, b)).is_multiple_of(b)
    } else {
        let shift = u32::try_from(eb - ea).unwrap_or(u32::MAX);
        match 10u128.checked_pow(shift).and_then(|p| p.checked_mul(b)) {
            Some(denominator) => a.is_multiple_of(denominator),
            // A denominator past 2^128 is larger than any mantissa but zero.
            None => false,
        }
    }
}

/// 10^exponent modulo `modulus`, by squaring (no overflow: the modulus is below 2^64).
fn pow10_mod(mut exponent: u32, modulus: u128) -> u128 {
    let mut result = 1 % modulus;
    let mut base = 10 % modulus;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result * base % modulus;
        }
        base = base * base % modulus;
        exponent >>= 1;
    }
    result
}

/// `|f|` as mantissa · 10^exponent, from its shortest decimal form (the literal as written).
fn decimal(f: f64) -> Option<(u128, i32)> {
    if !f.is_finite() {
        return None;
    }
    let text = format!("{:e}", f.abs());
    let (mantissa, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: u128 = format!("{whole}{fraction}").parse().ok()?;
    let fraction_digits = i32::try_from(fraction.len()).ok()?;
    Some((digits, exponent - fraction_digits))
}

/// A value for an error message: its JSON, cut short when long.
pub(super) fn shown(value: &Value) -> String {
    const LONGEST: usize = 80;
    let text = value.to_string();
    if text.len() <= LONGEST {
        return text;
    }
    let mut end = LONGEST;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
