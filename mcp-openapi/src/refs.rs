//! Following `$ref`s inside the document: JSON pointers in URI fragments (`#/components/...`,
//! with `~1`, `~0` and percent escapes). References to other files are refused by name.

use serde_json::Value;

/// How many references in a row are followed before the chain is called a cycle.
const MAX_CHAIN: usize = 32;

/// The value a local reference points at.
pub(crate) fn resolve<'a>(document: &'a Value, reference: &str) -> Result<&'a Value, String> {
    let Some(pointer) = reference.strip_prefix('#') else {
        return Err(format!(
            "`{reference}` refers to another document, which is not read"
        ));
    };
    let mut at = document;
    for raw in pointer.split('/').skip(1) {
        let segment = percent_decode(raw).replace("~1", "/").replace("~0", "~");
        at = match at {
            Value::Object(map) => map.get(&segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("`{reference}` points at nothing in the document"))?;
    }
    Ok(at)
}

/// The object itself, or what its `$ref` (and that one's) points at: for parameters, request
/// bodies and responses, whose references replace them whole.
pub(crate) fn follow<'a>(document: &'a Value, mut value: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..MAX_CHAIN {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => value = resolve(document, reference)?,
            None => return Ok(value),
        }
    }
    Err("a chain of `$ref`s does not end".into())
}

/// `%7B` and the like, as a URI fragment may carry them; a malformed escape stays as it is.
fn percent_decode(segment: &str) -> String {
    if !segment.contains('%') {
        return segment.to_owned();
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| segment.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_unescape_their_segments() {
        let doc = json!({"paths": {"/items/{id}": {"get": {"x": 1}}}, "a": [0, {"b~c": 2}]});
        assert_eq!(
            resolve(&doc, "#/paths/~1items~1%7Bid%7D/get/x").unwrap(),
            &json!(1)
        );
        assert_eq!(resolve(&doc, "#/a/1/b~0c").unwrap(), &json!(2));
        assert!(resolve(&doc, "#/a/7")
            .unwrap_err()
            .contains("points at nothing"));
        assert!(resolve(&doc, "other.yaml#/a")
            .unwrap_err()
            .contains("another document"));
    }

    #[test]
    fn a_reference_cycle_ends_in_an_error() {
        let doc = json!({"a": {"$ref": "#/b"}, "b": {"$ref": "#/a"}});
        assert!(follow(&doc, &doc["a"])
            .unwrap_err()
            .contains("does not end"));
    }
}
