//! Method handlers of the era-neutral core.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::{json, Map, Value};

use crate::policy::auth::{Action, SharedAuthorize};
use crate::policy::paging::Cursors;
use crate::protocol::{codes, Implementation, RpcError};
use crate::registry::Catalog;

use super::{RequestContext, StateMap};

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
    pub(crate) tool_cursors: Cursors,
    pub(crate) authorize: SharedAuthorize,
    pub(crate) states: Arc<StateMap>,
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) list_cache: CacheHints,
    pub(crate) discover_cache: CacheHints,
    pub(crate) supported_versions: Vec<&'static str>,
}

impl Core {
    /// Whether `method` is served (known and its capability advertised).
    pub fn serves(&self, method: &str) -> bool {
        match method {
            "server/discover" => true,
            "tools/list" | "tools/call" => !self.catalog.tools().is_empty(),
            _ => false,
        }
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
        if !self.catalog.tools().is_empty() {
            caps.insert("tools".into(), json!({}));
        }
        Value::Object(caps)
    }

    /// Handle one request.
    pub async fn handle(&self, call: Call) -> Reply {
        match call.ctx.method() {
            "server/discover" => self.discover(),
            "tools/list" if self.serves("tools/list") => self.list_tools(&call.params),
            "tools/call" if self.serves("tools/call") => self.call_tool(call).await,
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

    fn list_tools(&self, params: &Map<String, Value>) -> Reply {
        let page = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => match self.tool_cursors.page_of(cursor) {
                Some(page) => page,
                None => {
                    return Reply::Error(
                        RpcError::invalid_params("Invalid cursor: it was not issued by this server's tools/list; list again without a cursor")
                            .with_data(json!({ "cursor": cursor })),
                    )
                }
            },
            Some(_) => return Reply::Error(RpcError::invalid_params("cursor must be a string")),
        };
        let mut body = Map::new();
        body.insert(
            "tools".into(),
            self.catalog
                .page(page)
                .cloned()
                .unwrap_or_else(|| json!([])),
        );
        if page + 1 < self.catalog.page_count() {
            if let Some(next) = self.tool_cursors.cursor_for(page + 1) {
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
        if let Err(denied) = self
            .authorize
            .check(
                &ctx,
                &Action::CallTool {
                    tool: tool.def,
                    arguments: &arguments,
                },
            )
            .await
        {
            tracing::info!(tool = %name, reason = %denied, "call refused by the Authorize hook");
            return Reply::Error(
                RpcError::new(
                    codes::ACCESS_DENIED,
                    format!("Access denied to tool {name}: {denied}"),
                )
                .with_data(json!({ "name": name, "reason": denied.reason() })),
            );
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
        match AssertUnwindSafe((tool.def.call)(ctx, arguments))
            .catch_unwind()
            .await
        {
            Ok(Ok(result)) => tool_result(result),
            Ok(Err(error)) => Reply::Error(error),
            Err(panic) => {
                let message = panic_message(&panic);
                tracing::error!(tool = %name, panic = %message, "tool handler panicked");
                Reply::Error(RpcError::internal(format!(
                    "Internal error: tool {name} failed unexpectedly"
                )))
            }
        }
    }
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
