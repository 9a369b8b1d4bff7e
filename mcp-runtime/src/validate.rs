//! Argument validation: compiled JSON Schema (2020-12) validators with resource bounds.
//!
//! Validators are compiled once at start. Before a value reaches one, its nesting depth and
//! size are checked, so a hostile argument cannot make validation itself expensive. Remote
//! `$ref`s are never fetched: the retriever refuses every URI.

use serde_json::Value;

/// Deepest nesting accepted in an arguments object.
pub const MAX_DEPTH: usize = 64;
/// Most JSON nodes (values, keys excluded) accepted in an arguments object.
pub const MAX_NODES: usize = 100_000;
/// Most validation messages reported back to the model.
const MAX_MESSAGES: usize = 8;

/// A compiled validator for one schema.
pub struct ArgValidator {
    inner: jsonschema::Validator,
}

struct NoRemote;

impl jsonschema::Retrieve for NoRemote {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "remote $ref {} is not fetched: schemas must be self-contained",
            uri.as_str()
        )
        .into())
    }
}

impl ArgValidator {
    /// Compile `schema` as JSON Schema 2020-12.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let inner = jsonschema::draft202012::options()
            .with_retriever(NoRemote)
            .build(schema)
            .map_err(|e| e.to_string())?;
        Ok(ArgValidator { inner })
    }

    /// Check `value`; on failure, messages a model can act on (`/path: problem`).
    pub fn check(&self, value: &Value) -> Result<(), Vec<String>> {
        check_bounds(value)?;
        // The common case, valid arguments, stops at a yes/no and builds no error values.
        if self.inner.is_valid(value) {
            return Ok(());
        }
        let mut messages = Vec::new();
        for error in self.inner.iter_errors(value) {
            if messages.len() == MAX_MESSAGES {
                messages.push("(further problems not shown)".to_owned());
                break;
            }
            let path = error.instance_path().as_str().to_owned();
            let place = if path.is_empty() {
                "arguments".to_owned()
            } else {
                format!("argument {path}")
            };
            messages.push(format!("{place}: {error}"));
        }
        if messages.is_empty() {
            Ok(())
        } else {
            Err(messages)
        }
    }
}

/// Reject values nested deeper than [`MAX_DEPTH`] or larger than [`MAX_NODES`].
pub fn check_bounds(value: &Value) -> Result<(), Vec<String>> {
    let mut nodes = 0usize;
    // Iterative walk: a recursive one would itself be the stack overflow we guard against.
    let mut stack = vec![(value, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        nodes += 1;
        if depth > MAX_DEPTH {
            return Err(vec![format!(
                "arguments are nested deeper than {MAX_DEPTH} levels"
            )]);
        }
        if nodes > MAX_NODES {
            return Err(vec![format!("arguments have more than {MAX_NODES} values")]);
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_name_the_argument_and_the_problem() {
        let v = ArgValidator::compile(&json!({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false})).unwrap();
        assert!(v.check(&json!({"a": 1})).is_ok());
        let errs = v.check(&json!({"a": "x"})).unwrap_err();
        assert!(errs[0].starts_with("argument /a:"), "{errs:?}");
        let errs = v.check(&json!({})).unwrap_err();
        assert!(errs[0].contains("\"a\" is a required property"), "{errs:?}");
        let errs = v.check(&json!({"a": 1, "zz": 2})).unwrap_err();
        assert!(errs[0].contains("zz"), "{errs:?}");
    }

    #[test]
    fn deep_nesting_is_refused_before_validation() {
        let mut deep = json!(1);
        for _ in 0..(MAX_DEPTH + 5) {
            deep = json!([deep]);
        }
        let v = ArgValidator::compile(&json!({"type":"object"})).unwrap();
        let errs = v.check(&json!({ "x": deep })).unwrap_err();
        assert!(errs[0].contains("nested deeper"));
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let err = ArgValidator::compile(&json!({"$ref": "http://127.0.0.1:9/schema.json"}))
            .err()
            .unwrap();
        assert!(err.contains("not fetched"), "{err}");
    }
}
