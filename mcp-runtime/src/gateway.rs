//! Serving another MCP server's tools, prompts and resources as this server's own (feature
//! `client`): a gateway.
//!
//! An [`Upstream`] is another server reached through a [`Client`]: its tools, prompts and
//! resources are learned once at start ([`Upstream::discover`]) and
//! [`Server::mount`](crate::Server::mount) serves them: tools and prompts under a prefix
//! (`legacy.add` for the upstream `legacy`'s `add`), resources at their own URIs (only
//! their `name` is prefixed). Each call is forwarded to the upstream and its result,
//! `isError` included, comes back as it is (less the `_meta` keys under the protocol's
//! reserved prefixes, such as the upstream's `serverInfo`: this server writes its own),
//! checked as any tool's result is (a block the protocol does not allow fails the call);
//! so is each `prompts/get` and `resources/read`. What the upstream adds or removes later
//! is not followed: the gateway serves what it listed at start.
//!
//! The upstream's era is whatever its client negotiated: a 2026-07-28 caller of the gateway
//! is served statelessly even when the upstream only knows the `initialize` handshake.
//!
//! **Credentials are per caller, never shared.** A function given to
//! [`Upstream::discover`] maps the caller's [`Principal`] to a [`ClientBuilder`] with that
//! caller's upstream credentials (a bearer token, an environment variable of a spawned
//! process); the first call of each caller (its principal's tenant and subject) connects
//! a client of its own, kept for its later calls. Two callers never share a client, so never
//! each other's session, credentials or cache. A caller the function maps to `None` is
//! refused (-31403) before anything reaches the upstream.
//!
//! Not relayed in this version: the upstream's questions (elicitation, sampling, roots).
//! The gateway's upstream clients have no handler for them and declare no such capability,
//! so an upstream tool that asks fails upstream (in 2026-07-28 with -32021 naming what it
//! wanted; in the handshake era its question is answered with -32601), and the caller gets
//! an `isError` result carrying the upstream's message. Any other failure of a tool call
//! to reach or use the upstream (a process that exited, a timeout, a JSON-RPC error) is
//! also an `isError` result naming the tool and the error's layer. For `prompts/get` and
//! `resources/read`, an upstream protocol error keeps its code and any other failure is an
//! internal error. A connection that failed is opened again by the caller's next request.
//! Progress the upstream reports is relayed to a caller that asked for it.
//!
//! **The upstream is untrusted.** What it says of its tools (`annotations`: read-only,
//! destructive, idempotent, open-world) is its claim, and the gateway does not publish it
//! as its own: the hints are dropped, so callers see the specification's cautious defaults,
//! unless the operator vouches for the upstream with [`Upstream::trust_annotations`].
//! Each caller's upstream calls are bounded on top of the client's own limits: the bytes
//! an answer may take and a deadline per call ([`Upstream::limits`],
//! [`Upstream::timeout`]), and how many may be with the upstream at once
//! ([`Upstream::max_calls_per_caller`]); so one caller cannot exhaust the gateway. The
//! upstream clients never follow a redirect off the upstream's origin (see
//! [`Client`]), so the gateway cannot be led to call another server on a caller's behalf.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::{OnceCell, Semaphore};

use crate::client::{Client, ClientBuilder, ClientError, Layer, Limits};
use crate::core::Progress;
use crate::policy::auth::Denied;
use crate::protocol::codes;
use crate::server::setters;
use crate::{
    CallToolResult, GetPromptResult, Principal, RequestContext, ResourceContents, RpcError, Server,
};

/// The largest answer of the upstream a gateway takes by default: it is relayed to a
/// caller whole, so it is kept small.
const DEFAULT_MESSAGE_BYTES: usize = 4 << 20;
/// The default deadline of one upstream call.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default number of one caller's requests with the upstream at once.
const DEFAULT_CALLS_PER_CALLER: usize = 8;
/// The hints of a tool's `annotations` that are claims about its behaviour.
const HINTS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Maps a caller to the upstream client its calls use (`None`: the caller is refused).
type Connect = dyn Fn(Option<&Principal>) -> Option<ClientBuilder> + Send + Sync;

/// Who a client belongs to: the caller's tenant and subject (`None` for an anonymous
/// caller, when the mapping function accepts one).
type CallerKey = Option<(Option<String>, String)>;

/// Another MCP server whose tools a gateway serves: what it offers (learned at start) and
/// one client per caller. Made by [`Upstream::discover`], served by
/// [`Server::mount`](crate::Server::mount).
pub struct Upstream {
    prefix: String,
    tools: Vec<Value>,
    prompts: Vec<Value>,
    resources: Vec<Value>,
    templates: Vec<Value>,
    connect: Box<Connect>,
    quota: Quota,
    trust_annotations: bool,
}

/// What each caller's upstream calls may take of the gateway.
#[derive(Debug, Clone, Copy)]
struct Quota {
    limits: Limits,
    timeout: Duration,
    calls: usize,
}

impl Default for Quota {
    fn default() -> Self {
        Quota {
            limits: Limits::default().max_message_bytes(DEFAULT_MESSAGE_BYTES),
            timeout: DEFAULT_TIMEOUT,
            calls: DEFAULT_CALLS_PER_CALLER,
        }
    }
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("prefix", &self.prefix)
            .field("tools", &self.tools.len())
            .field("prompts", &self.prompts.len())
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .field("quota", &self.quota)
            .field("trust_annotations", &self.trust_annotations)
            .finish()
    }
}

/// The clients of one upstream, one per caller.
struct Callers {
    connect: Box<Connect>,
    clients: Mutex<HashMap<CallerKey, Arc<Slot>>>,
    quota: Quota,
}

/// One caller's client: connected by its first call (the builder waits here until then).
struct Slot {
    pending: Mutex<Option<ClientBuilder>>,
    client: OnceCell<Client>,
    /// One permit per request of this caller with the upstream.
    calls: Semaphore,
}

impl Upstream {
    /// Connect with `discovery` (the credentials used only to learn what the upstream
    /// offers), list its tools (and its prompts, resources and resource templates, when
    /// it declares the `prompts` or `resources` capability), and close that connection.
    /// Requests then go through the client `per_caller` builds for each caller: it gets the
    /// caller's principal (`None` for a request without one) and returns the builder of
    /// that caller's client, or `None` to refuse the caller. It runs at a caller's first
    /// request; the client it builds is kept for that caller's later requests and for no
    /// one else's (after a connection failed, it runs again at the caller's next request).
    ///
    /// `prefix` names the upstream in the served names: `prefix.tool`, `prefix.prompt`.
    /// The listing is bounded by the gateway's default quotas ([`Upstream::limits`],
    /// [`Upstream::timeout`]) where `discovery`'s own are looser. Errors: the upstream could
    /// not be reached, or would not list what it offers within those bounds.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::client::Client;
    /// use mcp_runtime::gateway::Upstream;
    /// use mcp_runtime::Server;
    ///
    /// let tokens = std::collections::HashMap::from([("acme", "token-of-acme")]);
    /// let upstream = Upstream::discover(
    ///     "crm",
    ///     Client::http("https://crm.example.com/mcp").bearer("discovery-token"),
    ///     move |caller| {
    ///         let token = tokens.get(caller?.tenant()?)?;
    ///         Some(Client::http("https://crm.example.com/mcp").bearer(token))
    ///     },
    /// )
    /// .await?;
    /// Server::new("gateway", "1.0.0").mount(upstream).serve_from_args().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn discover<F>(
        prefix: impl Into<String>,
        discovery: ClientBuilder,
        per_caller: F,
    ) -> Result<Upstream, ClientError>
    where
        F: Fn(Option<&Principal>) -> Option<ClientBuilder> + Send + Sync + 'static,
    {
        let quota = Quota::default();
        let client = discovery
            .at_most(quota.limits, quota.timeout)
            .connect()
            .await?;
        let listed = async {
            let tools = client.list_tools().await?;
            let prompts = if client.capabilities().get("prompts").is_some() {
                client.list_prompts().await?
            } else {
                Vec::new()
            };
            let (resources, templates) = if client.capabilities().get("resources").is_some() {
                (
                    client.list_resources().await?,
                    client.list_resource_templates().await?,
                )
            } else {
                (Vec::new(), Vec::new())
            };
            Ok::<_, ClientError>((tools, prompts, resources, templates))
        }
        .await;
        client.close().await;
        let (tools, prompts, resources, templates) = listed?;
        Ok(Upstream {
            prefix: prefix.into(),
            tools,
            prompts,
            resources,
            templates,
            connect: Box::new(per_caller),
            quota,
            trust_annotations: false,
        })
    }

    setters! {
        /// Bound what the upstream may send to each caller's client: the tighter of these and
        /// the [`Limits`] of the builder the caller's function returns apply. Default:
        /// [`Limits::default`] with [`max_message_bytes`](Limits::max_message_bytes) of 4 MiB,
        /// since every answer is relayed to a caller whole.
        fn limits(limits: Limits) => quota.limits = limits;

        /// The deadline of each upstream call (the tighter of this and the builder's
        /// [`timeout`](ClientBuilder::timeout)). Default: 60 seconds.
        fn timeout(timeout: Duration) => quota.timeout = timeout;

        /// How many requests of one caller may be with the upstream at once; one more is
        /// refused at once (-31429, with `data.retryAfterMs`), so no caller holds more of the
        /// gateway than this many answers in flight. Default: 8.
        fn max_calls_per_caller(calls: usize) => quota.calls = calls;

        /// Publish the upstream's tool hints (`readOnlyHint`, `destructiveHint`,
        /// `idempotentHint`, `openWorldHint`) as this gateway's own. Off by default: they are
        /// the upstream's claims, and a gateway that republished them would vouch for a server
        /// it does not control, so it drops them and its callers see the cautious defaults. Turn
        /// it on only for an upstream you operate or otherwise trust.
        fn trust_annotations(trust: bool) => trust_annotations = trust;
    }

    /// The prefix of the served names.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The upstream's tools as it listed them (names without the prefix).
    pub fn tools(&self) -> &[Value] {
        &self.tools
    }

    /// The upstream's prompts as it listed them (names without the prefix).
    pub fn prompts(&self) -> &[Value] {
        &self.prompts
    }

    /// The upstream's resources, then its resource templates, as it listed them.
    pub fn resources(&self) -> impl Iterator<Item = &Value> {
        self.resources.iter().chain(&self.templates)
    }
}

/// `entry` (a listed tool or prompt) renamed `prefix.name`; with its upstream name.
fn prefixed(prefix: &str, entry: Value) -> Option<(Value, String, String)> {
    let Value::Object(mut entry) = entry else {
        return None;
    };
    let name = entry.get("name").and_then(Value::as_str)?.to_owned();
    let served = format!("{prefix}.{name}");
    entry.insert("name".into(), Value::String(served.clone()));
    Some((Value::Object(entry), served, name))
}

/// `tool` as the gateway publishes it: without the upstream's behaviour hints unless they
/// are trusted (an annotation `title` is a display name, not a claim, and stays).
fn published(mut tool: Value, trust_annotations: bool) -> Value {
    if trust_annotations {
        return tool;
    }
    if let Some(Value::Object(annotations)) = tool.get_mut("annotations") {
        for hint in HINTS {
            annotations.remove(hint);
        }
        if annotations.is_empty() {
            if let Value::Object(tool) = &mut tool {
                tool.remove("annotations");
            }
        }
    }
    tool
}

impl Server {
    /// Serve the tools, prompts and resources of `upstream` (see [`Upstream::discover`])
    /// as this server's own, tools and prompts named `prefix.name`, resources at their own
    /// URIs; each call, `prompts/get` or `resources/read` is forwarded to the upstream with
    /// the caller's own client. They are dynamic tools, prompts and resources
    /// ([`Server::tool_from_json`], [`Server::prompt_from_json`],
    /// [`Server::resource_from_json`]): the upstream's input schemas and prompt arguments
    /// are checked here before anything is forwarded, and a served name that breaks the
    /// spec's rule or clashes with another (a URI two upstreams serve), or a `_meta` key
    /// of a definition off the spec's grammar, stops [`Server::build`]. A resource
    /// template of a form this server does not match (other than `{name}` segments and a
    /// final `{+name}`) is left out, with a warning in the log.
    pub fn mount(mut self, upstream: Upstream) -> Self {
        let callers = Arc::new(Callers {
            connect: upstream.connect,
            clients: Mutex::new(HashMap::new()),
            quota: upstream.quota,
        });
        let trust = upstream.trust_annotations;
        for (entry, served, name) in upstream
            .tools
            .into_iter()
            .filter_map(|t| prefixed(&upstream.prefix, published(t, trust)))
        {
            let callers = callers.clone();
            self = self.tool_from_json(entry, move |ctx, arguments| {
                let callers = callers.clone();
                let name = name.clone();
                let served = served.clone();
                async move { callers.forward(&ctx, &served, &name, arguments).await }
            });
        }
        for (entry, served, name) in upstream
            .prompts
            .into_iter()
            .filter_map(|p| prefixed(&upstream.prefix, p))
        {
            let callers = callers.clone();
            self = self.prompt_from_json(entry, move |ctx, arguments| {
                let callers = callers.clone();
                let name = name.clone();
                let served = served.clone();
                async move { callers.get_prompt(&ctx, &served, &name, arguments).await }
            });
        }
        for template in &upstream.templates {
            let text = template.get("uriTemplate").and_then(Value::as_str);
            if let Some(Err(problem)) = text.map(crate::registry::dynamic::parse_template) {
                tracing::warn!(upstream = %upstream.prefix, %problem, "resource template left out");
            }
        }
        let resources =
            upstream
                .resources
                .into_iter()
                .chain(upstream.templates.into_iter().filter(|t| {
                    t.get("uriTemplate")
                        .and_then(Value::as_str)
                        .is_some_and(|text| crate::registry::dynamic::parse_template(text).is_ok())
                }));
        for (entry, _, _) in resources.filter_map(|r| prefixed(&upstream.prefix, r)) {
            let callers = callers.clone();
            self = self.resource_from_json(entry, move |ctx, uri| {
                let callers = callers.clone();
                async move { callers.read(&ctx, &uri).await }
            });
        }
        self
    }
}

impl Slot {
    /// A place for one more of this caller's requests with the upstream, or the refusal of
    /// a caller who has `max` there already.
    fn admit(
        &self,
        target: &str,
        max: usize,
    ) -> Result<tokio::sync::SemaphorePermit<'_>, RpcError> {
        self.calls.try_acquire().map_err(|_| {
            RpcError::new(
                codes::RATE_LIMITED,
                format!(
                    "Too many upstream calls: {target} was refused because this caller already has {max} request(s) with the upstream server. Retry when one has finished."
                ),
            )
            .with_data(json!({"retryAfterMs": 100, "reason": "upstream-concurrency", "maxConcurrent": max}))
        })
    }
}

impl Callers {
    /// The caller's client: the one already made for it, or a new one. `None`: the
    /// mapping function refuses the caller.
    async fn client(
        &self,
        key: &CallerKey,
        principal: Option<&Principal>,
    ) -> Result<Option<(Arc<Slot>, Client)>, ClientError> {
        let slot = {
            let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
            match clients.get(key) {
                Some(slot) => slot.clone(),
                None => {
                    // A refused caller leaves no entry behind.
                    let Some(builder) = (self.connect)(principal) else {
                        return Ok(None);
                    };
                    let slot = Arc::new(Slot {
                        pending: Mutex::new(Some(builder)),
                        client: OnceCell::new(),
                        calls: Semaphore::new(self.quota.calls),
                    });
                    clients.insert(key.clone(), slot.clone());
                    slot
                }
            }
        };
        let client = slot
            .client
            .get_or_try_init(|| async {
                let pending = slot
                    .pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .take();
                // After a failed connection the builder is spent: ask for a new one.
                let quota = self.quota;
                match pending.or_else(|| (self.connect)(principal)) {
                    Some(builder) => builder.at_most(quota.limits, quota.timeout).connect().await,
                    None => Err(ClientError::Transport {
                        message: "no upstream credentials for this caller".into(),
                        status: None,
                    }),
                }
            })
            .await?
            .clone();
        Ok(Some((slot, client)))
    }

    /// Forget a caller's client whose connection failed, unless it was replaced already.
    fn forget(&self, key: &CallerKey, slot: &Arc<Slot>) {
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if clients.get(key).is_some_and(|kept| Arc::ptr_eq(kept, slot)) {
            clients.remove(key);
        }
    }

    /// The caller's key, slot and client for a request about `served` (a `kind`); `Err`:
    /// the caller is refused (-31403), or the reason its client could not connect.
    async fn caller(
        &self,
        ctx: &RequestContext,
        kind: &str,
        served: &str,
    ) -> Result<(CallerKey, Arc<Slot>, Client), Result<ClientError, RpcError>> {
        let principal = ctx.principal();
        let key = principal.map(|p| (p.tenant().map(str::to_owned), p.subject.clone()));
        match self.client(&key, principal).await {
            Ok(Some((slot, client))) => Ok((key, slot, client)),
            Ok(None) => Err(Err(Denied::new(
                "this caller has no credentials for the upstream server",
            )
            .to_error(kind, served))),
            Err(error) => Err(Ok(error)),
        }
    }

    /// After a failed request: forget the caller's client when its connection is gone.
    fn failed(&self, key: &CallerKey, slot: &Arc<Slot>, error: &ClientError) {
        if error.layer() == Layer::Transport && !matches!(error, ClientError::Timeout { .. }) {
            self.forget(key, slot);
        }
    }

    /// One `prompts/get` or `resources/read` (a `kind`, about `target`; `what` names it in
    /// messages), forwarded with the caller's client once the caller is admitted: the
    /// upstream's answer, or the error to answer with. Upstream protocol errors keep their
    /// code; a failed connection is an internal error, and the caller's client is
    /// forgotten when its connection is gone.
    async fn relay(
        &self,
        ctx: &RequestContext,
        kind: &str,
        target: &str,
        what: &str,
        request: impl FnOnce(&Client) -> crate::client::Request,
    ) -> Result<Value, RpcError> {
        let unreachable = |error: &ClientError| {
            RpcError::internal(format!(
                "The upstream server of {what} failed ({} error): {error}",
                error.layer()
            ))
        };
        let (key, slot, client) = match self.caller(ctx, kind, target).await {
            Ok(found) => found,
            Err(Ok(error)) => return Err(unreachable(&error)),
            Err(Err(refused)) => return Err(refused),
        };
        let _in_flight = slot.admit(target, self.quota.calls)?;
        request(&client).await.map_err(|error| {
            self.failed(&key, &slot, &error);
            upstream_error(error, unreachable)
        })
    }

    /// One `prompts/get` of `served` (upstream name `name`), forwarded with the caller's
    /// client.
    async fn get_prompt(
        &self,
        ctx: &RequestContext,
        served: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, RpcError> {
        let what = format!("prompt `{served}`");
        let result = self
            .relay(ctx, "prompt", served, &what, |client| {
                client.get_prompt(name, Value::Object(arguments))
            })
            .await?;
        serde_json::from_value(result).map_err(|e| {
            RpcError::internal(format!(
                "The upstream server's result for prompt `{served}` could not be read: {e}"
            ))
        })
    }

    /// One `resources/read` of `uri`, forwarded with the caller's client.
    async fn read(
        &self,
        ctx: &RequestContext,
        uri: &str,
    ) -> Result<Vec<ResourceContents>, RpcError> {
        let what = format!("resource {uri}");
        let result = self
            .relay(ctx, "resource", uri, &what, |client| {
                client.read_resource(uri)
            })
            .await?;
        result
            .get("contents")
            .cloned()
            .and_then(|contents| serde_json::from_value(contents).ok())
            .ok_or_else(|| {
                RpcError::internal(format!(
                    "The upstream server's contents of {uri} could not be read"
                ))
            })
    }

    /// One call of `served` (upstream name `name`), forwarded with the caller's client.
    async fn forward(
        &self,
        ctx: &RequestContext,
        served: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, RpcError> {
        let (key, slot, client) = match self.caller(ctx, "tool", served).await {
            Ok(found) => found,
            Err(Err(refused)) => return Err(refused),
            Err(Ok(error)) => {
                return Ok(CallToolResult::error(format!(
                    "The upstream server of `{served}` could not be reached: {error}"
                )))
            }
        };
        let _in_flight = slot.admit(served, self.quota.calls)?;
        let mut request = client.call_tool(name, Value::Object(arguments));
        let progress = Progress::new(ctx.clone());
        if progress.is_requested() {
            request = request.on_progress(move |params| {
                let Some(done) = params.get("progress").and_then(Value::as_f64) else {
                    return;
                };
                let total = params.get("total").and_then(Value::as_f64);
                match params.get("message").and_then(Value::as_str) {
                    Some(message) => progress.report_with(done, total, message),
                    None => progress.report(done, total),
                }
            });
        }
        let answer = match request.await {
            Ok(result) | Err(ClientError::Business(result)) => result,
            Err(ClientError::InputUnanswered { method, .. }) => {
                return Ok(CallToolResult::error(format!(
                    "`{served}` asked a question ({method}) that this gateway does not relay; the call did not complete"
                )))
            }
            Err(error) => {
                self.failed(&key, &slot, &error);
                return Ok(CallToolResult::error(format!(
                    "The upstream server failed on `{served}` ({} error): {error}",
                    error.layer()
                )));
            }
        };
        let mut result: CallToolResult = match serde_json::from_value(answer) {
            Ok(result) => result,
            Err(e) => {
                return Ok(CallToolResult::error(format!(
                    "The upstream server's result for `{served}` could not be read: {e}"
                )))
            }
        };
        // The protocol's own keys (the upstream's `serverInfo`, ..) belong to the
        // upstream's answer to this gateway; this server writes its own to its caller, and
        // a handler's result may carry none of them.
        if let Some(meta) = &mut result.meta {
            meta.retain(|key, _| !crate::protocol::checks::reserved(key));
            if meta.is_empty() {
                result.meta = None;
            }
        }
        Ok(result)
    }
}

/// An upstream protocol error keeps its code, message and data (a resource not found
/// upstream is not found here either); any other failure is `otherwise`'s.
fn upstream_error(error: ClientError, otherwise: impl Fn(&ClientError) -> RpcError) -> RpcError {
    match error {
        ClientError::Mcp {
            code,
            message,
            data,
        } => {
            let error = RpcError::new(code, message);
            match data {
                Some(data) => error.with_data(data),
                None => error,
            }
        }
        other => otherwise(&other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An upstream already discovered, whose callers are all refused.
    fn discovered(templates: Vec<Value>) -> Upstream {
        Upstream {
            prefix: "up".into(),
            tools: vec![json!({"name": "add", "inputSchema": {"type": "object"}})],
            prompts: Vec::new(),
            resources: Vec::new(),
            templates,
            connect: Box::new(|_| None),
            quota: Quota::default(),
            trust_annotations: false,
        }
    }

    #[test]
    fn a_template_of_another_form_is_left_out_and_the_rest_is_mounted() {
        let upstream = discovered(vec![
            json!({"uriTemplate": "docs://search{?q}", "name": "search"}),
            json!({"uriTemplate": "docs://pages/{id}", "name": "page"}),
        ]);
        let app = Server::new("gateway", "1")
            .only(Vec::<crate::ToolRef>::new())
            .mount(upstream)
            .build()
            .expect("the gateway builds");
        let snapshot = app.core.live.load();
        let templates: Vec<&str> = snapshot
            .catalog
            .templates()
            .iter()
            .map(|t| t.published.as_str())
            .collect();
        assert_eq!(templates, ["docs://pages/{id}"]);
        assert_eq!(
            snapshot.catalog.templates()[0].entry["name"],
            "up.page",
            "the name is prefixed, the URI is not"
        );
        assert!(snapshot.catalog.get("up.add").is_some());
    }
}
