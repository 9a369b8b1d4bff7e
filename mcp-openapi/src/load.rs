//! Reading a document: JSON or YAML text to a JSON value, and which OpenAPI version it
//! is. Swagger 2.0 is refused with the command that converts it.

use serde_json::Value;

use crate::Error;

/// The versions of OpenAPI a document may be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// 3.0.x: schemas are OpenAPI's own dialect (`nullable`, boolean `exclusiveMinimum`).
    V3_0,
    /// 3.1.x: schemas are JSON Schema 2020-12.
    V3_1,
}

/// The largest document read (64 MiB): the biggest public descriptions are under 40 MiB.
pub(crate) const MAX_DOCUMENT: usize = 64 << 20;

/// Parse a document's text, JSON or YAML (JSON is tried first: it is YAML too, but the
/// JSON reader is faster and its errors name the right line).
pub(crate) fn parse(text: &str) -> Result<Value, Error> {
    if text.len() > MAX_DOCUMENT {
        return Err(Error::Document(format!(
            "the document is {} bytes; at most {MAX_DOCUMENT} are read",
            text.len()
        )));
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        return serde_json::from_str(text)
            .map_err(|e| Error::Document(format!("the document is not valid JSON: {e}")));
    }
    serde_saphyr::from_str::<Value>(text)
        .map_err(|e| Error::Document(format!("the document is neither JSON nor valid YAML: {e}")))
}

/// The document's OpenAPI version.
pub(crate) fn version(document: &Value) -> Result<Version, Error> {
    let Value::Object(root) = document else {
        return Err(Error::Document(
            "the document is not an object (an OpenAPI document starts with `openapi: 3.x`)".into(),
        ));
    };
    if let Some(swagger) = root.get("swagger") {
        return Err(Error::Document(format!(
            "this is a Swagger {} document; convert it to OpenAPI 3 first, for example with \
             `npx swagger2openapi swagger.json -o openapi.json`",
            swagger.as_str().unwrap_or("2.0")
        )));
    }
    match root.get("openapi").and_then(Value::as_str) {
        Some(v) if v.starts_with("3.0") => Ok(Version::V3_0),
        Some(v) if v.starts_with("3.1") => Ok(Version::V3_1),
        Some(v) => Err(Error::Document(format!(
            "OpenAPI {v} is not supported (3.0 and 3.1 are)"
        ))),
        None => Err(Error::Document(
            "the document has no `openapi` version (an OpenAPI document starts with `openapi: 3.x`)"
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_read_the_same() {
        let json = parse(r#"{"openapi": "3.1.0", "paths": {"/a": {}}}"#).unwrap();
        let yaml = parse("openapi: 3.1.0\npaths:\n  /a: {}\n").unwrap();
        assert_eq!(json, yaml);
        assert_eq!(version(&json).unwrap(), Version::V3_1);
    }

    #[test]
    fn swagger_is_refused_with_the_way_out() {
        let doc = parse("swagger: '2.0'\npaths: {}\n").unwrap();
        let Err(Error::Document(message)) = version(&doc) else {
            panic!("Swagger accepted");
        };
        assert!(message.contains("Swagger 2.0") && message.contains("swagger2openapi"));
    }

    #[test]
    fn broken_text_is_an_error_not_a_panic() {
        for text in ["{\"openapi\": ", "a: [b", ": : :", "\u{0}", ""] {
            let parsed = parse(text).and_then(|doc| version(&doc).map(|_| ()));
            assert!(parsed.is_err(), "{text:?} accepted");
        }
        let doc = parse("openapi: 4.0.0\n").unwrap();
        assert!(matches!(version(&doc), Err(Error::Document(m)) if m.contains("4.0.0")));
    }
}
