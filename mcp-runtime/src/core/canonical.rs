//! Canonical JSON: sorted keys at every level, so equal values give equal bytes. What
//! request state, idempotency keys and page cursors are bound to is hashed in this form.

use serde_json::{Map, Value};

/// Sorted-key JSON, so equal values always give equal bytes.
pub(crate) fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => canonical_object(map, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        // Writing to a Vec cannot fail, and a scalar always serializes.
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

/// Feed `tool` and the caller (tenant, then subject) into `hash`, each ended by a zero byte:
/// what binds an idempotency key or a page cursor to whom it belongs.
pub(crate) fn hash_caller(
    hash: &mut sha2::Sha256,
    tool: &str,
    principal: Option<&crate::policy::principal::Principal>,
) {
    use sha2::Digest as _;
    for part in [
        tool,
        principal.and_then(|p| p.tenant()).unwrap_or(""),
        principal.map(|p| p.subject.as_str()).unwrap_or(""),
    ] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
}

pub(crate) fn canonical_object(map: &Map<String, Value>, out: &mut Vec<u8>) {
    // serde_json's map iterates in key order unless its `preserve_order` feature is on
    // somewhere in the build; sort only then.
    if map.keys().is_sorted() {
        write_object(map.iter(), out);
    } else {
        write_object(sorted(map.iter()), out);
    }
}

pub(crate) fn sorted<'a>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
) -> impl Iterator<Item = (&'a String, &'a Value)> {
    let mut entries: Vec<(&String, &Value)> = entries.collect();
    entries.sort_by_key(|(key, _)| *key);
    entries.into_iter()
}

pub(crate) fn write_object<'a>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    out: &mut Vec<u8>,
) {
    out.push(b'{');
    for (i, (key, value)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // serde_json escapes the key exactly as it would a string value.
        let _ = serde_json::to_writer(&mut *out, key);
        out.push(b':');
        canonical(value, out);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let mut a = Vec::new();
        canonical(
            &json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}}),
            &mut a,
        );
        assert_eq!(
            String::from_utf8(a).unwrap(),
            r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
        // A map in insertion order (serde_json's `preserve_order`) is sorted first.
        let (b, a, one, two) = ("b".to_owned(), "a".to_owned(), json!(1), json!(2));
        let mut out = Vec::new();
        write_object(sorted([(&b, &one), (&a, &two)].into_iter()), &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":2,"b":1}"#);
    }
}
