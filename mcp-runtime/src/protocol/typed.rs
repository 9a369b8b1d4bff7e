//! A tool's result read as a type of the caller's: the one rule by which every client of
//! this crate (the network `Client`, the in-process `TestClient`) gives `call_tool_as`
//! its value, or says why it cannot. Shared from here for the reason `answers` gives.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why a `CallToolResult` is not a value of the caller's type.
#[derive(Debug)]
pub(crate) enum Untyped {
    /// The tool reported failure (`isError: true`).
    ToolError,
    /// The result has no `structuredContent`.
    NoStructuredContent,
    /// The `structuredContent` does not deserialize into the type: the deserializer's
    /// error (which only `Client` reports; a test client hands the result back).
    NotThisType(#[cfg_attr(not(feature = "client"), allow(dead_code))] serde_json::Error),
}

/// The structured content of a tool's `result`, as a `T`.
pub(crate) fn structured<T: DeserializeOwned>(result: &Value) -> Result<T, Untyped> {
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(Untyped::ToolError);
    }
    let content = result
        .get("structuredContent")
        .ok_or(Untyped::NoStructuredContent)?;
    T::deserialize(content).map_err(Untyped::NotThisType)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_is_read_and_failures_are_told_apart() {
        let sum: i64 = structured(&json!({"content": [], "structuredContent": 5})).unwrap();
        assert_eq!(sum, 5);
        let failed = json!({"isError": true, "structuredContent": 5});
        assert!(matches!(
            structured::<i64>(&failed),
            Err(Untyped::ToolError)
        ));
        assert!(matches!(
            structured::<i64>(&json!({"content": []})),
            Err(Untyped::NoStructuredContent)
        ));
        match structured::<i64>(&json!({"structuredContent": "five"})) {
            Err(Untyped::NotThisType(error)) => {
                assert!(error.to_string().contains("expected i64"), "{error}")
            }
            other => panic!("{other:?}"),
        }
    }
}
