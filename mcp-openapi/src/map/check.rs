//! The last check of a mapping: every schema it publishes compiles in the runtime's
//! validator, and every named schema it uses converted.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::{Api, Skipped, Warning};

/// Each tool's input and output schema must be one the runtime's validator compiles, and
/// every named schema it uses must have converted; an operation whose schemas are not is
/// moved to the skipped ones, with the reason. An error response whose schema is not is
/// left untyped, with a warning.
pub(super) fn check_schemas(api: &mut Api, failed: &BTreeMap<String, String>) {
    let broken = |schema: &Value| -> Option<String> {
        let mut names = Vec::new();
        crate::model::refs_in(schema, &mut names);
        names
            .iter()
            .find(|n| !api.schemas.contains_key(*n))
            .map(|name| match failed.get(name) {
                Some(reason) => format!("schema `{name}`: {reason}"),
                None => format!("schema `{name}` is missing"),
            })
    };
    let compile = |schema: &Value, which: &str| -> Option<String> {
        broken(schema)
            .or_else(|| {
                jsonschema::draft202012::meta::validate(schema)
                    .err()
                    .map(|e| format!("its {which} schema is not valid JSON Schema: {e}"))
            })
            .or_else(|| {
                jsonschema::draft202012::new(schema)
                    .err()
                    .map(|e| format!("its {which} schema does not compile: {e}"))
            })
    };
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    for mut operation in std::mem::take(&mut api.operations) {
        let input = operation.input_schema(&api.schemas);
        let output = operation.output_schema(&api.schemas);
        let problem = compile(&input, "input")
            .or_else(|| output.as_ref().and_then(|output| compile(output, "output")));
        if let Some(reason) = problem {
            skipped.push(Skipped {
                operation: operation.label(),
                reason,
            });
            continue;
        }
        let label = operation.label();
        operation
            .errors
            .retain(|error| match broken(&error.schema) {
                Some(reason) => {
                    warnings.push(Warning {
                        operation: Some(label.clone()),
                        message: format!(
                            "error response {} is left untyped: {reason}",
                            error.status
                        ),
                    });
                    false
                }
                None => true,
            });
        kept.push(operation);
    }
    api.operations = kept;
    api.skipped.extend(skipped);
    api.warnings.extend(warnings);
}
