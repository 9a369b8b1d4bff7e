//! The mapping: each selected operation of a document to an [`Operation`], or to a
//! [`Skipped`] with the reason. Nothing a document says makes it panic; what cannot be
//! expressed costs the operation (or, when optional, the part), never the document.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::curation::Curation;
use crate::load;
use crate::model::{
    Annotations, Api, Credential, Hidden, Location, Method, Operation, Param, Skipped, Style,
    Warning,
};
use crate::names;
use crate::refs::follow;
use crate::schema::Schemas;
use crate::Error;

mod answers;
mod around;
mod check;
mod curate;

use around::{base_url, credentials, describe, pagination};
use check::check_schemas;
use curate::{apply, name_tools};

/// How long the description the model reads may be before it is shortened (characters).
const MAX_DESCRIPTION: usize = 400;

/// Map the document `text` (JSON or YAML) under `curation`.
pub fn map(text: &str, curation: &Curation) -> Result<Api, Error> {
    let document = load::parse(text)?;
    let version = load::version(&document)?;
    let mut mapper = Mapper {
        document: &document,
        schemas: Schemas::new(&document, version),
        credentials: credentials(&document),
        warnings: Vec::new(),
    };
    let Some(paths) = document.get("paths").and_then(Value::as_object) else {
        return Err(Error::Document("the document has no `paths` object".into()));
    };
    let mut operations = Vec::new();
    let mut skipped = Vec::new();
    for (path, item) in paths {
        let item = match follow(&document, item) {
            Ok(Value::Object(item)) => item,
            Ok(_) => continue,
            Err(reason) => {
                skipped.push(Skipped {
                    operation: path.clone(),
                    reason,
                });
                continue;
            }
        };
        for method in Method::ALL {
            let Some(raw) = item.get(method.key()) else {
                continue;
            };
            let label = format!("{} {path}", method.as_str());
            let Value::Object(raw) = raw else {
                skipped.push(Skipped {
                    operation: label,
                    reason: "the operation is not an object".into(),
                });
                continue;
            };
            let operation_id = raw.get("operationId").and_then(Value::as_str);
            let tags = strings(raw.get("tags"));
            if !curation.selects(operation_id, path, &tags) {
                continue;
            }
            match mapper.operation(method, path, item, raw, tags) {
                Ok(operation) => operations.push(operation),
                Err(reason) => skipped.push(Skipped {
                    operation: label,
                    reason,
                }),
            }
        }
    }
    let mut warnings = mapper.warnings;
    let converted = mapper.schemas.finish();
    warnings.extend(converted.warnings.into_iter().map(|message| Warning {
        operation: None,
        message,
    }));
    name_tools(&mut operations, curation);
    let caller = curation.caller()?;
    if caller.is_some() {
        // The document's scopes are the API's, for the token the exchange asks for; the
        // MCP caller holds this server's. The curation may still name some.
        for operation in &mut operations {
            operation.scopes.clear();
        }
    }
    apply(&mut operations, curation)?;
    let used: Vec<&str> = operations
        .iter()
        .flat_map(|o| o.security.iter().map(String::as_str))
        .collect();
    let credentials = mapper
        .credentials
        .into_iter()
        .filter(|(name, _)| used.contains(&name.as_str()))
        .collect();
    let mut api = Api {
        title: text_of(document.pointer("/info/title")).unwrap_or_else(|| "API".into()),
        version: text_of(document.pointer("/info/version")).unwrap_or_default(),
        description: text_of(document.pointer("/info/description")),
        base_url: base_url(&document),
        operations,
        schemas: converted.defs,
        credentials,
        skipped,
        warnings,
        caller,
    };
    check_schemas(&mut api, &converted.failed);
    Ok(api)
}

struct Mapper<'a> {
    document: &'a Value,
    schemas: Schemas<'a>,
    credentials: BTreeMap<String, Credential>,
    warnings: Vec<Warning>,
}

impl Mapper<'_> {
    fn operation(
        &mut self,
        method: Method,
        path: &str,
        item: &Map<String, Value>,
        raw: &Map<String, Value>,
        tags: Vec<String>,
    ) -> Result<Operation, String> {
        let label = format!("{} {path}", method.as_str());
        let operation_id = raw
            .get("operationId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let security = self.security(raw);
        let (mut params, idempotency_key) = self.params(method, item, raw, &label)?;
        // Some documents name an operation by a fragment of its path (`/#Action=Describe`,
        // `/#X-Amz-Target=Service.Op`), which HTTP never sends: each `name=value` of it is
        // sent as the parameter of that name, or else in the query, always with that value.
        // A bare name is a flag sent empty (`/{Bucket}#uploads`), unless the operation
        // declares a parameter of that name (`/tags/{Arn}#TagKeys`): the fragment only tells
        // the path from another, and the caller gives that parameter's value.
        let (path, fragment) = path.split_once('#').unwrap_or((path, ""));
        let path = if path.is_empty() { "/" } else { path };
        for pair in fragment.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = match pair.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (pair, None),
            };
            let fixed = Some(Hidden::Fixed(Value::from(value.unwrap_or(""))));
            match params
                .iter_mut()
                .find(|p| p.name.eq_ignore_ascii_case(name))
            {
                Some(_) if value.is_none() => {}
                Some(param) => param.hidden = fixed,
                None => params.push(Param {
                    name: name.to_owned(),
                    argument: name.to_owned(),
                    field: names::field(name),
                    location: Location::Query,
                    required: true,
                    description: None,
                    schema: serde_json::json!({"type": "string"}),
                    style: Style::Form { explode: true },
                    hidden: fixed,
                }),
            }
        }
        let body = self.body(raw, &params, &label)?;
        let (output, errors) = self.responses(raw, &label)?;
        let pagination = pagination(method, &params, &output, &mut self.schemas);
        let deprecated = raw.get("deprecated") == Some(&Value::Bool(true));
        let (title, description, docs) = describe(raw, method, path, deprecated);
        let annotations = Annotations {
            read_only: matches!(method, Method::Get | Method::Head),
            idempotent: matches!(
                method,
                Method::Get | Method::Head | Method::Put | Method::Delete
            ),
            destructive: method == Method::Delete,
        };
        let scopes = self.scopes(raw);
        Ok(Operation {
            tool: String::new(),
            operation_id,
            method,
            path: path.to_owned(),
            title,
            description,
            docs,
            tags,
            params,
            body,
            output,
            errors,
            annotations,
            confirm: method == Method::Delete,
            idempotency: idempotency_key.is_some(),
            idempotency_key,
            pagination,
            api_scopes: scopes.clone(),
            scopes,
            security,
            deprecated,
        })
    }

    /// The operation's parameters (the path item's, overridden by the operation's), and
    /// the name of its `Idempotency-Key` header when it takes one.
    fn params(
        &mut self,
        method: Method,
        item: &Map<String, Value>,
        raw: &Map<String, Value>,
        label: &str,
    ) -> Result<(Vec<Param>, Option<String>), String> {
        let mut declared: Vec<(String, Location, &Value)> = Vec::new();
        for list in [item.get("parameters"), raw.get("parameters")]
            .into_iter()
            .flatten()
        {
            let Value::Array(list) = list else {
                return Err("`parameters` is not a list".into());
            };
            for param in list {
                let param = follow(self.document, param)?;
                let name = param
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("a parameter has no name")?;
                let location = match param.get("in").and_then(Value::as_str) {
                    Some("path") => Location::Path,
                    Some("query") => Location::Query,
                    Some("header") => Location::Header,
                    Some("cookie") => Location::Cookie,
                    other => {
                        return Err(format!(
                            "parameter `{name}` is in {other:?}, not path, query, header or cookie"
                        ))
                    }
                };
                declared.retain(|(n, l, _)| !(n == name && *l == location));
                declared.push((name.to_owned(), location, param));
            }
        }
        let mut params: Vec<Param> = Vec::new();
        let mut idempotency_key = None;
        for (name, location, param) in declared {
            if location == Location::Header {
                let lower = name.to_ascii_lowercase();
                // The specification has these three ignored as parameters.
                if matches!(lower.as_str(), "accept" | "content-type" | "authorization") {
                    continue;
                }
                if lower == "idempotency-key"
                    && matches!(method, Method::Post | Method::Patch | Method::Put)
                {
                    idempotency_key = Some(name);
                    continue;
                }
            }
            // A credential is the deployment's, never the model's to give.
            let credential = self.credentials.values().any(|c| {
                matches!(c, Credential::ApiKey { location: l, name: n }
                    if *l == location && n.eq_ignore_ascii_case(&name))
            });
            if credential {
                continue;
            }
            let required =
                location == Location::Path || param.get("required") == Some(&Value::Bool(true));
            let raw_schema = match (param.get("schema"), param.get("content")) {
                (Some(schema), _) => schema,
                (None, Some(_)) if !required => {
                    self.warn(label, format!("optional parameter `{name}` is described by `content`, which is not supported; it is left out"));
                    continue;
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "parameter `{name}` is described by `content`, which is not supported"
                    ))
                }
                (None, None) => &Value::Bool(true),
            };
            let schema = self
                .schemas
                .convert(raw_schema)
                .map_err(|e| format!("parameter `{name}`: {e}"))?;
            let explode = param.get("explode").and_then(Value::as_bool);
            let style = match (param.get("style").and_then(Value::as_str), location) {
                (None | Some("form"), Location::Query | Location::Cookie) => Style::Form {
                    explode: explode.unwrap_or(true),
                },
                (None | Some("simple"), Location::Path | Location::Header) => Style::Simple,
                (Some("spaceDelimited"), Location::Query) => Style::SpaceDelimited,
                (Some("pipeDelimited"), Location::Query) => Style::PipeDelimited,
                (Some("deepObject"), Location::Query) => Style::DeepObject,
                (Some(style), _) => {
                    return Err(format!(
                        "parameter `{name}` has style `{style}`, which is not supported in the {}",
                        location.as_str()
                    ))
                }
            };
            // The argument keeps the API's name; two parameters of one name in different
            // places are told apart by their place.
            let (argument, field) = if params
                .iter()
                .any(|p| p.argument == name || p.field == names::field(&name))
            {
                let qualified = format!("{}_{name}", location.as_str());
                let field = names::field(&qualified);
                (qualified, field)
            } else {
                (name.clone(), names::field(&name))
            };
            let field = names::unique(&field, usize::MAX, |f| {
                params.iter().any(|p| p.field == f) || f == "body"
            });
            params.push(Param {
                name,
                argument,
                field,
                location,
                required,
                description: text_of(param.get("description")),
                schema,
                style,
                hidden: None,
            });
        }
        // Every `{name}` of the path must have its parameter, or no request can be made.
        for segment in path_names(label.split_once(' ').map_or("", |(_, p)| p)) {
            if !params
                .iter()
                .any(|p| p.location == Location::Path && p.name == segment)
            {
                return Err(format!(
                    "the path names `{{{segment}}}`, which no parameter describes"
                ));
            }
        }
        Ok((params, idempotency_key))
    }

    /// The names of the credential schemes the operation accepts (its own `security`, or
    /// the document's), those the mapping knows how to send.
    fn security(&self, raw: &Map<String, Value>) -> Vec<String> {
        let requirements = raw
            .get("security")
            .or_else(|| self.document.get("security"));
        let mut names: Vec<String> = Vec::new();
        for requirement in requirements.and_then(Value::as_array).into_iter().flatten() {
            for name in requirement.as_object().into_iter().flat_map(Map::keys) {
                if self.credentials.contains_key(name) && !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        names
    }

    /// The OAuth scopes of the operation's first security requirement that names some.
    fn scopes(&self, raw: &Map<String, Value>) -> Vec<String> {
        let requirements = raw
            .get("security")
            .or_else(|| self.document.get("security"));
        requirements
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .map(|requirement| {
                requirement
                    .values()
                    .flat_map(|s| strings(Some(s)))
                    .collect::<Vec<_>>()
            })
            .find(|scopes| !scopes.is_empty())
            .map(|mut scopes| {
                let mut seen = std::collections::BTreeSet::new();
                scopes.retain(|scope| seen.insert(scope.clone()));
                scopes
            })
            .unwrap_or_default()
    }

    fn warn(&mut self, label: &str, message: String) {
        self.warnings.push(Warning {
            operation: Some(label.to_owned()),
            message,
        });
    }
}

/// The `{name}`s of a path template.
fn path_names(path: &str) -> impl Iterator<Item = &str> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name))
}

/// A list of strings; anything else in it is ignored.
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// A non-empty string.
fn text_of(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}
