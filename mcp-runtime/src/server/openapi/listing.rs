//! A served operation's `tools/list` entry: its name, description, input schema, the
//! output schema a `#[tool]` of the same result would publish (kept to its budget), and
//! the annotations its HTTP method implies.

use std::collections::BTreeMap;

use mcp_openapi::Operation;
use serde_json::{json, Map, Value};

use crate::registry::abridge;
use crate::registry::spec::{generator, output_schema, with_idempotency_key};
use crate::registry::{BuildError, ErrorDetail};

/// The `tools/list` entry of `operation`, served as `name`, with its output schema kept
/// within `output_bytes` (and what was left out of it, if anything).
pub(super) fn entry(
    operation: &Operation,
    name: &str,
    schemas: &BTreeMap<String, Value>,
    output_bytes: usize,
    named: &abridge::Named,
) -> Result<(Value, Option<abridge::Abridged>), BuildError> {
    let invalid = |problem: String| BuildError::InvalidTool {
        name: name.to_owned(),
        problems: vec![problem],
    };
    let mut input = operation.input_schema(schemas);
    if operation.idempotency {
        input = with_idempotency_key(&input).map_err(invalid)?;
    }
    let mut tool = Map::new();
    tool.insert("name".into(), name.into());
    if let Some(title) = &operation.title {
        tool.insert("title".into(), title.as_str().into());
    }
    tool.insert("description".into(), operation.description.as_str().into());
    tool.insert("inputSchema".into(), input);
    let mut abridged = None;
    if let Some(output) = published_output(operation, schemas).map_err(invalid)? {
        let (output, shortened) = abridge::abridge(output, output_bytes, named);
        abridged = shortened;
        tool.insert("outputSchema".into(), output);
    }
    tool.insert(
        "annotations".into(),
        json!({
            "readOnlyHint": operation.annotations.read_only,
            "destructiveHint": operation.annotations.destructive,
            "idempotentHint": operation.annotations.idempotent,
            "openWorldHint": true,
        }),
    );
    Ok((Value::Object(tool), abridged))
}

/// The output schema as a `#[tool]` returning `Rejected` publishes it: the success shape,
/// and beside it the shape of the error results (`{"error": {..}}`), with the documented
/// errors' bodies as their `detail`. Without `$defs`: its references are to the
/// document's named schemas, which [`abridge::abridge`] attaches. `None` when the result
/// is not JSON.
fn published_output(
    operation: &Operation,
    schemas: &BTreeMap<String, Value>,
) -> Result<Option<Value>, String> {
    let Some(success) = operation.output_schema_without_defs(schemas) else {
        return Ok(None);
    };
    let success = schemars::Schema::try_from(success)
        .map_err(|e| format!("its output schema is not a JSON Schema: {e}"))?;
    let detail = match operation.error_schema_without_defs() {
        None => ErrorDetail::Any,
        Some(detail) => ErrorDetail::Typed(
            schemars::Schema::try_from(detail)
                .map_err(|e| format!("its error schema is not a JSON Schema: {e}"))?,
        ),
    };
    Ok(output_schema(
        Some(success),
        detail,
        false,
        false,
        &mut generator(),
    ))
}
