//! Tool definitions and `tools/call` results.

use serde::{Deserialize, Serialize};
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
    pub structured_content: Option<Value>,
    /// True when the tool failed in a way the model should read and act on.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub is_error: bool,
    /// Extension data.
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
            members.insert("structuredContent".to_owned(), structured);
        }
        if is_error {
            members.insert("isError".to_owned(), Value::Bool(true));
        }
        if let Some(meta) = meta {
            members.insert("_meta".to_owned(), Value::Object(meta));
        }
        Ok(members)
    }

    /// Structured output plus its JSON text for clients that read only `content`.
    pub fn structured(value: Value) -> Self {
        let text = match &value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        CallToolResult {
            content: vec![Content::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                structured_content: Some(json!([1, 2])),
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
            let expected = serde_json::to_value(&result).unwrap();
            let members = result.into_members().unwrap();
            assert_eq!(Value::Object(members), expected);
        }
    }
}
