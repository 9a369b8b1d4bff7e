//! Serving an OpenAPI document's operations as tools, without generating code (feature
//! `openapi`): [`OpenApiTools`] reads a document with the mapping `mcp openapi` generates
//! code from, and [`Server::openapi`] registers each operation as a tool added at run time
//! whose calls become one HTTP request each, with this deployment's credentials.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcp_openapi::{Api, Credential, Curation, Error, Hidden, Location, Operation};
use serde_json::{Map, Value};

use crate::core::{Elicitation, FromContext, RequestContext};
use crate::policy::principal::{Principal, Tenant};
use crate::protocol::{CallToolResult, RpcError};
use crate::registry::abridge;
use crate::registry::dynamic::{DynamicCall, DynamicTool, Handling};
use crate::registry::BuildError;
use crate::Server;

mod answer;
mod listing;
mod request;

/// The deadline of one call to the API, unless [`OpenApiTools::timeout`] sets another.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest document [`OpenApiTools::load`] reads.
const MAX_DOCUMENT: usize = 32 << 20;

/// How long [`OpenApiTools::load`] waits for a document at a URL.
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Redirects followed within the API's origin; one to another origin is never followed.
const MAX_REDIRECTS: usize = 5;

/// A credential of this deployment for one of the API's security schemes.
///
/// Its `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub enum Secret {
    /// A key, sent where the scheme says (a header, a query parameter or a cookie).
    ApiKey(String),
    /// `Authorization: Bearer TOKEN` (HTTP bearer, OAuth 2, OpenID Connect).
    Bearer(String),
    /// `Authorization: Basic ...`.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Secret::ApiKey(_) => "Secret::ApiKey(..)",
            Secret::Bearer(_) => "Secret::Bearer(..)",
            Secret::Basic { .. } => "Secret::Basic(..)",
        })
    }
}

/// An OpenAPI document's operations, ready to be served as tools by [`Server::openapi`]
/// without generating code.
///
/// The document is mapped as `mcp openapi` maps it for code generation (the same names,
/// arguments, schemas, annotations and curation file; see the book's "From an existing
/// API"), and each call of a tool becomes one HTTP request to the API:
///
/// - path parameters are filled in, each value one percent-encoded segment; query
///   parameters are written in their style (`form`, exploded or not, `spaceDelimited`,
///   `pipeDelimited`, `deepObject`); header and cookie parameters are sent as such;
/// - hidden arguments (curation) take their fixed value, the caller's tenant, or the
///   caller's subject (a call without one is refused, as a `#[tool]` taking `Tenant` or
///   `Principal` is);
/// - the body is the body argument, or an object of the flattened arguments, sent as JSON,
///   as a form (`application/x-www-form-urlencoded`) or as text;
/// - an operation that takes a retry key publishes the framework's `idempotencyKey`
///   argument and forwards it in the API's header (a call without one gets a fresh key);
/// - credentials: those of the first of the operation's security schemes this deployment
///   has a [`Secret`] for. **The MCP caller's own token is never sent to the API**: nothing
///   of the MCP request but its arguments reaches it.
///
/// The answer becomes the result: a 2xx JSON body the structured content (wrapped as the
/// output schema says when it is no object) and its text; a text body text; a binary body
/// an embedded resource of its media type (at most 8 MiB: a larger answer is an error
/// result); no body `Done (HTTP 204).`. A 4xx is an error result
/// `{"error": {"code": "http_404", "message", "detail"}}`, the body as `detail` when the
/// document describes that status; a 5xx (`api_failed`), no answer in time or no
/// connection (`api_unavailable`) an error result saying whether trying again may help.
/// Redirects are followed within the API's origin only.
///
/// As generated tools do, a tool that confirms (`confirm`: `DELETE`s by default) asks the
/// user before its request is sent, and the confirmation is good for that one call; a
/// tool with `idempotency` takes an `idempotencyKey` the framework runs at most once per
/// key (and sends in the API's retry header, when the document names one); the
/// document's OAuth scopes (or the curation's) are the scopes a caller needs. Unlike a
/// generated tool, a served one keeps the API's paging arguments (`page`, `offset`, the
/// API's cursor) and answers the API's page whole.
///
/// ```no_run
/// use std::time::Duration;
/// use mcp_runtime::openapi::{Curation, OpenApiTools, Secret};
/// use mcp_runtime::Server;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = OpenApiTools::load("openapi.yaml", &Curation::default())
///     .await?
///     .base_url("https://inventory.example.com/v1")
///     .credential("apiKey", Secret::ApiKey("k-123".into()))
///     .timeout(Duration::from_secs(10));
/// Server::new("inventory", "1.0.0")
///     .openapi(tools)
///     .build()?
///     .serve_stdio()
///     .await?;
/// # Ok(())
/// # }
/// ```
pub struct OpenApiTools {
    api: Api,
    base_url: Option<String>,
    credentials: BTreeMap<String, Secret>,
    timeout: Duration,
    http: Option<reqwest::Client>,
    prefix: Option<String>,
    output_schema_bytes: usize,
}

impl std::fmt::Debug for OpenApiTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenApiTools")
            .field("title", &self.api.title)
            .field("operations", &self.api.operations.len())
            .field(
                "base_url",
                &self.base_url.as_ref().or(self.api.base_url.as_ref()),
            )
            .field("credentials", &self.credentials.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .field("prefix", &self.prefix)
            .field("output_schema_bytes", &self.output_schema_bytes)
            .finish_non_exhaustive()
    }
}

impl OpenApiTools {
    /// The operations of `document` (OpenAPI 3.0 or 3.1, JSON or YAML) that `curation`
    /// selects, mapped as tools. The base URL is the document's first server's until
    /// [`OpenApiTools::base_url`] says otherwise.
    ///
    /// Fails when the document is not OpenAPI 3.0 or 3.1, or the curation names what the
    /// document does not have. Operations that cannot be mapped are left out, each logged
    /// with its reason when the tools are registered (and listed in
    /// [`OpenApiTools::api`]).
    pub fn from_document(document: &str, curation: &Curation) -> Result<OpenApiTools, Error> {
        let api = mcp_openapi::map(document, curation)?;
        Ok(OpenApiTools {
            api,
            base_url: None,
            credentials: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            http: None,
            prefix: None,
            output_schema_bytes: abridge::DEFAULT_BUDGET,
        })
    }

    /// [`OpenApiTools::from_document`] of the document at `source`: an `http://` or
    /// `https://` URL (fetched within 30 seconds, redirects followed) or else a file's
    /// path. At most 32 MiB is read. A server URL the document gives relative to itself
    /// is resolved against the URL it was fetched from.
    pub async fn load(source: &str, curation: &Curation) -> Result<OpenApiTools, Error> {
        let is_url = source.starts_with("http://") || source.starts_with("https://");
        let text = if is_url {
            fetch(source).await?
        } else {
            read_file(source).await?
        };
        let mut tools = OpenApiTools::from_document(&text, curation)?;
        if is_url {
            if let Some(relative) = tools.api.base_url.as_deref().filter(|u| !absolute(u)) {
                tools.api.base_url = reqwest::Url::parse(source)
                    .and_then(|document| document.join(relative))
                    .ok()
                    .map(String::from);
            }
        }
        Ok(tools)
    }

    /// The API's base URL (`https://api.example.com/v2`), instead of the document's
    /// first server.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The credential for the security scheme `scheme` (its name in
    /// `components.securitySchemes`): an API key scheme takes a [`Secret::ApiKey`], an HTTP
    /// bearer, OAuth 2 or OpenID Connect scheme a [`Secret::Bearer`], an HTTP basic scheme
    /// a [`Secret::Basic`]. A call sends the credential of the first scheme of its
    /// operation's security that has one, and none when none has.
    pub fn credential(mut self, scheme: impl Into<String>, secret: Secret) -> Self {
        self.credentials.insert(scheme.into(), secret);
        self
    }

    /// Each security scheme's credential from the environment, when set (and not empty),
    /// read now. For the scheme `apiKey` and the prefix `INVENTORY`, as the generated
    /// `Api::from_env` reads them (the scheme's name in SHOUTY_SNAKE_CASE):
    ///
    /// - an API key scheme: `INVENTORY_API_KEY_KEY`;
    /// - a bearer, OAuth 2 or OpenID Connect scheme: `INVENTORY_API_KEY_TOKEN`;
    /// - a basic scheme: `INVENTORY_API_KEY_USER` and `INVENTORY_API_KEY_PASSWORD` (both).
    ///
    /// Only the schemes some selected operation uses are read. A credential given with
    /// [`OpenApiTools::credential`] before is replaced by one found here.
    pub fn credentials_from_env(self, prefix: &str) -> Self {
        self.credentials_from(prefix, |name| std::env::var(name).ok())
    }

    fn credentials_from(mut self, prefix: &str, var: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: String| var(&name).filter(|v| !v.is_empty());
        for (scheme, credential) in &self.api.credentials {
            let stem = format!("{prefix}_{}", mcp_openapi::env_name(scheme));
            let secret = match credential {
                Credential::ApiKey { .. } => var(format!("{stem}_KEY")).map(Secret::ApiKey),
                Credential::Bearer => var(format!("{stem}_TOKEN")).map(Secret::Bearer),
                Credential::Basic => var(format!("{stem}_USER"))
                    .zip(var(format!("{stem}_PASSWORD")))
                    .map(|(user, password)| Secret::Basic { user, password }),
            };
            if let Some(secret) = secret {
                self.credentials.insert(scheme.clone(), secret);
            }
        }
        self
    }

    /// The deadline of each call to the API, from sending the request to the end of the
    /// answer (default 30 seconds). A call past it gets an `api_unavailable` error result.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Call the API through `client` (its proxies, TLS roots and connection pool) instead
    /// of one of the tools' own, which follows redirects within the API's origin only.
    /// [`OpenApiTools::timeout`] still bounds each call.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Serve the tools as `PREFIX.NAME` (`crm.list_items`), as the gateway serves an
    /// upstream's, so that several APIs can be served side by side.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// How large a tool's published output schema may be, in bytes of JSON (default 32
    /// KiB). An operation's result schema carries every named schema it reaches, which in
    /// some documents is most of the document; past this size the named schemas farthest
    /// from the result are left out of the published schema, each reference to one
    /// replaced by its `type` and description, and a start-up log line says how many
    /// tools were shortened (at debug level, which, with their sizes). What is published then accepts every result the whole schema
    /// accepts, and more: a client validating results still accepts the API's answers.
    /// `usize::MAX` publishes every schema whole.
    pub fn max_output_schema_bytes(mut self, bytes: usize) -> Self {
        self.output_schema_bytes = bytes;
        self
    }

    /// The document as mapped: its operations, and those left out with the reason.
    pub fn api(&self) -> &Api {
        &self.api
    }

    /// Each tool's `tools/list` entry and handler, or why none can be served.
    fn tools(self) -> Result<Vec<(Value, Arc<Endpoint>)>, BuildError> {
        let title = self.api.title.replace('\n', " ");
        let config =
            |problem: String| BuildError::Config(format!("OpenAPI document `{title}`: {problem}"));
        let base = match self.base_url.as_deref().or(self.api.base_url.as_deref()) {
            Some(base) => base.trim_end_matches('/').to_owned(),
            None => {
                return Err(config(
                    "no base URL: the document names no server; give the API's with OpenApiTools::base_url".into(),
                ))
            }
        };
        if !absolute(&base) || reqwest::Url::parse(&base).is_err() {
            return Err(config(format!(
                "the base URL `{base}` is not an absolute http(s) URL; give the API's with OpenApiTools::base_url"
            )));
        }
        let http = match self.http {
            Some(http) => http,
            None => client().map_err(|e| config(format!("no HTTP client: {e}")))?,
        };
        for skipped in &self.api.skipped {
            tracing::info!(document = %title, operation = %skipped.operation, reason = %skipped.reason, "OpenAPI operation not served");
        }
        let auths = auths(&self.api, &self.credentials, &title);
        #[cfg(not(feature = "oauth"))]
        if self.api.caller.is_some() {
            return Err(config(format!(
                "{title}: the curation's [as_caller] calls the API with tokens in the caller's name, which needs the runtime's feature `oauth`"
            )));
        }
        let shared = Arc::new(Shared {
            http,
            base,
            timeout: self.timeout,
            #[cfg(feature = "oauth")]
            caller: self.api.caller.clone(),
        });
        let mut tools = Vec::new();
        let mut shortened = Vec::new();
        let named = abridge::Named::of(&self.api.schemas);
        for operation in self.api.operations {
            let name = match &self.prefix {
                Some(prefix) => format!("{prefix}.{}", operation.tool),
                None => operation.tool.clone(),
            };
            let (entry, abridged) = listing::entry(
                &operation,
                &name,
                &self.api.schemas,
                self.output_schema_bytes,
                &named,
            )?;
            if let Some(abridged) = abridged {
                tracing::debug!(document = %title, tool = %name, whole = abridged.whole, published = abridged.published, left_out = abridged.left_out, of = abridged.named, "output schema shortened");
                shortened.push(name.clone());
            }
            let auth = operation
                .security
                .iter()
                .find_map(|scheme| auths.get(scheme))
                .cloned();
            tools.push((
                entry,
                Arc::new(Endpoint {
                    shared: shared.clone(),
                    operation,
                    auth,
                }),
            ));
        }
        if let Some(first) = shortened.first() {
            tracing::info!(document = %title, tools = shortened.len(), first = %first, budget = self.output_schema_bytes, "output schemas over the budget published shortened (named schemas far from the result left out; RUST_LOG=debug names each tool); OpenApiTools::max_output_schema_bytes sets the budget");
        }
        Ok(tools)
    }
}

/// A token for the API in `ctx`'s caller's name, as `caller` says; `scopes` are the ones
/// the document says the operation needs.
#[cfg(feature = "oauth")]
async fn caller_token(
    ctx: &RequestContext,
    caller: &mcp_openapi::Caller,
    scopes: &[String],
) -> Result<String, crate::downstream::DownstreamError> {
    use crate::downstream::Downstream;
    let downstream = match caller {
        mcp_openapi::Caller::Exchange {
            audience,
            scopes: fixed,
        } => Downstream::exchange(audience).scopes(if fixed.is_empty() { scopes } else { fixed }),
        mcp_openapi::Caller::Account { provider } => Downstream::account(provider),
    };
    Ok(ctx.downstream(&downstream).await?.secret().to_owned())
}

/// Tools served from OpenAPI documents (feature `openapi`).
impl Server {
    /// Serve each operation of `tools` as a tool added at run time (as
    /// [`Server::tool_from_json`] adds one): its name, title and description, its
    /// arguments as `inputSchema`, its JSON result (when it has one) as `outputSchema`
    /// beside the shape of its errors, and `readOnlyHint`, `idempotentHint` and
    /// `destructiveHint` from its method, with `openWorldHint`. Each call is one HTTP request
    /// to the API; see [`OpenApiTools`] for how it is made and answered, and what such
    /// tools lack compared with generated ones.
    ///
    /// [`Server::build`] fails when there is no base URL (the document names no server and
    /// [`OpenApiTools::base_url`] gave none) or it is not an absolute `http(s)` URL, and as
    /// for any tool added at run time when a name is taken or invalid.
    pub fn openapi(mut self, tools: OpenApiTools) -> Self {
        match tools.tools() {
            Err(problem) => self.added.tools.push(Err(problem)),
            Ok(tools) => {
                for (entry, endpoint) in tools {
                    let handling = endpoint.handling();
                    let call: DynamicCall = Arc::new(move |ctx, arguments| {
                        let endpoint = endpoint.clone();
                        Box::pin(async move { endpoint.call(ctx, arguments).await })
                    });
                    self.added
                        .tools
                        .push(DynamicTool::handled(entry, call, handling).map(Arc::new));
                }
            }
        }
        self
    }
}

/// What every tool of one document shares.
struct Shared {
    http: reqwest::Client,
    /// The base URL, without a trailing `/`.
    base: String,
    timeout: Duration,
    /// How calls get a token in their caller's name (the curation's `[as_caller]`).
    #[cfg(feature = "oauth")]
    caller: Option<mcp_openapi::Caller>,
}

/// How a configured credential is sent.
#[derive(Clone)]
enum Auth {
    Header(String, String),
    Query(String, String),
    Cookie(String, String),
    Bearer(String),
    Basic(String, String),
}

/// One tool: its operation, and the credential its calls send.
struct Endpoint {
    shared: Arc<Shared>,
    operation: Operation,
    auth: Option<Auth>,
}

impl Endpoint {
    /// What the framework does around this tool's calls, as for a generated `#[tool]`:
    /// a confirmation used once, a retry key run at most once, the document's scopes.
    fn handling(&self) -> Handling {
        let operation = &self.operation;
        let scopes: Vec<&'static str> = operation
            .scopes
            .iter()
            .map(|scope| &*Box::leak(scope.clone().into_boxed_str()))
            .collect();
        let tags: Vec<&'static str> = operation
            .tags
            .iter()
            .map(|tag| &*Box::leak(tag.clone().into_boxed_str()))
            .collect();
        Handling {
            once: operation.confirm,
            idempotency: operation.idempotency,
            // Kept for the rest of the process, as every tool's definition is.
            scopes: Box::leak(scopes.into_boxed_slice()),
            tags: Box::leak(tags.into_boxed_slice()),
        }
    }

    /// One call: the request made of `arguments`, confirmed when the tool asks the user,
    /// sent, and its answer as the result.
    async fn call(
        &self,
        ctx: RequestContext,
        mut arguments: Map<String, Value>,
    ) -> Result<CallToolResult, RpcError> {
        let operation = &self.operation;
        // The retry key the framework took out of the arguments (it runs the call at most
        // once per key), for the API's header.
        let retry = match (operation.idempotency, &operation.idempotency_key) {
            (true, Some(header)) => Some((header, ctx.idempotency_key().map(str::to_owned))),
            _ => None,
        };
        for param in &operation.params {
            let value = match &param.hidden {
                None => continue,
                Some(Hidden::Fixed(value)) => value.clone(),
                Some(Hidden::Tenant) => Value::String(Tenant::from_context(&ctx)?.0),
                Some(Hidden::Principal) => Value::String(Principal::from_context(&ctx)?.subject),
            };
            arguments.insert(param.argument.clone(), value);
        }
        let parts = match request::parts(operation, &arguments) {
            Ok(parts) => parts,
            Err(problem) => return Ok(invalid(problem)),
        };
        if operation.confirm {
            // The user reads what is about to happen, as a generated tool says it: the
            // operation and the path it acts on.
            let what = format!(
                "{}: {} {}. Go ahead?",
                operation
                    .title
                    .as_deref()
                    .unwrap_or(&operation.tool)
                    .trim_end_matches('.'),
                operation.method.as_str(),
                parts.path
            );
            // Asked before anything is sent; in the 2026-07-28 era the call comes back
            // with the answer, and the confirmation is good for that one call.
            match ctx.elicit::<Confirm>("confirm", &what)? {
                Elicitation::Accepted(Confirm { confirm: true }) => {}
                _ => {
                    return Ok(answer::refusal(
                        "not_confirmed",
                        "The user did not confirm the call.".to_owned(),
                        None,
                    ))
                }
            }
        }
        let shared = &self.shared;
        let uri = format!("{}{}", shared.base, parts.path);
        let mut query = parts.query;
        let mut cookies = parts.cookies;
        let mut headers = parts.headers;
        if let Some((header, key)) = retry {
            // The API runs a call once per key: the caller's, or a fresh one for a call
            // without, so that the API never sees a request without the header it takes.
            let key = key.unwrap_or_else(fresh_key);
            headers.push((header.clone(), key));
        }
        let mut basic = None;
        #[cfg(feature = "oauth")]
        let as_caller = match (&shared.caller, operation.security.is_empty()) {
            (Some(caller), false) => {
                match caller_token(&ctx, caller, &operation.api_scopes).await {
                    Ok(token) => Some(token),
                    Err(error) => return crate::core::ToolError::from(error).into_outcome(),
                }
            }
            _ => None,
        };
        #[cfg(not(feature = "oauth"))]
        let as_caller: Option<String> = None;
        if let Some(token) = as_caller {
            // In the caller's name, instead of the deployment's credentials.
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        } else {
            match &self.auth {
                None => {}
                Some(Auth::Header(name, key)) => headers.push((name.clone(), key.clone())),
                Some(Auth::Query(name, key)) => {
                    query.push((request::encode(name), request::encode(key)))
                }
                Some(Auth::Cookie(name, key)) => cookies.push((name.clone(), request::encode(key))),
                Some(Auth::Bearer(token)) => {
                    headers.push(("Authorization".into(), format!("Bearer {token}")))
                }
                Some(Auth::Basic(user, password)) => basic = Some((user, password)),
            }
        }
        let mut url = uri.clone();
        if !query.is_empty() {
            url.push('?');
            let pairs: Vec<String> = query.iter().map(|(n, v)| format!("{n}={v}")).collect();
            url.push_str(&pairs.join("&"));
        }
        let method = match reqwest::Method::from_bytes(operation.method.as_str().as_bytes()) {
            Ok(method) => method,
            Err(_) => {
                return Ok(invalid(format!(
                    "the method {} cannot be sent",
                    operation.method.as_str()
                )))
            }
        };
        let mut builder = shared.http.request(method, &url).timeout(shared.timeout);
        for (name, value) in &headers {
            let header = reqwest::header::HeaderName::from_bytes(name.as_bytes());
            let value = reqwest::header::HeaderValue::from_str(value);
            match (header, value) {
                (Ok(header), Ok(value)) => builder = builder.header(header, value),
                _ => {
                    return Ok(invalid(format!(
                        "the header `{name}` cannot carry its value (visible ASCII only)"
                    )))
                }
            }
        }
        if !cookies.is_empty() {
            let pairs: Vec<String> = cookies.iter().map(|(n, v)| format!("{n}={v}")).collect();
            builder = builder.header(reqwest::header::COOKIE, pairs.join("; "));
        }
        if let Some((user, password)) = basic {
            builder = builder.basic_auth(user, Some(password));
        }
        if let Some((media, bytes)) = parts.body {
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, media)
                .body(bytes);
        }
        // The path as the document writes it: the filled one carries argument values.
        tracing::debug!(tool = ?ctx.name(), method = operation.method.as_str(), path = %operation.path, "calling the API");
        match builder.send().await {
            Ok(response) => Ok(answer::answer(operation, response, &uri, shared.timeout).await),
            Err(error) => {
                let result = answer::unanswered(&error, shared.timeout);
                // Without the URL, whose query may carry a key.
                tracing::warn!(tool = ?ctx.name(), error = %error.without_url(), "the API did not answer");
                Ok(result)
            }
        }
    }
}

/// The form asking the user to confirm a call, as generated tools ask it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// The error result of arguments the request cannot carry.
fn invalid(problem: String) -> CallToolResult {
    answer::refusal(
        "invalid_arguments",
        format!("The arguments cannot be sent: {problem}."),
        None,
    )
}

/// Each configured credential, by scheme, as its scheme sends it. A credential for a
/// scheme no served operation uses, or of the wrong kind, is logged and left out.
fn auths(api: &Api, secrets: &BTreeMap<String, Secret>, title: &str) -> BTreeMap<String, Auth> {
    let mut auths = BTreeMap::new();
    for (scheme, secret) in secrets {
        let Some(credential) = api.credentials.get(scheme) else {
            tracing::warn!(document = %title, %scheme, "a credential for a security scheme no served operation uses: never sent");
            continue;
        };
        let auth = match (credential, secret) {
            (Credential::ApiKey { location, name }, Secret::ApiKey(key) | Secret::Bearer(key)) => {
                match location {
                    Location::Query => Auth::Query(name.clone(), key.clone()),
                    Location::Cookie => Auth::Cookie(name.clone(), key.clone()),
                    Location::Header | Location::Path => Auth::Header(name.clone(), key.clone()),
                }
            }
            (Credential::Bearer, Secret::Bearer(token) | Secret::ApiKey(token)) => {
                Auth::Bearer(token.clone())
            }
            (Credential::Bearer | Credential::Basic, Secret::Basic { user, password }) => {
                Auth::Basic(user.clone(), password.clone())
            }
            (Credential::ApiKey { .. }, Secret::Basic { .. })
            | (Credential::Basic, Secret::ApiKey(_) | Secret::Bearer(_)) => {
                tracing::warn!(document = %title, %scheme, "the credential is not of the kind the security scheme takes: never sent");
                continue;
            }
        };
        auths.insert(scheme.clone(), auth);
    }
    auths
}

/// Whether `url` is an absolute `http(s)` URL.
fn absolute(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

/// The tools' own HTTP client: redirects within the origin of the request only, so a
/// credential never follows one to another server.
fn client() -> Result<reqwest::Client, reqwest::Error> {
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if same_origin && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    reqwest::Client::builder().redirect(redirects).build()
}

/// A new retry key for a call that came without one: 128 random bits, in hex.
fn fresh_key() -> String {
    let mut bytes = [0u8; 16];
    // Without randomness the time still tells calls apart; the key is no secret.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        bytes = nanos.to_be_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The document at `url`, at most [`MAX_DOCUMENT`] bytes, within [`LOAD_TIMEOUT`].
async fn fetch(url: &str) -> Result<String, Error> {
    let failed = |why: String| Error::Document(format!("{url}: {why}"));
    let response = reqwest::Client::builder()
        .timeout(LOAD_TIMEOUT)
        .build()
        .map_err(|e| failed(format!("no HTTP client: {e}")))?
        .get(url)
        .send()
        .await
        .map_err(|e| match e.is_timeout() {
            true => failed(format!("no answer within {} s", LOAD_TIMEOUT.as_secs())),
            false => failed(format!("could not be fetched: {}", e.without_url())),
        })?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!("the server answered {status}")));
    }
    let mut response = response;
    if response
        .content_length()
        .is_some_and(|length| length > MAX_DOCUMENT as u64)
    {
        return Err(failed(too_large()));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| failed(format!("the download failed: {}", e.without_url())))?
    {
        if bytes.len() + chunk.len() > MAX_DOCUMENT {
            return Err(failed(too_large()));
        }
        bytes.extend_from_slice(&chunk);
    }
    String::from_utf8(bytes).map_err(|_| failed("the document is not UTF-8 text".into()))
}

/// The document in the file `path`, at most [`MAX_DOCUMENT`] bytes.
async fn read_file(path: &str) -> Result<String, Error> {
    let owned = path.to_owned();
    let read = tokio::task::spawn_blocking(move || -> Result<String, String> {
        use std::io::Read as _;
        let file = std::fs::File::open(&owned).map_err(|e| format!("cannot be read: {e}"))?;
        let mut bytes = Vec::new();
        file.take(MAX_DOCUMENT as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot be read: {e}"))?;
        if bytes.len() > MAX_DOCUMENT {
            return Err(too_large());
        }
        String::from_utf8(bytes).map_err(|_| "the document is not UTF-8 text".to_owned())
    })
    .await
    .map_err(|e| Error::Document(format!("{path}: cannot be read: {e}")))?;
    read.map_err(|why| Error::Document(format!("{path}: {why}")))
}

fn too_large() -> String {
    format!("larger than {} MiB, the most read", MAX_DOCUMENT >> 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCUMENT: &str = r#"
openapi: 3.0.3
info: { title: Keys, version: "1" }
paths:
  /a:
    get:
      operationId: a
      security: [{ key: [] }, { login: [] }, { oauth: [] }]
      responses: { "204": { description: ok } }
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Key }
    login: { type: http, scheme: basic }
    oauth: { type: oauth2, flows: {} }
"#;

    #[test]
    fn credentials_are_read_from_the_variables_the_generated_code_reads() {
        let vars: BTreeMap<&str, &str> = [
            ("SHOP_KEY_KEY", "k"),
            ("SHOP_LOGIN_USER", "ann"),
            ("SHOP_LOGIN_PASSWORD", "pw"),
            ("SHOP_OAUTH_TOKEN", ""),
        ]
        .into_iter()
        .collect();
        let tools = OpenApiTools::from_document(DOCUMENT, &Curation::default())
            .unwrap()
            .credentials_from("SHOP", |name| vars.get(name).map(|v| v.to_string()));
        assert_eq!(
            tools.credentials.get("key"),
            Some(&Secret::ApiKey("k".into()))
        );
        assert_eq!(
            tools.credentials.get("login"),
            Some(&Secret::Basic {
                user: "ann".into(),
                password: "pw".into()
            })
        );
        // An empty variable is no credential.
        assert_eq!(tools.credentials.get("oauth"), None);
        assert_eq!(
            format!("{:?}", tools.credentials),
            r#"{"key": Secret::ApiKey(..), "login": Secret::Basic(..)}"#
        );
    }

    #[test]
    fn a_credential_of_the_wrong_kind_is_left_out() {
        let tools = OpenApiTools::from_document(DOCUMENT, &Curation::default()).unwrap();
        let secrets: BTreeMap<String, Secret> = [
            (
                "key".to_owned(),
                Secret::Basic {
                    user: "u".into(),
                    password: "p".into(),
                },
            ),
            ("login".to_owned(), Secret::Bearer("t".into())),
            ("oauth".to_owned(), Secret::Bearer("t".into())),
            ("nowhere".to_owned(), Secret::Bearer("t".into())),
        ]
        .into_iter()
        .collect();
        let auths = auths(&tools.api, &secrets, "Keys");
        assert_eq!(auths.keys().collect::<Vec<_>>(), ["oauth"]);
    }

    #[test]
    fn fresh_keys_differ() {
        let (a, b) = (fresh_key(), fresh_key());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
