//! What a message of the server weighs once read: its text, and the memory its JSON values
//! take as `serde_json::Value`s. A message's size alone does not bound that: a megabyte of
//! `[{"a":0},{"a":0},...]` holds a hundred thousand objects, each a map allocated on its
//! own, and reads into tens of megabytes. So the client weighs each message's text before
//! it parses it (one pass, strings skipped whole), weighs the items a listing keeps the
//! same way, and refuses what weighs more than its limits allow.
//!
//! The weights are estimates meant to stay above what the values take, not to match it: a
//! value counts [`VALUE`] bytes (a `Value` in its array or map), an array also [`ARRAY`]
//! bytes (its first room), an object also [`OBJECT`] bytes (the first node of its map), a
//! string its text.

/// The bytes one JSON value takes where it is kept (an array's element, a map's value),
/// three times over: an array read element by element doubles its room as it grows, and
/// holds the old room and the new while it moves.
pub(crate) const VALUE: usize = 3 * std::mem::size_of::<serde_json::Value>();
/// The bytes an array takes for its first elements: room for four.
pub(crate) const ARRAY: usize = 4 * std::mem::size_of::<serde_json::Value>();
/// The bytes an object's map takes before its first members fit: a node of the ordered map
/// `serde_json` uses, with room for eleven keys and values.
pub(crate) const OBJECT: usize =
    11 * (std::mem::size_of::<serde_json::Value>() + std::mem::size_of::<String>()) + 16;

/// The weight of a JSON text: its bytes, and [`VALUE`] for each value, key and separator
/// in it, [`ARRAY`] more for each array, [`OBJECT`] more for each object. Strings are skipped whole (their commas and braces
/// are text), so a large string weighs about its size. Text that is not JSON weighs what
/// its structure would; the parser refuses it afterwards.
pub(crate) fn of_text(text: &[u8]) -> usize {
    let mut weight = text.len().saturating_add(VALUE);
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        match byte {
            b'"' => {
                // Skip to the closing quote, past escaped characters.
                let mut rest = at + 1;
                loop {
                    match text
                        .get(rest..)
                        .and_then(|tail| memchr::memchr2(b'"', b'\\', tail))
                    {
                        Some(found) if text.get(rest + found) == Some(&b'\\') => rest += found + 2,
                        Some(found) => {
                            rest += found;
                            break;
                        }
                        None => return weight,
                    }
                }
                at = rest;
            }
            b'{' => weight = weight.saturating_add(VALUE + OBJECT),
            b'[' => weight = weight.saturating_add(VALUE + ARRAY),
            b',' | b':' => weight = weight.saturating_add(VALUE),
            _ => {}
        }
        at += 1;
    }
    weight
}

/// The weight of a value already read, on the same scale as [`of_text`]: what a listing
/// keeps of each page.
pub(crate) fn of_value(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => VALUE,
        Value::String(text) => VALUE + text.len(),
        Value::Array(items) => items.iter().fold(VALUE + ARRAY, |weight, item| {
            weight.saturating_add(of_value(item))
        }),
        Value::Object(members) => members.iter().fold(VALUE + OBJECT, |weight, (key, item)| {
            weight
                .saturating_add(key.len() + VALUE)
                .saturating_add(of_value(item))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_long_string_weighs_about_its_size_whatever_it_holds() {
        let text = format!(
            r#"{{"text":"{}"}}"#,
            "a, [b], {c}: \\\"d\\\" ".repeat(10_000)
        );
        let weight = of_text(text.as_bytes());
        assert!(weight >= text.len(), "{weight}");
        assert!(weight < text.len() + 4 * (VALUE + OBJECT), "{weight}");
    }

    #[test]
    fn many_small_objects_weigh_far_more_than_their_text() {
        let text = format!("[{}]", vec![r#"{"a":0}"#; 1000].join(","));
        assert!(
            of_text(text.as_bytes()) > 1000 * OBJECT,
            "{}",
            of_text(text.as_bytes())
        );
        let numbers = format!("[{}]", vec!["0"; 1000].join(","));
        assert!(of_text(numbers.as_bytes()) > 1000 * VALUE);
    }

    #[test]
    fn a_text_weighs_more_than_its_values_take_to_read() {
        let dense_objects = format!("[{}]", vec![r#"{"a":0}"#; 10_000].join(","));
        let dense_numbers = format!("[{}]", vec!["0"; 10_000].join(","));
        let nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let wide_object = format!(
            "{{{}}}",
            (0..5_000)
                .map(|n| format!(r#""k{n}":{n}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        let tools = json!({"tools": (0..500).map(|n| json!({
            "name": format!("tool_{n}"),
            "description": "Does one thing.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
        })).collect::<Vec<_>>(), "nextCursor": "x"})
        .to_string();
        let long_string = format!(r#"{{"text":"{}"}}"#, "x".repeat(1 << 20));
        for text in [
            dense_objects,
            dense_numbers,
            nested,
            wide_object,
            tools,
            long_string,
        ] {
            let weight = of_text(text.as_bytes());
            let mut read = None;
            let took = allocation_counter::measure(|| {
                read = serde_json::from_slice::<serde_json::Value>(text.as_bytes()).ok();
            });
            let value = read.expect("JSON");
            let took = usize::try_from(took.bytes_max).unwrap_or(usize::MAX);
            assert!(
                took <= weight,
                "{took} > {weight}: {}",
                &text[..60.min(text.len())]
            );
            // What a listing keeps of it weighs as much.
            assert!(of_value(&value) >= took, "{}", &text[..60.min(text.len())]);
        }
    }

    #[test]
    fn an_unterminated_string_ends_the_count() {
        assert_eq!(
            of_text(br#"{"a":"never ends, {["#),
            20 + VALUE + VALUE + OBJECT + VALUE
        );
    }
}
