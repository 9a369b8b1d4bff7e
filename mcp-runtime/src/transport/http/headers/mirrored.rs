//! `Mcp-Param-{Name}` headers of a 2026-07-28 `tools/call` over HTTP, checked against the
//! arguments in the body before anything runs.
//!
//! A gateway may route, rate-limit or audit on these headers while the server acts on the
//! body, so the two must say the same: a header is required exactly when its argument has
//! a value, is decoded from `=?base64?..?=` when so written, and must equal the argument
//! (integers numerically). Any difference is a 400 with -32020. Headers naming no
//! mirrored argument of the tool are none of the server's business and are ignored.

use axum::http::HeaderMap;
use serde_json::{Number, Value};

use crate::protocol::mirror::{Kind, Mirrored, MAX_SAFE_INTEGER};
use crate::protocol::RpcError;

use super::decode_sentinel;

/// Compare each argument `mirrored` names with its header.
pub(crate) fn check(
    headers: &HeaderMap,
    mirrored: &[Mirrored],
    arguments: Option<&Value>,
) -> Result<(), RpcError> {
    for m in mirrored {
        let body = value_at(arguments, &m.path);
        let header = header_value(headers, m)?;
        match (body, header) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(mismatch(
                    m,
                    format!(
                        "The {} header is sent, but {} is absent or null: send the header only with a value",
                        m.header_name(),
                        m.argument()
                    ),
                ))
            }
            // No header can carry an object or a list; the argument check refuses it
            // before the tool runs, with a message the model can act on.
            (Some(Value::Object(_) | Value::Array(_)), None) => {}
            (Some(_), None) => {
                return Err(mismatch(
                    m,
                    format!(
                        "The {} header is missing; it must carry {}",
                        m.header_name(),
                        m.argument()
                    ),
                ))
            }
            (Some(value), Some(text)) => {
                if m.kind == Kind::Integer {
                    check_safe(m, value)?;
                }
                if !same(value, &text) {
                    return Err(mismatch(
                        m,
                        format!(
                            "The {} header {text:?} does not match {} {value}",
                            m.header_name(),
                            m.argument()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The argument at `path`, or `None` when it is absent or null.
fn value_at<'v>(arguments: Option<&'v Value>, path: &[String]) -> Option<&'v Value> {
    let mut value = arguments?;
    for key in path {
        value = value.as_object()?.get(key)?;
    }
    (!value.is_null()).then_some(value)
}

/// The header's decoded value: absent, or text; several values or characters a header
/// value may not hold are refused.
fn header_value(headers: &HeaderMap, m: &Mirrored) -> Result<Option<String>, RpcError> {
    let mut values = headers.get_all(&m.header).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(mismatch(
            m,
            format!(
                "The {} header is sent more than once; send it once",
                m.header_name()
            ),
        ));
    }
    let name = m.header_name();
    let text = first.to_str().map_err(|_| {
        mismatch(
            m,
            format!(
                "The {name} header contains characters that are not visible ASCII; send such a value as =?base64?...?="
            ),
        )
    })?;
    // Optional whitespace around a field value is not part of it (RFC 9110 section 5.5).
    let text = text.trim_matches([' ', '\t']);
    decode_sentinel(&name, text)
        .map(|decoded| Some(decoded.into_owned()))
        .map_err(|e| mismatch(m, e.message))
}

/// An integer beyond ±(2^53 - 1) has no header form every reader agrees on.
fn check_safe(m: &Mirrored, value: &Value) -> Result<(), RpcError> {
    let Value::Number(n) = value else {
        return Ok(());
    };
    let safe = MAX_SAFE_INTEGER.unsigned_abs();
    let within = match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => i.unsigned_abs() <= safe,
        (None, Some(u), _) => u <= safe,
        (None, None, Some(f)) => f.abs() <= safe as f64,
        _ => false,
    };
    if within {
        Ok(())
    } else {
        Err(mismatch(
            m,
            format!(
                "{} is {n}, outside ±{MAX_SAFE_INTEGER}, the range of an integer mirrored into the {} header",
                m.argument(),
                m.header_name()
            ),
        ))
    }
}

/// Whether the header's text is the argument's value: strings as they are, booleans as
/// `true`/`false`, numbers by value (`42` and `42.0` are the same).
fn same(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Bool(b) => text == if *b { "true" } else { "false" },
        Value::Number(n) => same_number(n, text),
        _ => false,
    }
}

fn same_number(n: &Number, text: &str) -> bool {
    let Some(decimal) = Decimal::parse(text) else {
        return false;
    };
    if let Some(i) = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from)) {
        return decimal.integer() == Some(i);
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e18 => decimal.integer() == Some(f as i128),
        Some(f) => text.parse::<f64>().is_ok_and(|h| h == f),
        None => false,
    }
}

/// A header's decimal number: `-`, digits, and an optional fraction (no exponent, no `+`,
/// no spaces: the forms a client writes, not every form a parser accepts).
struct Decimal<'t> {
    negative: bool,
    whole: &'t str,
    fraction: &'t str,
}

impl<'t> Decimal<'t> {
    fn parse(text: &'t str) -> Option<Decimal<'t>> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = match digits.split_once('.') {
            Some((whole, fraction)) if !fraction.is_empty() => (whole, fraction),
            Some(_) => return None,
            None => (digits, ""),
        };
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        let valid = !whole.is_empty() && all_digits(whole) && all_digits(fraction);
        valid.then_some(Decimal {
            negative,
            whole,
            fraction,
        })
    }

    /// The value when it is a whole number that fits.
    fn integer(&self) -> Option<i128> {
        if !self.fraction.bytes().all(|b| b == b'0') {
            return None;
        }
        let whole: i128 = self.whole.parse().ok()?;
        Some(if self.negative { -whole } else { whole })
    }
}

fn mismatch(m: &Mirrored, message: String) -> RpcError {
    RpcError::header_mismatch(message).with_data(serde_json::json!({
        "header": m.header_name(),
        "argument": m.argument(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Vec<Mirrored> {
        crate::protocol::mirror::scan(&json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "limit": {"type": "integer", "x-mcp-header": "Limit"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
            "place": {"type": "object", "properties": {
                "zone": {"type": "string", "x-mcp-header": "Zone"}
            }}
        }}))
        .unwrap()
    }

    fn run(arguments: Value, headers: &[(&str, &str)]) -> Result<(), String> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                axum::http::HeaderValue::from_bytes(value.as_bytes()).unwrap(),
            );
        }
        check(&map, &tool(), Some(&arguments)).map_err(|e| {
            assert_eq!(e.code, crate::protocol::codes::HEADER_MISMATCH);
            e.message
        })
    }

    #[test]
    fn matching_headers_pass_in_any_letter_case() {
        // S-101, S-105: matching values pass, whatever the case of the header names.
        let arguments =
            json!({"region": "eu-west", "limit": 42, "dry": true, "place": {"zone": "b"}});
        run(
            arguments.clone(),
            &[
                ("mcp-param-region", "eu-west"),
                ("MCP-PARAM-LIMIT", "42"),
                ("Mcp-Param-Dry-Run", "true"),
                ("Mcp-Param-Zone", " b "),
            ],
        )
        .unwrap();
        // Values compare case-sensitively.
        let err = run(
            json!({"region": "eu-west"}),
            &[("Mcp-Param-Region", "EU-WEST")],
        )
        .unwrap_err();
        assert!(err.contains("does not match arguments.region"), "{err}");
    }

    #[test]
    fn base64_values_are_decoded_before_comparing() {
        // S-099: a Base64 sentinel is decoded before the value is compared.
        run(
            json!({"region": "Grüezi"}),
            &[("Mcp-Param-Region", "=?base64?R3LDvGV6aQ==?=")],
        )
        .unwrap();
        run(
            json!({"region": " padded "}),
            &[("Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?=")],
        )
        .unwrap();
        // Without both markers the value is literal.
        run(
            json!({"region": "=?base64?SGVsbG8="}),
            &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
        )
        .unwrap();
        run(
            json!({"region": "SGVsbG8="}),
            &[("Mcp-Param-Region", "SGVsbG8=")],
        )
        .unwrap();
    }

    #[test]
    fn invalid_characters_and_encodings_are_refused() {
        // S-100: broken Base64, bytes beyond visible ASCII and a repeated header are refused.
        for value in [
            "=?base64?SGVsbG8?=",
            "=?base64?SGVs!!!bG8=?=",
            "=?base64?/w==?=",
        ] {
            let err = run(json!({"region": "Hello"}), &[("Mcp-Param-Region", value)]).unwrap_err();
            assert!(err.contains("base64"), "{value}: {err}");
        }
        let err = run(json!({"region": "é"}), &[("Mcp-Param-Region", "\u{e9}")]).unwrap_err();
        assert!(err.contains("not visible ASCII"), "{err}");
        let err = run(
            json!({"region": "eu"}),
            &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Region", "us")],
        )
        .unwrap_err();
        assert!(err.contains("more than once"), "{err}");
    }

    #[test]
    fn a_value_in_the_body_needs_its_header() {
        // S-102, S-104: a value in the body without its header is refused.
        let err = run(json!({"region": "eu"}), &[]).unwrap_err();
        assert!(err.contains("Mcp-Param-Region header is missing"), "{err}");
        let err = run(json!({"place": {"zone": "b"}}), &[]).unwrap_err();
        assert!(err.contains("arguments.place.zone"), "{err}");
        let err = run(json!({"dry": false}), &[]).unwrap_err();
        assert!(err.contains("Mcp-Param-Dry-Run"), "{err}");
    }

    #[test]
    fn absent_or_null_arguments_need_no_header_and_allow_none() {
        // S-103: an absent or null argument needs no header (and allows none).
        run(json!({}), &[]).unwrap();
        run(json!({"region": null, "place": null}), &[]).unwrap();
        run(json!({"place": {}}), &[("Mcp-Param-Other", "ignored")]).unwrap();
        let err = run(json!({"region": null}), &[("Mcp-Param-Region", "eu")]).unwrap_err();
        assert!(err.contains("absent or null"), "{err}");
    }

    #[test]
    fn integers_compare_by_value_within_the_safe_range() {
        // S-107, S-188
        run(json!({"limit": 42}), &[("Mcp-Param-Limit", "42.0")]).unwrap();
        run(json!({"limit": 42.0}), &[("Mcp-Param-Limit", "42")]).unwrap();
        run(json!({"limit": -7}), &[("Mcp-Param-Limit", "-007")]).unwrap();
        run(
            json!({"limit": 9007199254740991_u64}),
            &[("Mcp-Param-Limit", "9007199254740991")],
        )
        .unwrap();
        for header in ["43", "42.5", "4.2e1", "+42", "0x2a", "", "forty-two"] {
            assert!(
                run(json!({"limit": 42}), &[("Mcp-Param-Limit", header)]).is_err(),
                "{header}"
            );
        }
        let err = run(
            json!({"limit": 9007199254740992_u64}),
            &[("Mcp-Param-Limit", "9007199254740992")],
        )
        .unwrap_err();
        assert!(err.contains("outside ±9007199254740991"), "{err}");
        let err = run(json!({"limit": -1e300}), &[("Mcp-Param-Limit", "1")]).unwrap_err();
        assert!(err.contains("outside"), "{err}");
    }

    #[test]
    fn booleans_are_lowercase_words() {
        run(json!({"dry": false}), &[("Mcp-Param-Dry-Run", "false")]).unwrap();
        for header in ["False", "1", "yes", "TRUE"] {
            assert!(
                run(json!({"dry": true}), &[("Mcp-Param-Dry-Run", header)]).is_err(),
                "{header}"
            );
        }
    }

    #[test]
    fn objects_have_no_header_form() {
        // The argument check refuses them as arguments; a header sent for one cannot match.
        run(json!({"region": {"a": 1}}), &[]).unwrap();
        assert!(run(json!({"region": ["eu"]}), &[("Mcp-Param-Region", "eu")]).is_err());
    }
}
