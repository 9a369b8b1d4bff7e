//! Tool definitions and `tools/call` results.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::content::Content;

/// Name and version of an implementation (`serverInfo`, `clientInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Short description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

/// Behaviour hints for a tool. All are hints, not guarantees.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may make destructive changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world of external entities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// True when no hint is set (the block is then left out of the tool).
    pub fn is_empty(&self) -> bool {
        self == &ToolAnnotations::default()
    }
}

/// A tool as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique name (1-128 of `A-Za-z0-9_.-`).
    pub name: String,
    /// Display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema (2020-12) of the arguments object.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(skip_serializing_if = "ToolAnnotations::is_empty", default)]
    pub annotations: ToolAnnotations,
    /// Extension data, such as `ui` (the view a host renders its results in).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none", default)]
    pub meta: Option<Map<String, Value>>,
}

/// The result of `tools/call` (without the era's envelope fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured output.
    pub content: Vec<Content>,
    /// Structured output; matches the tool's output schema when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<StructuredContent>,
    /// True when the tool failed in a way the model should read and act on.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub is_error: bool,
    /// Extension data. Its keys follow the protocol's grammar, outside the prefixes it
    /// reserves (second label `modelcontextprotocol` or `mcp`): a handler's result with
    /// another key fails its call with -32603 naming the key, as a block does (see
    /// [`Content`]).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A tool execution error with one text block the model can read.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(message)],
            is_error: true,
            ..Default::default()
        }
    }

    /// Append the result's JSON, exactly as its `Serialize` writes it, with the structured
    /// content's text copied as it is.
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        out.extend_from_slice(br#"{"content":"#);
        serde_json::to_writer(&mut *out, &self.content)?;
        if let Some(structured) = &self.structured_content {
            out.extend_from_slice(br#","structuredContent":"#);
            out.extend_from_slice(structured.json().as_bytes());
        }
        if self.is_error {
            out.extend_from_slice(br#","isError":true"#);
        }
        if let Some(meta) = &self.meta {
            out.extend_from_slice(br#","_meta":"#);
            serde_json::to_writer(&mut *out, meta)?;
        }
        out.push(b'}');
        Ok(())
    }

    /// The result's members as its `Serialize` writes them, with `structuredContent` and
    /// `_meta` moved rather than copied. Serializing through a JSON value would copy the
    /// structured output a second time on every call.
    #[cfg_attr(not(any(feature = "legacy", feature = "testing")), allow(dead_code))]
    pub(crate) fn into_members(self) -> Result<Map<String, Value>, serde_json::Error> {
        // Destructured, so that a new field fails to compile here until it is added.
        let CallToolResult {
            content,
            structured_content,
            is_error,
            meta,
        } = self;
        let mut members = Map::new();
        let content = content
            .into_iter()
            .map(Content::into_value)
            .collect::<Result<Vec<_>, _>>()?;
        members.insert("content".to_owned(), Value::Array(content));
        if let Some(structured) = structured_content {
            members.insert("structuredContent".to_owned(), structured.to_value());
        }
        if is_error {
            members.insert("isError".to_owned(), Value::Bool(true));
        }
        if let Some(meta) = meta {
            members.insert("_meta".to_owned(), Value::Object(meta));
        }
        Ok(members)
    }

    /// Structured output plus its JSON text for clients that read only `content` (a
    /// value that is a JSON string is that string as text). The value is serialized
    /// once; a value that cannot be serialized (a map with keys that are not strings)
    /// gives a tool error saying so.
    pub fn structured<T: Serialize>(value: T) -> Self {
        match StructuredContent::new(&value) {
            Ok(structured) => {
                let text = match structured.json() {
                    json if json.starts_with('"') => {
                        serde_json::from_str(json).unwrap_or_else(|_| json.to_owned())
                    }
                    json => json.to_owned(),
                };
                CallToolResult {
                    content: vec![Content::text(text)],
                    structured_content: Some(structured),
                    ..Default::default()
                }
            }
            Err(e) => {
                CallToolResult::error(format!("The tool's result could not be serialized: {e}"))
            }
        }
    }
}

/// A tool's structured output (`structuredContent`), held as the JSON text it is sent as.
///
/// A handler's value is serialized once, into this text, and the answer copies the text
/// onto the wire: no JSON tree of the result is built on the way. Make one from any
/// `Serialize` value with [`StructuredContent::new`], or from a JSON value with `From`;
/// read it back with [`StructuredContent::to_value`] or [`StructuredContent::parse`]. Two
/// are equal when their JSON values are equal, whatever the order of object members.
///
/// ```
/// use mcp_runtime::protocol::StructuredContent;
/// use serde_json::json;
///
/// #[derive(serde::Serialize)]
/// struct Sum {
///     sum: i64,
/// }
///
/// let structured = StructuredContent::new(&Sum { sum: 5 }).unwrap();
/// assert_eq!(structured.json(), r#"{"sum":5}"#);
/// assert_eq!(structured, StructuredContent::from(json!({"sum": 5})));
/// assert_eq!(structured.to_value(), json!({"sum": 5}));
/// ```
#[derive(Clone)]
pub struct StructuredContent(
    // JSON text: written by serde_json, or read whole by it as a raw value. Kept as the
    // `String` serde_json wrote, as a `Box<RawValue>` would shrink it with a `realloc`.
    String,
);

impl StructuredContent {
    /// `value` serialized as JSON; an error for a value JSON cannot hold (a map whose
    /// keys are not strings).
    pub fn new<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_string(value).map(StructuredContent)
    }

    /// The JSON text, as it is sent.
    pub fn json(&self) -> &str {
        &self.0
    }

    /// The JSON value (parsed from the text on each call).
    pub fn to_value(&self) -> Value {
        // The text is JSON by construction, so this never falls back.
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// The content read as `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.0)
    }

    /// Whether the content is a JSON object (what the protocol's revisions before
    /// 2026-07-28 require of `structuredContent`).
    pub fn is_object(&self) -> bool {
        self.0.trim_start().starts_with('{')
    }
}

impl From<Value> for StructuredContent {
    fn from(value: Value) -> Self {
        // A JSON value always serializes; `null` is only there to need no panic.
        StructuredContent::new(&value).unwrap_or_else(|_| StructuredContent("null".to_owned()))
    }
}

impl PartialEq for StructuredContent {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 || self.to_value() == other.to_value()
    }
}

impl std::fmt::Debug for StructuredContent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for StructuredContent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Borrowed as a raw value, so a JSON serializer copies the text as it is. (The
        // answers' own writers copy it without this check of the text.)
        let raw: &RawValue = serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for StructuredContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        Ok(StructuredContent(Box::<str>::from(raw).into_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize)]
    struct Order {
        id: u32,
        item: &'static str,
    }

    #[test]
    fn structured_content_is_the_values_json_written_once() {
        let result = CallToolResult::structured(Order {
            id: 7,
            item: "anvil",
        });
        let structured = result.structured_content.as_ref().unwrap();
        // The text block and the structured content are the same JSON, in the type's
        // own member order (no JSON object was built in between).
        assert_eq!(structured.json(), r#"{"id":7,"item":"anvil"}"#);
        assert_eq!(
            result.content,
            vec![Content::text(r#"{"id":7,"item":"anvil"}"#)]
        );
        let wire = serde_json::to_string(&result).unwrap();
        assert_eq!(
            wire,
            r#"{"content":[{"type":"text","text":"{\"id\":7,\"item\":\"anvil\"}"}],"structuredContent":{"id":7,"item":"anvil"}}"#
        );
        // A JSON string is its own text.
        let text = CallToolResult::structured("just text");
        assert_eq!(text.content, vec![Content::text("just text")]);
        assert_eq!(text.structured_content.unwrap().json(), r#""just text""#);
        // What JSON cannot hold is a tool error, not a panic.
        let bad = CallToolResult::structured(std::collections::BTreeMap::from([((1, 2), 3)]));
        assert!(bad.is_error && bad.structured_content.is_none(), "{bad:?}");
    }

    #[test]
    fn structured_content_reads_back_from_text_and_from_a_value() {
        let from_text: CallToolResult =
            serde_json::from_str(r#"{"content":[],"structuredContent": {"b":1, "a":[true]}}"#)
                .unwrap();
        let from_value: CallToolResult = serde_json::from_value(
            json!({"content": [], "structuredContent": {"a": [true], "b": 1}}),
        )
        .unwrap();
        // Equal as JSON values, whatever the member order and spacing.
        assert_eq!(from_text, from_value);
        let structured = from_text.structured_content.unwrap();
        assert_eq!(structured.to_value(), json!({"a": [true], "b": 1}));
        assert!(structured.is_object());
        assert!(!StructuredContent::from(json!([1])).is_object());
        #[derive(Deserialize, PartialEq, Debug)]
        struct Shape {
            a: Vec<bool>,
            b: u8,
        }
        assert_eq!(
            structured.parse::<Shape>().unwrap(),
            Shape {
                a: vec![true],
                b: 1
            }
        );
    }

    #[test]
    fn members_are_what_serialize_writes() {
        let mut meta = Map::new();
        meta.insert("trace".into(), json!("t-1"));
        let cases = [
            CallToolResult::default(),
            CallToolResult::success(vec![Content::text("5")]),
            CallToolResult::structured(json!({"sum": 5, "nested": {"b": [1, 2.5, null]}})),
            CallToolResult::structured(json!("just text")),
            CallToolResult::error("Invalid arguments"),
            CallToolResult {
                content: vec![Content::text("a"), Content::text("b")],
                structured_content: Some(json!([1, 2]).into()),
                is_error: true,
                meta: Some(meta.clone()),
            },
            CallToolResult::success(vec![
                Content::Text {
                    text: "with meta".into(),
                    annotations: None,
                    meta: Some(meta),
                },
                Content::Text {
                    text: "with annotations".into(),
                    annotations: Some(crate::protocol::Annotations {
                        priority: Some(0.5),
                        ..Default::default()
                    }),
                    meta: None,
                },
                Content::image(b"\x89PNG", "image/png"),
                Content::embedded_text("file:///a.txt", "text/plain", "inline"),
            ]),
        ];
        for result in cases {
            // The answer's own writer gives the very bytes `Serialize` gives.
            let mut written = Vec::new();
            result.write_json(&mut written).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&result).unwrap()
            );
            let expected = serde_json::to_value(&result).unwrap();
            let members = result.into_members().unwrap();
            assert_eq!(Value::Object(members), expected);
        }
    }
}
