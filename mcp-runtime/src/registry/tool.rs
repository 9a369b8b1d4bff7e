//! The static description of one `#[tool]` function.

use futures_util::future::BoxFuture;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value};

use crate::core::RequestContext;
use crate::protocol::{CallToolResult, RpcError};

use super::view::Visibility;
use super::ParamSpec;

/// The future a tool call runs as.
pub type ToolFuture = BoxFuture<'static, Result<CallToolResult, RpcError>>;

/// A tool's own inline limit (`#[tool(inline_limit = ..)]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InlineLimit {
    /// The server's (`Server::inline_result_limit`).
    Server,
    /// Results larger than this many bytes, serialized, become artifacts.
    Bytes(usize),
    /// Results are always sent whole (`inline_limit = unlimited`).
    Unlimited,
}

impl InlineLimit {
    /// The limit that applies, given the server's.
    pub(crate) fn resolve(self, server: Option<usize>) -> Option<usize> {
        match self {
            InlineLimit::Server => server,
            InlineLimit::Bytes(n) => Some(n),
            InlineLimit::Unlimited => None,
        }
    }
}

/// Everything `#[tool]` knows about a function at compile time.
///
/// Built by the macro as a `static`; users do not construct it by hand.
#[derive(Debug)]
pub struct ToolDef {
    /// Wire name.
    pub name: &'static str,
    /// Display title.
    pub title: Option<&'static str>,
    /// The description the model reads (from the doc comment or `description = ".."`).
    pub description: &'static str,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
    /// `task` / `task = required`: whether the tool may, or must, run as a task (Tasks
    /// extension).
    pub task: TaskSupport,
    /// Single use: a `requestState` (a confirmation) is recorded as used before the
    /// handler runs and refused after (`destructive` tools, or `once`).
    pub once: bool,
    /// `idempotency`: the tool takes an `idempotencyKey` argument and runs at most once
    /// per key.
    pub idempotency: bool,
    /// `inline_limit = ..`: when its results are stored as an artifact instead of sent
    /// whole.
    pub inline_limit: InlineLimit,
    /// `scopes(..)`: OAuth scopes a caller needs; the server checks them before any
    /// `Authorize` hook.
    pub scopes: &'static [&'static str],
    /// `tags(..)`: labels a server enables, disables, shows and searches by.
    pub tags: &'static [&'static str],
    /// `version = ".."`: this definition is one version of the tool's name; the highest
    /// served version is listed and called unless a call pins another.
    pub version: Option<&'static str>,
    /// `ui = "ui://.."`: the view a host renders the tool's results in
    /// (`_meta.ui.resourceUri`, the MCP Apps extension).
    pub ui: Option<&'static str>,
    /// `visibility = model|app`: who may call it (`_meta.ui.visibility`).
    pub visibility: Visibility,
    /// `continues = "tool"`: its page cursors are those of that tool (which takes a
    /// `Cursor` too), so a cursor one of them returns opens in the other.
    pub continues: Option<&'static str>,
    /// `timeout = "30s"`: the longest a call may run, in place of the server's
    /// `call_timeout`; past it the handler is cancelled and the call answers a business
    /// error with the code `timeout`. A call running as a task is not bound by it.
    pub timeout: Option<std::time::Duration>,
    /// `concurrency = n`: at most this many calls of the tool run at once on an instance,
    /// whoever makes them (for a backend that takes no more).
    pub concurrency: Option<u32>,
    /// `queue = n`: with `concurrency`, how many more calls wait for a turn (default 16);
    /// a call past both is refused with -31429.
    pub queue: u32,
    /// `module_path!()` where the function is defined (used by `Server::only_module`).
    pub module_path: &'static str,
    /// Source file and line, for error messages about duplicates.
    pub file: &'static str,
    /// Source line.
    pub line: u32,
    /// Describes the parameters (arguments, extractors) into a [`ParamSpec`].
    pub params: fn(&mut ParamSpec),
    /// The output schema of the return type, when it has one.
    pub output_schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    /// What the return type's errors carry as structure.
    pub error_detail: fn(&mut SchemaGenerator) -> ErrorDetail,
    /// Runs the function: extracts parameters, awaits it, converts the return value.
    pub call: fn(RequestContext, Map<String, Value>) -> ToolFuture,
}

/// What a tool's business errors carry in `structuredContent` (`error.detail`), decided by
/// its return type's error type.
#[derive(Debug, Clone)]
pub enum ErrorDetail {
    /// No structure (the message only): `Result<T, String>`, `anyhow::Error`, ...
    None,
    /// Any JSON (`ToolError::with_detail`).
    Any,
    /// Detail of this schema (`Rejected<E>`).
    Typed(Schema),
}

/// Whether a tool runs as a task (the `io.modelcontextprotocol/tasks` extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never: every call answers synchronously (the default).
    Forbidden,
    /// `#[tool(task)]`: a call from a client that declares the extension may become a task
    /// (when the handler calls `ctx.start_task()`, or runs longer than the server's
    /// `task_after`); other clients get a synchronous answer.
    Optional,
    /// `#[tool(task = required)]`: only as a task; a client without the extension gets
    /// -32021 naming it.
    Required,
}

registered!(
    ToolDef,
    ToolRegistration,
    ToolItem,
    ToolRef,
    "#[tool]",
    "tools"
);
