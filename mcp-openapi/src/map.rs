//! The mapping: each selected operation of a document to an [`Operation`], or to a
//! [`Skipped`] with the reason. Nothing a document says makes it panic; what cannot be
//! expressed costs the operation (or, when optional, the part), never the document.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::curation::{self, Curation, OperationCuration};
use crate::load;
use crate::model::{
    Annotations, Api, Body, Credential, ErrorResponse, Hidden, Location, Method, Operation, Output,
    OutputKind, Pagination, Param, Placement, Skipped, Style, Warning,
};
use crate::names;
use crate::refs::follow;
use crate::schema::Schemas;
use crate::Error;

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
        let (params, idempotency_key) = self.params(method, item, raw, &label)?;
        let body = self.body(raw, &params, &label)?;
        let (output, errors) = self.responses(raw, &label)?;
        let pagination = pagination(&params, &output, &mut self.schemas);
        let (title, description, docs) = describe(raw, method, path);
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
            scopes,
            security,
            deprecated: raw.get("deprecated") == Some(&Value::Bool(true)),
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

    fn body(
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

    fn responses(
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

/// The request media type taken: JSON first, then a form, then text; a body that takes
/// any type (`*/*`) is sent as JSON.
fn pick_request_type(content: &Map<String, Value>) -> Option<(&str, &Value)> {
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

fn is_json(media_type: &str) -> bool {
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json")
}

/// The `{name}`s of a path template.
fn path_names(path: &str) -> impl Iterator<Item = &str> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name))
}

/// A title (the summary), the description the model reads, and the whole text when that
/// was shortened.
fn describe(
    raw: &Map<String, Value>,
    method: Method,
    path: &str,
) -> (Option<String>, String, Option<String>) {
    let summary = text_of(raw.get("summary"));
    let long = text_of(raw.get("description"));
    // The summary is the tool's title, which clients show beside the description: the
    // description does not repeat it, unless it is all there is.
    let full = match (&summary, &long) {
        (_, Some(d)) => d.clone(),
        (Some(s), None) => s.clone(),
        (None, None) => format!("{} {path}", method.as_str()),
    };
    let short = shorten(&full, MAX_DESCRIPTION);
    let docs = (short != full).then_some(full);
    (summary, short, docs)
}

/// The first paragraph, cut at the last sentence that fits in `max` characters.
fn shorten(text: &str, max: usize) -> String {
    let paragraph = text.split("\n\n").next().unwrap_or(text).trim();
    let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    if paragraph.chars().count() <= max {
        return paragraph;
    }
    let cut: String = paragraph.chars().take(max).collect();
    match cut.rfind(". ") {
        Some(end) if end > max / 3 => cut[..=end].to_owned(),
        _ => {
            let at = cut.rfind(' ').unwrap_or(cut.len());
            format!("{}…", cut[..at].trim_end_matches([',', ';', ':']))
        }
    }
}

/// Recognisable paging: a page number, an offset, or a cursor the response hands back.
fn pagination(params: &[Param], output: &Output, schemas: &mut Schemas<'_>) -> Option<Pagination> {
    let query = |names: &[&str]| {
        params
            .iter()
            .find(|p| {
                p.location == Location::Query
                    && names.contains(&p.name.to_ascii_lowercase().replace(['_', '-'], "").as_str())
            })
            .map(|p| p.name.clone())
    };
    let size = query(&[
        "perpage",
        "pagesize",
        "limit",
        "size",
        "count",
        "maxresults",
    ]);
    if let Some(page) = query(&["page", "pagenumber", "pageno"]) {
        return Some(Pagination::Page { page, size });
    }
    if let Some(offset) = query(&["offset", "skip", "start"]) {
        return Some(Pagination::Offset {
            offset,
            limit: size,
        });
    }
    let param = query(&[
        "cursor",
        "after",
        "pagetoken",
        "nexttoken",
        "startingafter",
        "continuationtoken",
        "marker",
    ])?;
    let OutputKind::Json { schema, .. } = &output.kind else {
        return None;
    };
    let resolved = schemas.resolved(schema);
    let properties = resolved.get("properties")?.as_object()?;
    let next = properties.keys().find(|k| {
        [
            "nextcursor",
            "next",
            "nextpagetoken",
            "nexttoken",
            "cursor",
            "continuationtoken",
            "nextmarker",
        ]
        .contains(&k.to_ascii_lowercase().replace(['_', '-'], "").as_str())
    })?;
    Some(Pagination::Cursor {
        param,
        next: next.clone(),
    })
}

/// The credential schemes the document declares that the mapping knows how to send.
fn credentials(document: &Value) -> BTreeMap<String, Credential> {
    let mut out = BTreeMap::new();
    let Some(schemes) = document
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    else {
        return out;
    };
    for (name, scheme) in schemes {
        let Ok(scheme) = follow(document, scheme) else {
            continue;
        };
        let credential = match scheme.get("type").and_then(Value::as_str) {
            Some("apiKey") => {
                let location = match scheme.get("in").and_then(Value::as_str) {
                    Some("header") => Location::Header,
                    Some("query") => Location::Query,
                    Some("cookie") => Location::Cookie,
                    _ => continue,
                };
                let Some(key) = scheme.get("name").and_then(Value::as_str) else {
                    continue;
                };
                Credential::ApiKey {
                    location,
                    name: key.to_owned(),
                }
            }
            Some("http") => match scheme
                .get("scheme")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("bearer") => Credential::Bearer,
                Some("basic") => Credential::Basic,
                _ => continue,
            },
            Some("oauth2" | "openIdConnect") => Credential::Bearer,
            _ => continue,
        };
        out.insert(name.clone(), credential);
    }
    out
}

/// The first server's URL with its variables at their defaults.
fn base_url(document: &Value) -> Option<String> {
    let server = document.pointer("/servers/0")?;
    let mut url = server.get("url")?.as_str()?.to_owned();
    if let Some(variables) = server.get("variables").and_then(Value::as_object) {
        for (name, variable) in variables {
            if let Some(default) = variable.get("default").and_then(Value::as_str) {
                url = url.replace(&format!("{{{name}}}"), default);
            }
        }
    }
    Some(url.trim_end_matches('/').to_owned())
}

/// Tool names: from the curation, else the `operationId` or the route, unique.
fn name_tools(operations: &mut [Operation], curation: &Curation) {
    let mut taken: Vec<String> = Vec::new();
    for operation in operations.iter_mut() {
        let curated = curated(curation, operation).and_then(|c| c.name.clone());
        let base = curated.unwrap_or_else(|| {
            let name = names::tool_name(
                operation.operation_id.as_deref(),
                operation.method,
                &operation.path,
            );
            match operation
                .tags
                .first()
                .filter(|_| curation.select.tag_prefix)
            {
                Some(tag) => names::tool_name(
                    Some(&format!("{tag}_{name}")),
                    operation.method,
                    &operation.path,
                ),
                None => name,
            }
        });
        let name = names::unique(&base, names::MAX_TOOL_NAME, |n| {
            taken.iter().any(|t| t == n)
        });
        taken.push(name.clone());
        operation.tool = name;
    }
}

/// The curation of an operation, by `operationId` or by the tool name the mapping gave.
fn curated<'c>(curation: &'c Curation, operation: &Operation) -> Option<&'c OperationCuration> {
    operation
        .operation_id
        .as_ref()
        .and_then(|id| curation.operations.get(id))
        .or_else(|| curation.operations.get(&operation.tool))
}

/// What the curation file decides per operation. A name it gives that the document does
/// not have is an error: a typo would otherwise be silently ignored.
fn apply(operations: &mut [Operation], curation: &Curation) -> Result<(), Error> {
    for key in curation.operations.keys() {
        let known = operations
            .iter()
            .any(|o| o.operation_id.as_deref() == Some(key) || &o.tool == key);
        if !known {
            return Err(Error::Curation(format!(
                "mcp-openapi.toml curates the operation `{key}`, which is not among the selected operations (by operationId or tool name)"
            )));
        }
    }
    for operation in operations.iter_mut() {
        let Some(decided) = curated(curation, operation).cloned() else {
            continue;
        };
        if let Some(name) = &decided.name {
            let valid = !name.is_empty()
                && name.len() <= 128
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !valid {
                return Err(Error::Curation(format!(
                    "tool name `{name}` for `{}`: use 1 to 128 letters, digits, `_`, `-` or `.`",
                    operation.label()
                )));
            }
        }
        if let Some(description) = decided.description {
            operation.description = description;
        }
        if let Some(confirm) = decided.confirm {
            operation.confirm = confirm;
        }
        if let Some(idempotency) = decided.idempotency {
            operation.idempotency = idempotency;
        }
        if let Some(mut scopes) = decided.scopes {
            let mut seen = std::collections::BTreeSet::new();
            scopes.retain(|scope| seen.insert(scope.clone()));
            operation.scopes = scopes;
        }
        for (name, argument) in &decided.arguments {
            curate_argument(operation, name, argument)?;
        }
    }
    Ok(())
}

fn curate_argument(
    operation: &mut Operation,
    name: &str,
    decided: &curation::ArgumentCuration,
) -> Result<(), Error> {
    let label = operation.label();
    let hidden = match (&decided.fixed, decided.from) {
        (Some(_), Some(_)) => {
            return Err(Error::Curation(format!(
                "argument `{name}` of `{label}`: `fixed` and `from` exclude each other"
            )))
        }
        (Some(value), None) => Some(Hidden::Fixed(value.clone())),
        (None, Some(curation::From::Tenant)) => Some(Hidden::Tenant),
        (None, Some(curation::From::Principal)) => Some(Hidden::Principal),
        (None, None) => None,
    };
    if let Some(rename) = &decided.rename {
        let valid = rename.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && rename.len() <= 64
            && rename
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !valid {
            return Err(Error::Curation(format!("argument `{name}` of `{label}`: `{rename}` is not a name an argument can have (a letter or `_`, then letters, digits, `_`, `-` or `.`; at most 64)")));
        }
        let field = names::field(rename);
        let taken = operation
            .params
            .iter()
            .any(|p| (p.argument == *rename || p.field == field) && p.name != name);
        if taken {
            return Err(Error::Curation(format!(
                "argument `{name}` of `{label}`: another argument is already called `{rename}`"
            )));
        }
    }
    if let Some(param) = operation.params.iter_mut().find(|p| p.name == name) {
        if let Some(rename) = &decided.rename {
            param.argument = rename.clone();
            param.field = names::field(rename);
        }
        if let Some(description) = &decided.description {
            param.description = Some(description.clone());
        }
        if hidden.is_some() {
            param.hidden = hidden;
        }
        return Ok(());
    }
    match (&mut operation.body, name) {
        (Some(body), "body") => {
            if hidden.is_some() {
                return Err(Error::Curation(format!("the body of `{label}` cannot be hidden")));
            }
            if let (Some(rename), Placement::Argument(argument)) = (&decided.rename, &mut body.placement) {
                *argument = rename.clone();
            }
            if let Some(description) = &decided.description {
                body.description = Some(description.clone());
            }
            Ok(())
        }
        _ => Err(Error::Curation(format!(
            "mcp-openapi.toml curates the argument `{name}` of `{label}`, which has no parameter of that name (or `body`)"
        ))),
    }
}

/// Each tool's input and output schema must be one the runtime's validator compiles, and
/// every named schema it uses must have converted; an operation whose schemas are not is
/// moved to the skipped ones, with the reason. An error response whose schema is not is
/// left untyped, with a warning.
fn check_schemas(api: &mut Api, failed: &BTreeMap<String, String>) {
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
