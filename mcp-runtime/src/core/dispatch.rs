//! Method handlers of the era-neutral core.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::{json, Map, Value};

use crate::policy::auth::{Action, CompleteTarget, SharedAuthorize};
use crate::policy::paging::Cursors;
use crate::protocol::{codes, Implementation, RpcError};
use crate::registry::{Catalog, Completer, Listing, ReadRequest};

use super::{Complete, RequestContext, StateMap};

pub use crate::policy::cache::CacheHints;

/// A request as the core sees it: context plus the method's params (without `_meta`).
pub struct Call {
    /// Who asks, how, and with which capabilities.
    pub ctx: RequestContext,
    /// The params object, `_meta` removed.
    pub params: Map<String, Value>,
}

/// The core's answer, before an era adapter gives it its wire shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A complete result; `cache` is set for cacheable results.
    Complete {
        /// Result members (no `resultType`, no `_meta`).
        body: Map<String, Value>,
        /// Freshness hints for cacheable results.
        cache: Option<CacheHints>,
    },
    /// A JSON-RPC error.
    Error(RpcError),
}

/// The era-neutral server: catalog, policies and the method handlers.
pub struct Core {
    pub(crate) catalog: Catalog,
    pub(crate) lists: Lists,
    pub(crate) authorize: SharedAuthorize,
    pub(crate) states: Arc<StateMap>,
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) list_cache: CacheHints,
    pub(crate) read_cache: CacheHints,
    pub(crate) discover_cache: CacheHints,
    pub(crate) supported_versions: Vec<&'static str>,
}

impl Core {
    /// Whether `method` is served (known and its capability advertised).
    pub fn serves(&self, method: &str) -> bool {
        match method {
            "server/discover" => true,
            "tools/list" | "tools/call" => self.has_tools(),
            "resources/list" | "resources/templates/list" | "resources/read" => {
                self.has_resources()
            }
            "prompts/list" | "prompts/get" => self.has_prompts(),
            "completion/complete" => self.has_completions(),
            _ => false,
        }
    }

    fn has_tools(&self) -> bool {
        !self.catalog.tools().is_empty()
    }

    fn has_resources(&self) -> bool {
        !self.catalog.resources().is_empty() || !self.catalog.templates().is_empty()
    }

    fn has_prompts(&self) -> bool {
        !self.catalog.prompts().is_empty()
    }

    /// Completion is served when some prompt or resource template declares a completer.
    fn has_completions(&self) -> bool {
        self.catalog
            .prompts()
            .iter()
            .any(|p| !p.def.completions.is_empty())
            || self
                .catalog
                .templates()
                .iter()
                .any(|t| !t.def.completions.is_empty())
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.info
    }

    /// Protocol versions this server accepts.
    pub fn supported_versions(&self) -> &[&'static str] {
        &self.supported_versions
    }

    /// Capabilities derived from what is registered.
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.has_tools() {
            caps.insert("tools".into(), json!({}));
        }
        if self.has_resources() {
            caps.insert("resources".into(), json!({}));
        }
        if self.has_prompts() {
            caps.insert("prompts".into(), json!({}));
        }
        if self.has_completions() {
            caps.insert("completions".into(), json!({}));
        }
        Value::Object(caps)
    }

    /// Handle one request.
    pub async fn handle(&self, call: Call) -> Reply {
        let method = call.ctx.method().to_owned();
        if !self.serves(&method) {
            return Reply::Error(RpcError::method_not_found(&method));
        }
        match method.as_str() {
            "server/discover" => self.discover(),
            "tools/list" => self.list(&self.lists.tools, &call.params),
            "tools/call" => self.call_tool(call).await,
            "resources/list" => self.list(&self.lists.resources, &call.params),
            "resources/templates/list" => self.list(&self.lists.templates, &call.params),
            "resources/read" => self.read_resource(call).await,
            "prompts/list" => self.list(&self.lists.prompts, &call.params),
            "prompts/get" => self.get_prompt(call).await,
            "completion/complete" => self.complete(call).await,
            other => Reply::Error(RpcError::method_not_found(other)),
        }
    }

    fn discover(&self) -> Reply {
        let mut body = Map::new();
        body.insert("supportedVersions".into(), json!(self.supported_versions));
        body.insert("capabilities".into(), self.capabilities());
        if let Some(instructions) = &self.instructions {
            body.insert("instructions".into(), Value::String(instructions.clone()));
        }
        Reply::Complete {
            body,
            cache: Some(self.discover_cache),
        }
    }

    fn list(&self, list: &PagedList, params: &Map<String, Value>) -> Reply {
        let page = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => match list.cursors.page_of(cursor) {
                Some(page) => page,
                None => {
                    return Reply::Error(
                        RpcError::invalid_params(format!(
                            "Invalid cursor: it was not issued by this server's {}; list again without a cursor",
                            list.method
                        ))
                        .with_data(json!({ "cursor": cursor })),
                    )
                }
            },
            Some(_) => return Reply::Error(RpcError::invalid_params("cursor must be a string")),
        };
        let mut body = Map::new();
        body.insert(
            list.field.into(),
            list.pages.get(page).cloned().unwrap_or_else(|| json!([])),
        );
        if page + 1 < list.pages.len() {
            if let Some(next) = list.cursors.cursor_for(page + 1) {
                body.insert("nextCursor".into(), Value::String(next.to_owned()));
            }
        }
        Reply::Complete {
            body,
            cache: Some(self.list_cache),
        }
    }

    async fn call_tool(&self, call: Call) -> Reply {
        let Call { ctx, mut params } = call;
        let name = match params.get("name") {
            Some(Value::String(name)) => name.clone(),
            _ => {
                return Reply::Error(RpcError::invalid_params(
                    "tools/call needs params.name, the tool's name as a string",
                ))
            }
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args,
            Some(_) => {
                return Reply::Error(RpcError::invalid_params(
                    "params.arguments must be a JSON object",
                ))
            }
        };
        let Some(tool) = self.catalog.get(&name) else {
            return Reply::Error(
                RpcError::invalid_params(format!("Unknown tool: {name}"))
                    .with_data(json!({ "name": name })),
            );
        };
        let action = Action::CallTool {
            tool: tool.def,
            arguments: &arguments,
        };
        if let Err(reply) = self.check(&ctx, &action, ("tool", &name)).await {
            return reply;
        }
        let args_value = Value::Object(arguments);
        if let Err(problems) = tool.validator.check(&args_value) {
            let text = format!(
                "Invalid arguments for tool `{name}`:\n- {}\nFix the arguments to match the tool's input schema and call it again.",
                problems.join("\n- ")
            );
            let result = crate::protocol::CallToolResult::error(text);
            return tool_result(result);
        }
        let arguments = match args_value {
            Value::Object(arguments) => arguments,
            _ => Map::new(),
        };
        match guarded(&format!("tool {name}"), (tool.def.call)(ctx, arguments)).await {
            Ok(result) => tool_result(result),
            Err(error) => Reply::Error(error),
        }
    }
}

impl Core {
    async fn read_resource(&self, call: Call) -> Reply {
        let Call { ctx, params } = call;
        let uri = match params.get("uri") {
            Some(Value::String(uri)) => uri.clone(),
            _ => {
                return Reply::Error(RpcError::invalid_params(
                    "resources/read needs params.uri, the resource's URI as a string",
                ))
            }
        };
        if uri.len() > crate::registry::uri::MAX_URI_BYTES {
            return Reply::Error(
                RpcError::invalid_params(format!(
                    "The URI is {} bytes long; at most {} are accepted",
                    uri.len(),
                    crate::registry::uri::MAX_URI_BYTES
                ))
                .with_data(json!({ "maxBytes": crate::registry::uri::MAX_URI_BYTES })),
            );
        }
        let Some((resource, uri_params)) = self.catalog.resolve(&uri) else {
            return Reply::Error(RpcError::resource_not_found(&uri));
        };
        let def = resource.def;
        if let Err(reply) = self
            .check(
                &ctx,
                &Action::ReadResource {
                    resource: def,
                    uri: &uri,
                },
                ("resource", &uri),
            )
            .await
        {
            return reply;
        }
        let request = ReadRequest {
            uri: uri.clone(),
            params: uri_params,
        };
        let contents = match guarded(&uri, (def.read)(ctx, request)).await {
            Ok(contents) => contents,
            Err(error) => return Reply::Error(error),
        };
        let mut body = Map::new();
        body.insert(
            "contents".into(),
            serde_json::to_value(contents).unwrap_or_else(|_| json!([])),
        );
        let hints = CacheHints {
            ttl: def
                .ttl_ms
                .map(std::time::Duration::from_millis)
                .unwrap_or(self.read_cache.ttl),
            scope: def.cache_scope.unwrap_or(self.read_cache.scope),
        };
        Reply::Complete {
            body,
            cache: Some(hints),
        }
    }

    async fn get_prompt(&self, call: Call) -> Reply {
        let Call { ctx, mut params } = call;
        let name = match params.get("name") {
            Some(Value::String(name)) => name.clone(),
            _ => {
                return Reply::Error(RpcError::invalid_params(
                    "prompts/get needs params.name, the prompt's name as a string",
                ))
            }
        };
        let Some(prompt) = self.catalog.prompt(&name) else {
            return Reply::Error(
                RpcError::invalid_params(format!("Unknown prompt: {name}"))
                    .with_data(json!({ "name": name })),
            );
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args,
            Some(_) => {
                return Reply::Error(RpcError::invalid_params(
                    "params.arguments must be an object of strings",
                ))
            }
        };
        if let Err(reply) = self
            .check(
                &ctx,
                &Action::GetPrompt {
                    prompt: prompt.def,
                    arguments: &arguments,
                },
                ("prompt", &name),
            )
            .await
        {
            return reply;
        }
        if let Err(error) = check_prompt_arguments(&prompt.prompt, &arguments) {
            return Reply::Error(error);
        }
        match guarded(&name, (prompt.def.get)(ctx, arguments)).await {
            Ok(result) => match serde_json::to_value(result) {
                Ok(Value::Object(body)) => Reply::Complete { body, cache: None },
                _ => Reply::Error(RpcError::internal(
                    "Internal error: the prompt could not be serialized",
                )),
            },
            Err(error) => Reply::Error(error),
        }
    }

    async fn complete(&self, call: Call) -> Reply {
        let Call { ctx, params } = call;
        let reference = params.get("ref").and_then(Value::as_object);
        let argument = params.get("argument").and_then(Value::as_object);
        let (Some(reference), Some(argument)) = (reference, argument) else {
            return Reply::Error(RpcError::invalid_params(
                "completion/complete needs params.ref ({type, name|uri}) and params.argument ({name, value})",
            ));
        };
        let (Some(arg_name), Some(value)) = (
            argument.get("name").and_then(Value::as_str),
            argument.get("value").and_then(Value::as_str),
        ) else {
            return Reply::Error(RpcError::invalid_params(
                "params.argument needs string fields name and value",
            ));
        };
        let (completers, known, target): (&[Completer], Vec<String>, CompleteTarget<'_>) =
            match reference.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => {
                    let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
                    let Some(prompt) = self.catalog.prompt(name) else {
                        return Reply::Error(
                            RpcError::invalid_params(format!("Unknown prompt: {name}"))
                                .with_data(json!({ "name": name })),
                        );
                    };
                    (
                        prompt.def.completions,
                        prompt
                            .prompt
                            .arguments
                            .iter()
                            .map(|a| a.name.clone())
                            .collect(),
                        CompleteTarget::Prompt(prompt.def),
                    )
                }
                Some("ref/resource") => {
                    let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
                    let Some(template) = self.catalog.template(uri) else {
                        return Reply::Error(
                            RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                                .with_data(json!({ "uri": uri })),
                        );
                    };
                    (
                        template.def.completions,
                        template
                            .def
                            .template
                            .iter()
                            .filter_map(|p| match p {
                                crate::registry::uri::Piece::Segment(n)
                                | crate::registry::uri::Piece::Rest(n) => Some((*n).to_owned()),
                                crate::registry::uri::Piece::Literal(_) => None,
                            })
                            .collect(),
                        CompleteTarget::Resource(template.def),
                    )
                }
                _ => {
                    return Reply::Error(RpcError::invalid_params(
                        "params.ref.type must be \"ref/prompt\" or \"ref/resource\"",
                    ))
                }
            };
        if !known.iter().any(|k| k == arg_name) {
            return Reply::Error(
                RpcError::invalid_params(if known.is_empty() {
                    format!("`{arg_name}` is not an argument here: there are none to complete")
                } else {
                    format!(
                        "`{arg_name}` is not an argument here (arguments: {})",
                        known.join(", ")
                    )
                })
                .with_data(json!({ "argument": arg_name })),
            );
        }
        let action = Action::Complete {
            target,
            argument: arg_name,
        };
        if let Err(reply) = self
            .check(&ctx, &action, ("completion of", action.name()))
            .await
        {
            return reply;
        }
        let completion = match completers.iter().find(|c| c.argument == arg_name) {
            None => crate::protocol::Completion::default(),
            Some(completer) => {
                let context = params
                    .get("context")
                    .and_then(|c| c.get("arguments"))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let request = Complete {
                    ctx,
                    argument: arg_name.to_owned(),
                    value: value.to_owned(),
                    context,
                };
                match guarded(arg_name, (completer.complete)(request)).await {
                    Ok(completion) => completion.bounded(),
                    Err(error) => return Reply::Error(error),
                }
            }
        };
        let mut body = Map::new();
        body.insert(
            "completion".into(),
            serde_json::to_value(completion).unwrap_or_else(|_| json!({"values": []})),
        );
        Reply::Complete { body, cache: None }
    }

    /// Run the `Authorize` hook; a refusal becomes the reply.
    async fn check(
        &self,
        ctx: &RequestContext,
        action: &Action<'_>,
        (kind, target): (&str, &str),
    ) -> Result<(), Reply> {
        match self.authorize.check(ctx, action).await {
            Ok(()) => Ok(()),
            Err(denied) => {
                tracing::info!(kind, target = %target, reason = %denied, "request refused by the Authorize hook");
                Err(Reply::Error(
                    RpcError::new(
                        codes::ACCESS_DENIED,
                        format!("Access denied to {kind} {target}: {denied}"),
                    )
                    .with_data(json!({ "name": target, "reason": denied.reason() })),
                ))
            }
        }
    }
}

/// Arguments of `prompts/get` must be strings, known, and cover the required ones.
fn check_prompt_arguments(
    prompt: &crate::protocol::Prompt,
    arguments: &Map<String, Value>,
) -> Result<(), RpcError> {
    let name = &prompt.name;
    if let Some((key, _)) = arguments.iter().find(|(_, v)| !v.is_string()) {
        return Err(RpcError::invalid_params(format!(
            "Argument `{key}` of prompt `{name}` must be a string"
        ))
        .with_data(json!({ "argument": key })));
    }
    if let Some(key) = arguments
        .keys()
        .find(|k| !prompt.arguments.iter().any(|a| &a.name == *k))
    {
        let known: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        return Err(RpcError::invalid_params(format!(
            "Prompt `{name}` has no argument `{key}` (arguments: {})",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ))
        .with_data(json!({ "argument": key })));
    }
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(RpcError::invalid_params(format!(
            "Prompt `{name}` is missing required argument(s): {}",
            missing.join(", ")
        ))
        .with_data(json!({ "missing": missing })));
    }
    Ok(())
}

/// Await a handler's future; a panic becomes -32603 for this request only.
async fn guarded<T>(
    target: &str,
    future: futures_util::future::BoxFuture<'static, Result<T, RpcError>>,
) -> Result<T, RpcError> {
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => {
            let message = panic_message(&panic);
            tracing::error!(target = %target, panic = %message, "handler panicked");
            Err(RpcError::internal(format!(
                "Internal error: {target} failed unexpectedly"
            )))
        }
    }
}

/// One list method's pages and cursors.
pub(crate) struct PagedList {
    method: &'static str,
    field: &'static str,
    pages: Vec<Value>,
    cursors: Cursors,
}

impl PagedList {
    pub(crate) fn new(
        sealer: &crate::policy::seal::Sealer,
        method: &'static str,
        field: &'static str,
        listing: Listing,
    ) -> Result<Self, String> {
        let cursors = Cursors::new(sealer, method, listing.pages.len(), listing.fingerprint)?;
        Ok(PagedList {
            method,
            field,
            pages: listing.pages,
            cursors,
        })
    }
}

/// The four list methods.
pub(crate) struct Lists {
    pub(crate) tools: PagedList,
    pub(crate) resources: PagedList,
    pub(crate) templates: PagedList,
    pub(crate) prompts: PagedList,
}

fn tool_result(result: crate::protocol::CallToolResult) -> Reply {
    match serde_json::to_value(result) {
        Ok(Value::Object(body)) => Reply::Complete { body, cache: None },
        _ => Reply::Error(RpcError::internal(
            "Internal error: the tool result could not be serialized",
        )),
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
