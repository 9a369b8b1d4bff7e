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
    // When every named schema compiles, checked once all together, an operation's
    // schemas are checked without the named ones they use, each answered by `true`:
    // some documents' results reach most of the document, which would otherwise be
    // checked again for each operation.
    let named_compile = compile(&all_named(&api.schemas), "").is_none();
    let schemas = &api.schemas;
    let placeholders = |root: Value| -> Value {
        let mut names = Vec::new();
        crate::model::refs_in(&root, &mut names);
        match root {
            Value::Object(mut map) if !names.is_empty() => {
                let defs = names.into_iter().map(|name| (name, Value::Bool(true)));
                map.insert("$defs".into(), Value::Object(defs.collect()));
                Value::Object(map)
            }
            other => other,
        }
    };
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    for mut operation in std::mem::take(&mut api.operations) {
        let (input, output) = if named_compile {
            (
                placeholders(operation.input_root(schemas)),
                operation
                    .output_schema_without_defs(schemas)
                    .map(placeholders),
            )
        } else {
            (
                operation.input_schema(schemas),
                operation.output_schema(schemas),
            )
        };
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

/// One schema that uses every named schema: `anyOf` a reference to each (`true` when
/// there are none).
fn all_named(schemas: &BTreeMap<String, Value>) -> Value {
    if schemas.is_empty() {
        return Value::Bool(true);
    }
    let each: Vec<Value> = schemas
        .keys()
        .map(|name| {
            let pointer = name.replace('~', "~0").replace('/', "~1");
            serde_json::json!({ "$ref": format!("#/$defs/{pointer}") })
        })
        .collect();
    serde_json::json!({ "$defs": schemas, "anyOf": each })
}
