//! One HTTP request from a call's arguments, as the operation describes it: the path with
//! each parameter one percent-encoded segment, the query in each parameter's style, the
//! headers, the cookies and the body. Pure text: nothing here sends anything.

use mcp_openapi::{Location, Operation, Param, Placement, Style};
use serde_json::{Map, Value};

/// What a call's arguments make of an operation's request, credentials and retry key
/// aside (they are the deployment's and the framework's, added by the caller of
/// [`parts`]).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Parts {
    /// The path template filled in, starting with `/`.
    pub(crate) path: String,
    /// The query's pairs, each name and value already percent-encoded.
    pub(crate) query: Vec<(String, String)>,
    /// Headers, as text (checked when the request is built).
    pub(crate) headers: Vec<(String, String)>,
    /// Cookies: names as given, values percent-encoded.
    pub(crate) cookies: Vec<(String, String)>,
    /// The body and its media type.
    pub(crate) body: Option<(String, Vec<u8>)>,
}

/// The request `arguments` make of `operation`: each parameter's value is the argument of
/// its name (a hidden one's value put there by the caller), the body is the body argument
/// or the flattened ones. `Err` says what the arguments cannot be sent as.
pub(crate) fn parts(
    operation: &Operation,
    arguments: &Map<String, Value>,
) -> Result<Parts, String> {
    let value = |param: &Param| arguments.get(&param.argument).filter(|v| !v.is_null());
    let mut parts = Parts {
        path: path(operation, &value)?,
        ..Parts::default()
    };
    for param in &operation.params {
        let Some(value) = value(param) else { continue };
        match param.location {
            Location::Path => {}
            Location::Query => query(&mut parts.query, &param.name, value, param.style),
            Location::Header => parts
                .headers
                .push((param.name.clone(), simple(value, false))),
            Location::Cookie => parts
                .cookies
                .push((param.name.clone(), encode(&simple(value, false)))),
        }
    }
    parts.body = body(operation, arguments)?;
    Ok(parts)
}

/// The path template with each `{name}` replaced by its parameter's value, one segment.
fn path<'a>(
    operation: &Operation,
    value: &dyn Fn(&Param) -> Option<&'a Value>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = operation.path.as_str();
    while let Some(open) = rest.find('{') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let after = after.get(1..).unwrap_or_default();
        let Some(close) = after.find('}') else {
            // An unclosed brace is text (the mapping refuses such paths anyway).
            out.push('{');
            rest = after;
            continue;
        };
        let (name, tail) = after.split_at(close);
        let param = operation
            .params
            .iter()
            .find(|p| p.location == Location::Path && p.name == name);
        match param.and_then(value) {
            Some(value) => out.push_str(&simple(value, true)),
            None => return Err(format!("the path parameter `{name}` has no value")),
        }
        rest = tail.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(out)
}

/// A value in the `simple` style (paths and headers): arrays and objects comma-joined
/// (`a,b`; `key,value,key,value`), each part percent-encoded when `encoded` (a path
/// segment), so a value never adds a segment.
fn simple(value: &Value, encoded: bool) -> String {
    let part = |v: &Value| {
        if encoded {
            encode(&text(v))
        } else {
            text(v)
        }
    };
    match value {
        Value::Array(items) => items.iter().map(part).collect::<Vec<_>>().join(","),
        Value::Object(members) => members
            .iter()
            .flat_map(|(key, member)| [part(&Value::String(key.clone())), part(member)])
            .collect::<Vec<_>>()
            .join(","),
        other => part(other),
    }
}

/// The query pairs of one parameter, in its style.
fn query(out: &mut Vec<(String, String)>, name: &str, value: &Value, style: Style) {
    let name_encoded = encode(name);
    let joined = |items: &mut dyn Iterator<Item = String>, separator: &str| {
        items.collect::<Vec<_>>().join(separator)
    };
    match (value, style) {
        (Value::Array(items), Style::Form { explode: true }) => {
            for item in items {
                out.push((name_encoded.clone(), encode(&text(item))));
            }
        }
        (Value::Array(items), style) => {
            let separator = match style {
                Style::SpaceDelimited => "%20",
                Style::PipeDelimited => "|",
                _ => ",",
            };
            let value = joined(&mut items.iter().map(|i| encode(&text(i))), separator);
            out.push((name_encoded, value));
        }
        (Value::Object(members), Style::DeepObject) => {
            for (key, member) in members {
                out.push((
                    format!("{name_encoded}[{}]", encode(key)),
                    encode(&text(member)),
                ));
            }
        }
        (Value::Object(members), Style::Form { explode: true }) => {
            for (key, member) in members {
                out.push((encode(key), encode(&text(member))));
            }
        }
        (Value::Object(members), _) => {
            let value = joined(
                &mut members
                    .iter()
                    .flat_map(|(key, member)| [encode(key), encode(&text(member))]),
                ",",
            );
            out.push((name_encoded, value));
        }
        (scalar, _) => out.push((name_encoded, encode(&text(scalar)))),
    }
}

/// The body: the body argument, or an object of the flattened arguments (by their names in
/// the body, which are also the arguments'), in the body's media type. `None` when the
/// call gives none and the operation does not require one.
fn body(
    operation: &Operation,
    arguments: &Map<String, Value>,
) -> Result<Option<(String, Vec<u8>)>, String> {
    let Some(body) = &operation.body else {
        return Ok(None);
    };
    let value = match &body.placement {
        Placement::Argument(name) => match arguments.get(name) {
            None | Some(Value::Null) => return Ok(None),
            Some(value) => value.clone(),
        },
        Placement::Flattened(fields) => {
            let members: Map<String, Value> = fields
                .iter()
                .filter_map(|(property, _)| {
                    let value = arguments.get(property).filter(|v| !v.is_null())?;
                    Some((property.clone(), value.clone()))
                })
                .collect();
            if members.is_empty() && !body.required {
                return Ok(None);
            }
            Value::Object(members)
        }
    };
    let media = body.content_type.to_ascii_lowercase();
    let bytes = if media.starts_with("application/x-www-form-urlencoded") {
        let Value::Object(members) = &value else {
            return Err("the body is sent as a form, so it must be an object".into());
        };
        form(members).into_bytes()
    } else if media.starts_with("text/") {
        text(&value).into_bytes()
    } else {
        serde_json::to_vec(&value)
            .map_err(|e| format!("the body cannot be written as JSON: {e}"))?
    };
    Ok(Some((body.content_type.clone(), bytes)))
}

/// An object as `application/x-www-form-urlencoded`: an array is one pair per element (the
/// form style's default, exploded), a nested object its JSON text.
pub(crate) fn form(members: &Map<String, Value>) -> String {
    let mut pairs = Vec::new();
    for (name, value) in members {
        match value {
            Value::Null => {}
            Value::Array(items) => {
                for item in items {
                    pairs.push(format!(
                        "{}={}",
                        form_encode(name),
                        form_encode(&text(item))
                    ));
                }
            }
            other => pairs.push(format!(
                "{}={}",
                form_encode(name),
                form_encode(&text(other))
            )),
        }
    }
    pairs.join("&")
}

/// A value as parameters write it: a string as it is, anything else as its JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Percent-encoding of everything but RFC 3986's unreserved characters: a path segment
/// stays one segment, a query value one value.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(byte))
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// `application/x-www-form-urlencoded` encoding: as [`encode`], but a space is `+` and `*`
/// stays, as HTML forms write them.
fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_openapi::{map, Curation};
    use serde_json::json;

    const DOCUMENT: &str = r#"
openapi: 3.1.0
info: { title: Styles, version: "1" }
paths:
  /files/{path}/{ids}:
    get:
      operationId: styles
      parameters:
        - { name: path, in: path, required: true, schema: { type: string } }
        - { name: ids, in: path, required: true, schema: { type: array, items: { type: integer } } }
        - { name: tag, in: query, schema: { type: array, items: { type: string } } }
        - { name: csv, in: query, explode: false, schema: { type: array, items: { type: string } } }
        - { name: spaced, in: query, style: spaceDelimited, explode: false, schema: { type: array, items: { type: string } } }
        - { name: piped, in: query, style: pipeDelimited, explode: false, schema: { type: array, items: { type: string } } }
        - { name: filter, in: query, style: deepObject, explode: true, schema: { type: object, additionalProperties: { type: string } } }
        - { name: point, in: query, schema: { type: object, additionalProperties: { type: integer } } }
        - { name: q, in: query, schema: { type: string } }
        - { name: X-Trace, in: header, schema: { type: array, items: { type: string } } }
        - { name: session, in: cookie, schema: { type: string } }
      responses: { "204": { description: ok } }
  /forms:
    post:
      operationId: form
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                name: { type: string }
                tags: { type: array, items: { type: string } }
      responses: { "204": { description: ok } }
"#;

    fn operation(name: &str) -> Operation {
        let api = map(DOCUMENT, &Curation::default()).unwrap();
        api.operations.into_iter().find(|o| o.tool == name).unwrap()
    }

    fn arguments(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => panic!("an object"),
        }
    }

    #[test]
    fn each_location_and_style_is_written_as_the_document_says() {
        let parts = parts(
            &operation("styles"),
            &arguments(json!({
                "path": "a/b c",
                "ids": [1, 2],
                "tag": ["x", "y z"],
                "csv": ["a", "b,c"],
                "spaced": ["a", "b"],
                "piped": ["a", "b"],
                "filter": {"owner": "me&you", "status": "open"},
                "point": {"x": 1, "y": 2},
                "q": null,
                "X-Trace": ["t1", "t2"],
                "session": "s 1;2"
            })),
        )
        .unwrap();
        assert_eq!(parts.path, "/files/a%2Fb%20c/1,2");
        let pairs: Vec<(&str, &str)> = parts
            .query
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("tag", "x"),
                ("tag", "y%20z"),
                ("csv", "a,b%2Cc"),
                ("spaced", "a%20b"),
                ("piped", "a|b"),
                ("filter[owner]", "me%26you"),
                ("filter[status]", "open"),
                ("x", "1"),
                ("y", "2"),
            ]
        );
        assert_eq!(parts.headers, [("X-Trace".to_owned(), "t1,t2".to_owned())]);
        assert_eq!(
            parts.cookies,
            [("session".to_owned(), "s%201%3B2".to_owned())]
        );
        assert_eq!(parts.body, None);
    }

    #[test]
    fn a_missing_path_value_is_refused_and_a_form_body_is_encoded() {
        let error = parts(&operation("styles"), &arguments(json!({"path": "a"}))).unwrap_err();
        assert!(error.contains("`ids`"), "{error}");
        let parts = parts(
            &operation("form"),
            &arguments(json!({"name": "Ann Lee*", "tags": ["a&b", "c"]})),
        )
        .unwrap();
        let (media, bytes) = parts.body.unwrap();
        assert_eq!(media, "application/x-www-form-urlencoded");
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "name=Ann+Lee*&tags=a%26b&tags=c"
        );
    }
}
