//! The request body an operation takes and the answers it gives: which media type is
//! sent, whether a body is taken whole or as arguments, and what a success and an error
//! answer with.

use serde_json::{Map, Value};

use super::{text_of, Mapper};
use crate::model::{Body, ErrorResponse, Output, OutputKind, Param, Placement};
use crate::names;
use crate::refs::follow;

impl Mapper<'_> {
    pub(super) fn body(
        &mut self,
        raw: &Map<String, Value>,
        params: &[Param],
        label: &str,
    ) -> Result<Option<Body>, String> {
        let Some(body) = raw.get("requestBody") else {
            return Ok(None);
        };
        let body = follow(self.document, body)?;
        let required = body.get("required") == Some(&Value::Bool(true));
        let content = body.get("content").and_then(Value::as_object);
        let Some((content_type, media)) = content.and_then(|c| pick_request_type(c)) else {
            let types: Vec<&str> = content
                .map(|c| c.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let reason = format!(
                "a request body of type {} is not supported yet",
                if types.is_empty() {
                    "(none given)".into()
                } else {
                    types.join(", ")
                }
            );
            if required {
                return Err(reason);
            }
            self.warn(label, format!("{reason}; the optional body is left out"));
            return Ok(None);
        };
        let schema = match media.get("schema") {
            Some(schema) => self
                .schemas
                .convert(schema)
                .map_err(|e| format!("request body: {e}"))?,
            None => Value::Bool(true),
        };
        let placement = self.placement(&schema, params);
        Ok(Some(Body {
            content_type: content_type.to_owned(),
            required,
            schema,
            description: text_of(body.get("description")),
            placement,
        }))
    }

    /// An object body with plain properties is taken as arguments of its own; anything
    /// else, or one whose names collide with a parameter's, as one `body` argument.
    fn placement(&mut self, schema: &Value, params: &[Param]) -> Placement {
        let resolved = self.schemas.resolved(schema);
        let plain = resolved
            .get("properties")
            .and_then(Value::as_object)
            .filter(|properties| {
                !properties.is_empty()
                    && ["allOf", "anyOf", "oneOf", "not", "if", "patternProperties"]
                        .iter()
                        .all(|k| resolved.get(k).is_none())
                    && resolved
                        .get("additionalProperties")
                        .is_none_or(|a| a.is_boolean())
                    && resolved.get("type").is_none_or(|t| t == "object")
            });
        if let Some(properties) = plain {
            let fields: Vec<(String, String)> = properties
                .keys()
                .map(|name| (name.clone(), names::field(name)))
                .collect();
            let mut seen: Vec<&str> = params
                .iter()
                .flat_map(|p| [p.argument.as_str(), p.field.as_str()])
                .collect();
            let clash = fields.iter().any(|(property, field)| {
                let clash = seen.contains(&field.as_str())
                    || seen.contains(&property.as_str())
                    || property == "idempotencyKey"
                    || field == "idempotency_key";
                seen.push(field);
                clash
            });
            if !clash {
                return Placement::Flattened(fields);
            }
        }
        Placement::Argument(names::unique("body", usize::MAX, |a| {
            params.iter().any(|p| p.argument == a)
        }))
    }

    pub(super) fn responses(
        &mut self,
        raw: &Map<String, Value>,
        label: &str,
    ) -> Result<(Output, Vec<ErrorResponse>), String> {
        let empty = Map::new();
        let responses = raw
            .get("responses")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let success = ["200", "201", "202", "203", "204", "206", "2XX", "2xx"]
            .into_iter()
            .find(|s| responses.contains_key(*s))
            .or_else(|| {
                responses
                    .keys()
                    .map(String::as_str)
                    .find(|s| s.starts_with('2'))
            });
        let output = match success {
            Some(status) => {
                let response = follow(self.document, &responses[status])?;
                Output {
                    status: status.to_owned(),
                    kind: self.output_kind(response, label),
                }
            }
            None => Output {
                status: "default".into(),
                kind: OutputKind::Empty,
            },
        };
        let mut errors = Vec::new();
        for (status, response) in responses {
            if !(status.starts_with('4') || status == "default") {
                continue;
            }
            let Ok(response) = follow(self.document, response) else {
                continue;
            };
            let Some((_, media)) = response
                .get("content")
                .and_then(Value::as_object)
                .and_then(|c| c.iter().find(|(t, _)| is_json(t)))
            else {
                continue;
            };
            let Some(raw_schema) = media.get("schema") else {
                continue;
            };
            match self.schemas.convert(raw_schema) {
                Ok(schema) => errors.push(ErrorResponse {
                    status: status.clone(),
                    description: text_of(response.get("description")),
                    schema,
                }),
                Err(reason) => self.warn(
                    label,
                    format!("error response {status} is left untyped: {reason}"),
                ),
            }
        }
        Ok((output, errors))
    }

    fn output_kind(&mut self, response: &Value, label: &str) -> OutputKind {
        let Some(content) = response
            .get("content")
            .and_then(Value::as_object)
            .filter(|c| !c.is_empty())
        else {
            return OutputKind::Empty;
        };
        if let Some((_, media)) = content.iter().find(|(t, _)| is_json(t)) {
            let schema = match media.get("schema").map(|s| self.schemas.convert(s)) {
                Some(Ok(schema)) => schema,
                Some(Err(reason)) => {
                    self.warn(label, format!("the result's schema is left out: {reason}"));
                    Value::Bool(true)
                }
                None => Value::Bool(true),
            };
            let object = self.is_object(&schema, 0);
            let wrapped_in = (!object).then(|| "result".to_owned());
            return OutputKind::Json { schema, wrapped_in };
        }
        if content.keys().any(|t| t.starts_with("text/")) {
            return OutputKind::Text;
        }
        OutputKind::Binary(content.keys().next().cloned().unwrap_or_default())
    }

    /// Whether every value of `schema` is a JSON object: its type says so, or it has
    /// properties and no other type, or one of its `allOf` is an object.
    fn is_object(&mut self, schema: &Value, depth: usize) -> bool {
        let resolved = self.schemas.resolved(schema);
        match resolved.get("type") {
            Some(kind) => kind == "object",
            None if resolved.get("properties").is_some() => true,
            None => {
                depth < 8
                    && resolved
                        .get("allOf")
                        .and_then(Value::as_array)
                        .is_some_and(|all| all.iter().any(|s| self.is_object(s, depth + 1)))
            }
        }
    }
}

/// The request media type taken: JSON first, then a form, then text; a body that takes
/// any type (`*/*`) is sent as JSON.
pub(super) fn pick_request_type(content: &Map<String, Value>) -> Option<(&str, &Value)> {
    let find = |wanted: &dyn Fn(&str) -> bool| {
        content
            .iter()
            .find(|(t, _)| wanted(t))
            .map(|(t, m)| (t.as_str(), m))
    };
    find(&is_json)
        .or_else(|| find(&|t| t.starts_with("application/x-www-form-urlencoded")))
        .or_else(|| find(&|t| t.starts_with("text/plain")))
        .or_else(|| find(&|t| t == "*/*").map(|(_, m)| ("application/json", m)))
}

pub(super) fn is_json(media_type: &str) -> bool {
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json")
}
