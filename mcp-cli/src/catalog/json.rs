//! Small helpers on JSON values shared by the catalog diff: JSON pointers, equality as
//! JSON Schema reads it, and values shown short in a message.

use serde_json::Value;

/// How deep [`same`] looks before it calls two values different: past it, saying "changed"
/// is the safe answer, and the stack stays bounded whatever the values.
const MAX_EQ_DEPTH: usize = 256;

/// Longest a value is shown in a message before it is cut.
const MAX_SHOWN: usize = 60;

/// `pointer` extended by one reference token, escaped as RFC 6901 says (`~` as `~0`, `/`
/// as `~1`): a tool's name or a resource's URI may hold either.
pub fn child(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
    out
}

/// Whether two values are equal as JSON Schema compares instances: numbers by their value
/// (`1` and `1.0` are one number), objects whatever the order of their members.
pub fn same(a: &Value, b: &Value) -> bool {
    same_at(a, b, 0)
}

fn same_at(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_EQ_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            // Integers exactly (an f64 would blur those past 2^53); a float against
            // anything by value.
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => match (x.as_f64(), y.as_f64()) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                },
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_at(x, y, depth + 1))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_at(v, w, depth + 1)))
        }
        _ => a == b,
    }
}

/// `value` as compact JSON for a message, cut to a few dozen characters.
pub fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_SHOWN {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_SHOWN).collect();
    cut.push('…');
    cut
}

/// The JSON pointer a `$ref` names inside its own document (`#/$defs/Node` gives
/// `/$defs/Node`, `#` gives the empty pointer, the root), with its percent-escapes decoded
/// as URI fragments require. `None` for a reference to another document, or a fragment
/// that is not a pointer (an anchor): those cannot be followed here.
pub fn local_ref(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return None;
    }
    percent_decode(fragment)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes.get(i).copied()?;
        if byte == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_escape_slash_and_tilde() {
        assert_eq!(child("/tools", "a/b~c"), "/tools/a~1b~0c");
        assert_eq!(child("", "file:///x"), "/file:~1~1~1x");
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same(&json!([1, {"a": 2}]), &json!([1.0, {"a": 2.0}])));
        assert!(!same(&json!(1), &json!("1")));
        assert!(!same(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn local_refs_decode() {
        assert_eq!(local_ref("#/$defs/a%20b").as_deref(), Some("/$defs/a b"));
        assert_eq!(local_ref("#").as_deref(), Some(""));
        assert_eq!(local_ref("#anchor"), None);
        assert_eq!(local_ref("other.json#/x"), None);
        assert_eq!(local_ref("#/%zz"), None);
        assert_eq!(local_ref("#/%+1"), None);
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(200));
        assert!(show(&long).chars().count() <= MAX_SHOWN + 1);
        assert_eq!(show(&json!("a")), "\"a\"");
    }
}
