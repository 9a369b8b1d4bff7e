//! What the mapping makes of a document: the API's tools, each with its arguments, body,
//! result and errors as JSON Schema, and what it could not map, with reasons. Code
//! generation and the runtime's serving mode both read only this.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// An API, mapped: its tools and the named schemas they share.
#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    /// `info.title`.
    pub title: String,
    /// `info.version`.
    pub version: String,
    /// `info.description`, when there is one.
    pub description: Option<String>,
    /// The first server's URL (`servers[0].url`, or Swagger's `host` and `basePath`), its
    /// variables set to their defaults. Configuration may override it.
    pub base_url: Option<String>,
    /// One per operation mapped, in the order of their paths and methods.
    pub operations: Vec<Operation>,
    /// The named schemas the tools' schemas refer to as `#/$defs/NAME`, as JSON Schema
    /// 2020-12, keyed by their name in `components.schemas`.
    pub schemas: BTreeMap<String, Value>,
    /// The ways the API takes credentials (`components.securitySchemes`) that some mapped
    /// operation uses, by scheme name.
    pub credentials: BTreeMap<String, Credential>,
    /// Operations not mapped, each with the reason.
    pub skipped: Vec<Skipped>,
    /// What was mapped with a loss worth knowing (an argument dropped, a schema simplified).
    pub warnings: Vec<Warning>,
    /// How the tools call the API as their caller (the curation's `[as_caller]`); `None`:
    /// with the deployment's credentials.
    pub caller: Option<Caller>,
}

/// How tools get a token to call the API as their caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// A token for `audience` with `scopes`, exchanged for the caller's own (RFC 8693).
    Exchange {
        /// The API's audience.
        audience: String,
        /// The scopes asked for.
        scopes: Vec<String>,
    },
    /// The caller's connected account at `provider`.
    Account {
        /// The provider's name.
        provider: String,
    },
}

/// One HTTP operation, as a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// The tool's name: snake_case, unique in the API, at most 64 characters.
    pub tool: String,
    /// `operationId`, when the document gives one.
    pub operation_id: Option<String>,
    /// The HTTP method.
    pub method: Method,
    /// The path template, as in the document (`/items/{itemId}`).
    pub path: String,
    /// A title for people (`summary`).
    pub title: Option<String>,
    /// What the model reads: the summary and the start of the description, shortened.
    pub description: String,
    /// The whole text, when `description` had to be shortened.
    pub docs: Option<String>,
    /// `tags`.
    pub tags: Vec<String>,
    /// The path, query, header and cookie parameters that are arguments.
    pub params: Vec<Param>,
    /// The request body, when the operation takes one.
    pub body: Option<Body>,
    /// What a successful call answers.
    pub output: Output,
    /// Documented error responses with a JSON body (4xx and `default`).
    pub errors: Vec<ErrorResponse>,
    /// Hints for the client, from the method.
    pub annotations: Annotations,
    /// The user confirms each call, once (by default: `DELETE`).
    pub confirm: bool,
    /// The tool takes the framework's retry key (`idempotencyKey`): a call retried under
    /// the same key runs once (by default: operations with an `Idempotency-Key` header).
    pub idempotency: bool,
    /// The header the retry key is forwarded in, when the operation takes one.
    pub idempotency_key: Option<String>,
    /// How the operation pages its results, when it is recognisable.
    pub pagination: Option<Pagination>,
    /// OAuth scopes the caller needs: the document's (its first security requirement's),
    /// or the curation's. Called as the caller (`[as_caller]`), the document's are the
    /// API's, asked for in the exchange ([`Operation::api_scopes`]), not the caller's:
    /// then only the curation's.
    pub scopes: Vec<String>,
    /// The OAuth scopes the API wants for the operation, as the document says.
    pub api_scopes: Vec<String>,
    /// The credential schemes the operation accepts, any one of them (by scheme name).
    pub security: Vec<String>,
    /// `deprecated: true`.
    pub deprecated: bool,
}

impl Operation {
    /// `GET /items/{itemId}`: how messages name the operation.
    pub fn label(&self) -> String {
        format!("{} {}", self.method.as_str(), self.path)
    }

    /// The tool's input schema: an object whose properties are the arguments (hidden ones
    /// left out), with the named schemas they use in `$defs`.
    pub fn input_schema(&self, schemas: &BTreeMap<String, Value>) -> Value {
        with_defs(self.input_root(schemas), schemas)
    }

    /// [`Operation::input_schema`] without the named schemas it uses.
    pub(crate) fn input_root(&self, schemas: &BTreeMap<String, Value>) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for param in self.params.iter().filter(|p| p.hidden.is_none()) {
            properties.insert(
                param.argument.clone(),
                described(&param.schema, param.description.as_deref()),
            );
            if param.required {
                required.push(Value::from(param.argument.clone()));
            }
        }
        if let Some(body) = &self.body {
            match &body.placement {
                Placement::Argument(argument) => {
                    properties.insert(
                        argument.clone(),
                        described(&body.schema, body.description.as_deref()),
                    );
                    if body.required {
                        required.push(Value::from(argument.clone()));
                    }
                }
                Placement::Flattened(fields) => {
                    let object = resolve(&body.schema, schemas);
                    let needed = object.get("required").and_then(Value::as_array);
                    for (name, _) in fields {
                        let pointer =
                            format!("/properties/{}", name.replace('~', "~0").replace('/', "~1"));
                        let schema = object
                            .pointer(&pointer)
                            .cloned()
                            .unwrap_or(Value::Bool(true));
                        properties.insert(name.clone(), schema);
                        // Required whether or not the document requires the body: a
                        // flattened body is always sent (`{}` at least), so what its schema
                        // requires must be in it. OpenAPI 3 bodies are optional unless said
                        // otherwise, which many documents forget to say.
                        if needed.is_some_and(|n| n.contains(&Value::from(name.as_str()))) {
                            required.push(Value::from(name.clone()));
                        }
                    }
                }
            }
        }
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        schema.insert("additionalProperties".into(), Value::Bool(false));
        Value::Object(schema)
    }

    /// The tool's output schema, when its result is JSON: an object (a result that is not
    /// one is wrapped), with the named schemas it uses in `$defs`.
    pub fn output_schema(&self, schemas: &BTreeMap<String, Value>) -> Option<Value> {
        self.output_schema_without_defs(schemas)
            .map(|root| with_defs(root, schemas))
    }

    /// [`Operation::output_schema`] without `$defs`: its references to named schemas
    /// (`#/$defs/NAME`) are to `schemas`, for a caller that attaches what it needs of
    /// them itself.
    pub fn output_schema_without_defs(&self, schemas: &BTreeMap<String, Value>) -> Option<Value> {
        let OutputKind::Json { schema, wrapped_in } = &self.output.kind else {
            return None;
        };
        let object = match wrapped_in {
            Some(key) => serde_json::json!({
                "type": "object",
                "properties": { key.as_str(): schema },
                "required": [key],
            }),
            // An object by its `allOf` or its properties: MCP has the root say so.
            None => match resolve(schema, schemas).clone() {
                Value::Object(mut object) => {
                    object.insert("type".into(), "object".into());
                    Value::Object(object)
                }
                other => other,
            },
        };
        Some(object)
    }

    /// The schema of the detail of the tool's errors: the body of its one documented error
    /// response, or any of them (`anyOf`) when it documents several, with the named
    /// schemas they use in `$defs`. `None` when it documents none.
    pub fn error_schema(&self, schemas: &BTreeMap<String, Value>) -> Option<Value> {
        self.error_schema_without_defs()
            .map(|detail| with_defs(detail, schemas))
    }

    /// [`Operation::error_schema`] without `$defs`: its references to named schemas are
    /// to the document's.
    pub fn error_schema_without_defs(&self) -> Option<Value> {
        let detail = match self.errors.as_slice() {
            [] => return None,
            [one] => one.schema.clone(),
            many => serde_json::json!({
                "anyOf": many.iter().map(|e| e.schema.clone()).collect::<Vec<_>>()
            }),
        };
        Some(detail)
    }
}

/// A named schema's definition when `schema` only refers to one, else `schema`.
fn resolve<'a>(schema: &'a Value, schemas: &'a BTreeMap<String, Value>) -> &'a Value {
    crate::schema::def_name(schema)
        .and_then(|name| schemas.get(name))
        .unwrap_or(schema)
}

/// `schema` with `description`, unless it has one of its own.
fn described(schema: &Value, description: Option<&str>) -> Value {
    match (schema, description) {
        (Value::Object(map), Some(text)) if !map.contains_key("description") => {
            let mut map = map.clone();
            map.insert("description".into(), text.into());
            Value::Object(map)
        }
        _ => schema.clone(),
    }
}

/// `schema` with the named schemas it reaches, directly or through each other, in `$defs`.
fn with_defs(mut schema: Value, schemas: &BTreeMap<String, Value>) -> Value {
    let mut reached = BTreeMap::new();
    let mut pending = Vec::new();
    refs_in(&schema, &mut pending);
    while let Some(name) = pending.pop() {
        if reached.contains_key(&name) {
            continue;
        }
        if let Some(def) = schemas.get(&name) {
            refs_in(def, &mut pending);
            reached.insert(name, def.clone());
        }
    }
    if let (Value::Object(map), false) = (&mut schema, reached.is_empty()) {
        map.insert("$defs".into(), Value::Object(reached.into_iter().collect()));
    }
    schema
}

/// The `$defs` names `value` refers to.
pub(crate) fn refs_in(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                match (key.as_str(), member) {
                    ("$ref", Value::String(reference)) => {
                        if let Some(name) = reference.strip_prefix("#/$defs/") {
                            names.push(name.to_owned());
                        }
                    }
                    _ => refs_in(member, names),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs_in(item, names)),
        _ => {}
    }
}

/// An HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Method {
    /// GET
    Get,
    /// PUT
    Put,
    /// POST
    Post,
    /// DELETE
    Delete,
    /// OPTIONS
    Options,
    /// HEAD
    Head,
    /// PATCH
    Patch,
    /// TRACE
    Trace,
}

impl Method {
    /// Every method, in the order a path item lists them.
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// The method in capitals, as HTTP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }

    /// The method as a path item's key (`get`).
    pub fn key(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
        }
    }
}

/// Where a parameter goes in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A `{name}` of the path template.
    Path,
    /// The query string.
    Query,
    /// A request header.
    Header,
    /// A cookie.
    Cookie,
}

impl Location {
    /// The location as the document writes it (`in`).
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
            Location::Cookie => "cookie",
        }
    }
}

/// How an array or object parameter is written in its location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Query and cookie default: `ids=1&ids=2` when exploded, `ids=1,2` when not.
    Form {
        /// One `name=value` pair per element.
        explode: bool,
    },
    /// Path and header default: `1,2`.
    Simple,
    /// `ids=1%202` (query arrays).
    SpaceDelimited,
    /// `ids=1|2` (query arrays).
    PipeDelimited,
    /// `filter[status]=open` (query objects).
    DeepObject,
}

/// One parameter the tool takes as an argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The parameter's name in the request.
    pub name: String,
    /// The argument's name in the tool's input: the parameter's own, unless two
    /// parameters share it (then `query_id`, `path_id`) or the curation renames it.
    pub argument: String,
    /// The argument as a Rust identifier (snake_case, never a keyword).
    pub field: String,
    /// Where it goes.
    pub location: Location,
    /// The call needs it.
    pub required: bool,
    /// Its description.
    pub description: Option<String>,
    /// Its JSON Schema.
    pub schema: Value,
    /// How its value is written.
    pub style: Style,
    /// Not an argument: the value is fixed, or taken from the caller (curation).
    pub hidden: Option<Hidden>,
}

/// Where a hidden argument's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Hidden {
    /// Always this value.
    Fixed(Value),
    /// The caller's tenant (the `Tenant` of the call).
    Tenant,
    /// The caller's principal (the `Principal` of the call).
    Principal,
}

/// The request body.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The media type sent (`application/json`, `application/x-www-form-urlencoded`,
    /// `text/plain`).
    pub content_type: String,
    /// The call needs it.
    pub required: bool,
    /// Its JSON Schema.
    pub schema: Value,
    /// Its description.
    pub description: Option<String>,
    /// How the tool takes it.
    pub placement: Placement,
}

/// How the tool takes a body.
#[derive(Debug, Clone, PartialEq)]
pub enum Placement {
    /// As one argument of this name.
    Argument(String),
    /// Its properties are arguments themselves, beside the parameters (an object body whose
    /// property names do not collide with them): each property's name (also the
    /// argument's), with its Rust identifier.
    Flattened(Vec<(String, String)>),
}

/// What a successful call answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The status documented (`200`, `201`, `2XX`).
    pub status: String,
    /// What its body is.
    pub kind: OutputKind,
}

/// The kind of a successful response's body.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputKind {
    /// JSON with this schema. Structured content is an object: a schema that is not one
    /// is wrapped as the property `wrapped_in` of one.
    Json {
        /// The body's schema.
        schema: Value,
        /// The property a body that is no object is put in.
        wrapped_in: Option<String>,
    },
    /// Text (`text/*`), answered as text content.
    Text,
    /// Bytes of this media type (files, images): answered as a resource or a link.
    Binary(String),
    /// No body (`204`), or one the document does not describe.
    Empty,
}

/// A documented error response with a JSON body: the tool's typed business error.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorResponse {
    /// `404`, `4XX` or `default`.
    pub status: String,
    /// What the document says of it.
    pub description: Option<String>,
    /// Its body's schema.
    pub schema: Value,
}

/// Hints for the client (MCP tool annotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Annotations {
    /// Changes nothing (`GET`, `HEAD`).
    pub read_only: bool,
    /// Calling twice does what calling once does (`GET`, `HEAD`, `PUT`, `DELETE`).
    pub idempotent: bool,
    /// May delete or overwrite (`DELETE`).
    pub destructive: bool,
}

/// How an operation pages its results, when it does so recognisably: a `GET` whose answer
/// is a list (or an object with one list in it) and that takes a page number, an offset
/// or a cursor the answer hands back. A generated tool takes the framework's cursor
/// instead of the paging parameter and returns a page of the list's items.
#[derive(Debug, Clone, PartialEq)]
pub struct Pagination {
    /// How the API is asked for a page.
    pub by: PageBy,
    /// The answer's property holding the page's items; `None` when the answer is the list.
    pub items: Option<String>,
    /// The items' schema.
    pub item_schema: Value,
    /// The answer's integer property holding how many items there are in all, if any.
    pub total: Option<String>,
}

impl Pagination {
    /// The parameter a generated tool's cursor stands for (the page number, the offset or
    /// the API's cursor), left out of its arguments.
    pub fn param(&self) -> &str {
        match &self.by {
            PageBy::Page { page, .. } => page,
            PageBy::Offset { offset, .. } => offset,
            PageBy::Cursor { param, .. } => param,
        }
    }
}

/// How the API is asked for a page.
#[derive(Debug, Clone, PartialEq)]
pub enum PageBy {
    /// A page number, and optionally a page size, both query parameters.
    Page {
        /// The page number's parameter.
        page: String,
        /// The first page's number: the parameter's default or minimum, else 1.
        first: i64,
        /// The page size's parameter.
        size: Option<String>,
        /// The page size when none is asked for (the size parameter's default).
        size_default: Option<i64>,
    },
    /// An offset and optionally a limit, both query parameters.
    Offset {
        /// The offset's parameter.
        offset: String,
        /// The limit's parameter.
        limit: Option<String>,
        /// The limit when none is asked for (the limit parameter's default).
        limit_default: Option<i64>,
    },
    /// A cursor parameter whose next value the answer carries.
    Cursor {
        /// The cursor's parameter.
        param: String,
        /// The answer's property holding the next cursor.
        next: String,
    },
}

/// A way the API takes credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A key in a header, query parameter or cookie of this name.
    ApiKey {
        /// Where the key goes.
        location: Location,
        /// The header, parameter or cookie name.
        name: String,
    },
    /// `Authorization: Bearer TOKEN` (HTTP bearer, OAuth 2 or OpenID Connect).
    Bearer,
    /// `Authorization: Basic ...`.
    Basic,
}

/// An operation not mapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// `GET /items/{itemId}`.
    pub operation: String,
    /// Why.
    pub reason: String,
}

/// A loss worth knowing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The operation it concerns, when one.
    pub operation: Option<String>,
    /// What happened.
    pub message: String,
}
