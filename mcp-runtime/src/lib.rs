// The crate's front page (docs.rs) is its README (crates.io), so the two cannot drift; its
// examples run as doc tests.
#![doc = include_str!("../README.md")]
// On docs.rs (which builds with `--cfg docsrs` on nightly), every item behind a cargo
// feature is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Nothing a client sends may panic the server: no unwrap, expect, panic or unchecked
// indexing outside tests (clippy enforces it; a handler's own panic is caught per call).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::string_slice,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

#[cfg(feature = "client")]
pub mod client;
mod clock;
pub(crate) mod core;
pub(crate) mod era;
#[cfg(feature = "client")]
pub mod gateway;
mod metrics;
mod observe;
#[cfg(feature = "otel")]
mod otel;
pub mod policy;
pub mod process;
#[cfg(test)]
mod props;
pub mod protocol;
pub(crate) mod registry;
mod server;
/// Serving an OpenAPI document's operations as tools, without generating code (feature
/// `openapi`): read the document into [`OpenApiTools`](openapi::OpenApiTools), give it
/// the API's base URL and this deployment's credentials, and hand it to
/// [`Server::openapi`]. The mapping is the one `mcp openapi` generates code from, so both
/// serve the same tools; see the book's "From an existing API".
#[cfg(feature = "openapi")]
pub mod openapi {
    pub use crate::server::openapi::{OpenApiTools, Secret};
    pub use mcp_openapi::{Api, Curation, Error};
}
/// The audit trail of calls ([`Server::audit`]): the record of each `tools/call`,
/// `resources/read` and `prompts/get`, with the arguments' secrets redacted, and the
/// sinks it goes to; see the book's "Layers".
pub mod audit {
    pub use crate::core::audit::{AuditLog, AuditRecord, AuditSink, StoreAudit};
}
/// Layers around calls: `tower` layers over the service that runs one `tools/call`,
/// `resources/read` or `prompts/get`, added with [`Server::layer`] and
/// [`Server::layer_if`], and the response cache ([`Server::cache_responses`]); see the
/// book's "Layers".
pub mod layers {
    pub use crate::core::layers::{Call, CallKind, CallLayer, CallService, Outcome};
    pub use crate::core::response_cache::ResponseCache;
}
/// Calling other APIs as the caller (feature `oauth`): a handler asks for a token with
/// [`RequestContext::downstream`], obtained by token exchange (RFC 8693) with the caller's
/// own token ([`TokenExchange`](downstream::TokenExchange), given to
/// [`Server::exchange_tokens`]) or from the account the caller connected
/// ([`Accounts`](downstream::Accounts), given to [`Server::accounts`]). The caller's own
/// token is never sent to another API.
#[cfg(feature = "oauth")]
pub mod downstream {
    pub use crate::core::downstream::{
        AccountProvider, Accounts, ConnectedAccount, Downstream, DownstreamError, DownstreamToken,
        UserCheck,
    };
    pub use crate::policy::exchange::TokenExchange;
    pub use crate::policy::token_endpoint::ClientAuth;
}
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;
pub(crate) mod transport;
pub mod validate;

/// Turns an async (or sync) function into an MCP tool. See the crate docs and the book.
pub use mcp_runtime_macros::tool;

/// Turns an async (or sync) function into an MCP resource or resource template:
/// `#[resource("orders://<id>")]`. See the book's "Resources" chapter.
pub use mcp_runtime_macros::resource;

/// Turns an async (or sync) function into an MCP prompt. See the book's "Prompts" chapter.
pub use mcp_runtime_macros::prompt;

/// Turns a function returning an HTML document into a view of the MCP Apps extension:
/// `#[view("ui://orders/board")]`, named by tools with `#[tool(ui = "ui://orders/board")]`.
/// See the book's "Views" chapter.
pub use mcp_runtime_macros::view;

/// The view bridge: a small script in plain JavaScript that lets the page of a [`view`]
/// talk to the host that renders it, with no build step, no Node and no SDK.
///
/// A view's page runs in a sandboxed frame of the host and speaks the MCP Apps protocol
/// (2026-01-26) with it: JSON-RPC 2.0 messages over `window.parent.postMessage`. This
/// script speaks it for the page. Inline it in the document the view returns, in a
/// `<script>` element of its own before the page's script (a page cannot load it from
/// elsewhere: the host's Content Security Policy allows no outside script unless the view
/// declares its origin). It contains neither `</script` nor `<!--`, so it can be inlined as
/// it is. It defines one global, `mcpView`:
///
/// ```js
/// const view = await mcpView.connect({ name: 'greeting', version: '1.0.0' });
/// view.onToolResult((result) => show(result.structuredContent));
/// const next = await view.callTool('greet', { name: 'Ferris' }); // through the host
/// ```
///
/// - `mcpView.connect({ name, version, timeoutMs, autoResize })`: the handshake
///   (`ui/initialize`, then `ui/notifications/initialized`); resolves to the view's
///   connection, with the host's answer in `hostContext` (theme, locale, time zone,
///   dimensions..), `hostInfo`, `hostCapabilities` and `protocolVersion`. One connection
///   per page; rejects when the host does not answer within `timeoutMs` (10 s).
/// - `onToolInput(fn)`, `onToolResult(fn)`: the arguments and the result (a
///   `CallToolResult`: `content`, `structuredContent`, `isError`) of the tool call the
///   view shows; a handler set after its notification came is called with the last one.
///   Also `onToolCancelled(fn)`, `onContextChange(fn)` and `onTeardown(fn)`.
/// - `callTool(name, args, { timeoutMs })`: `tools/call` through the host, which passes
///   it to this server; resolves to the result (a tool's error is a result with
///   `isError: true`), rejects with an `Error` when the host refuses or does not answer
///   within `timeoutMs` (60 s).
/// - `request(method, params, { timeoutMs })` and `notify(method, params)`: any other
///   message of the protocol (`ui/open-link`, `notifications/message`, ..).
/// - `sendSize()`: `ui/notifications/size-changed` with the page's size; sent by itself
///   whenever the size changes, unless `autoResize` is `false`.
///
/// It ignores messages that do not come from `window.parent`, and hands what the host
/// sends to the page as values: it evaluates none and writes none into the document.
/// See the book's "Views" chapter, "Writing the page", for the messages it exchanges.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// const PAGE: &str = r#"<!DOCTYPE html>
/// <html><body><p id="greeting">…</p>
/// <script>/*VIEW_BRIDGE_JS*/</script>
/// <script type="module">
///   const view = await mcpView.connect({ name: 'greeting', version: '1.0.0' });
///   view.onToolResult((result) => {
///     document.getElementById('greeting').textContent = result.structuredContent.message;
///   });
/// </script>
/// </body></html>"#;
///
/// /// A greeting, shown.
/// #[view("ui://hello/greeting")]
/// fn greeting_page() -> String {
///     PAGE.replace("/*VIEW_BRIDGE_JS*/", mcp_runtime::VIEW_BRIDGE_JS)
/// }
/// # fn main() {
/// #     assert!(greeting_page().contains(mcp_runtime::VIEW_BRIDGE_JS));
/// # }
/// ```
pub const VIEW_BRIDGE_JS: &str = include_str!("views/bridge.js");

pub use crate::core::returns::tool::{IntoToolResult, Json};
pub use crate::core::search::ToolSearch;
pub use crate::core::{
    Args, Artifact, ArtifactError, ArtifactLink, Cancellation, ClientCapabilities,
    CompletionRequest, Cursor, Elicitation, Error, FromContext, FromUriParam, HeaderArg,
    InputRequired, IntoCompletion, IntoContents, IntoPromptResult, Log, Page, Progress,
    PromptParam, Rejected, RequestContext, ServerHandle, State, ToolError, ToolParam, Transport,
};
pub use crate::policy::auth::{Action, Authorize, CompletionTarget, Denied, Listed};
pub use crate::policy::principal::{Principal, Tenant};
pub use crate::policy::seal::SealKey;
pub use crate::protocol::cache::{CacheHints, CacheScope};
pub use crate::protocol::{
    CallToolResult, Completion, Content, GetPromptResult, PromptMessage, ResourceContents,
    RpcError, SamplingRequest, StructuredContent,
};
pub use crate::registry::{BuildError, PromptRef, ResourceRef, ToolRef};
pub use crate::server::{App, Server};

/// What most servers need in one import.
pub mod prelude {
    pub use crate::policy::auth::AuthorizeExt;
    pub use crate::{
        prompt, prompts, resource, resources, tool, tools, view, Action, Args, Authorize,
        CacheHints, CacheScope, CallToolResult, Cancellation, Completion, CompletionRequest,
        Content, Denied, Elicitation, GetPromptResult, InputRequired, Json, Log, Principal,
        Progress, PromptMessage, Rejected, RequestContext, ResourceContents, RpcError,
        SamplingRequest, Server, State, StructuredContent, Tenant, ToolError,
    };
}

/// Names tools by path for [`Server::only`]: `tools![add, billing::refund]`.
#[macro_export]
macro_rules! tools {
    ($($path:path),* $(,)?) => {
        [$($crate::ToolRef::of::<$path>()),*]
    };
}

/// Names resources by path for [`Server::only_resources`]: `resources![order, files::file]`.
#[macro_export]
macro_rules! resources {
    ($($path:path),* $(,)?) => {
        [$($crate::ResourceRef::of::<$path>()),*]
    };
}

/// Names prompts by path for [`Server::only_prompts`]: `prompts![review, support::triage]`.
#[macro_export]
macro_rules! prompts {
    ($($path:path),* $(,)?) => {
        [$($crate::PromptRef::of::<$path>()),*]
    };
}

/// Used by generated code only; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::core::returns::tool::{
        tag_of, DescribedOutput, FailureDisplay, FailureExplicit, FailureUnsupported,
        OutputExplicit, OutputStructured, OutputUnschemed, OutputUnsupported, SendableOutput,
        SplitPlain, SplitResult, Tag, ToolErrorMessage,
    };
    pub use crate::core::returns::{
        RpcErrorMessage, RpcFailureDisplay, RpcFailureExplicit, RpcFailureUnsupported,
    };
    pub use crate::core::{
        CallParts, CompletionRequest, ConstraintsDerived, ConstraintsUnread, FromContext,
        FromUriParam, IntoCompletion, IntoContents, IntoPromptResult, PromptParam, PromptParts,
        RequestContext, ToolParam,
    };
    pub use crate::protocol::cache::CacheScope;
    pub use crate::protocol::{
        CallToolResult, Completion, GetPromptResult, ResourceContents, Role, RpcError,
    };
    pub use crate::registry::uri::Piece;
    pub use crate::registry::InlineLimit;
    pub use crate::registry::{
        CompleteFuture, Completer, ErrorDetail, ParamSpec, PromptDef, PromptFuture, PromptItem,
        PromptRegistration, ReadFuture, ReadRequest, ResourceDef, ResourceItem,
        ResourceRegistration, TaskSupport, ToolDef, ToolItem, ToolRegistration,
    };
    pub use crate::registry::{Permissions, ViewDef, Visibility};

    /// The marker of one view URI (`N` is a hash of it, computed by the macros).
    pub struct ViewUri<const N: u128>;

    /// Implemented by `#[view]` once for its URI's [`ViewUri`], with a type of its own as
    /// `M`, so a tool naming the URI can infer `M` from the one implementation.
    #[diagnostic::on_unimplemented(
        message = "no `#[view]` declares the URI this tool's `ui` names",
        label = "declare it with `#[view(\"ui://..\")]` on the function that returns the view's HTML",
        note = "a tool's `ui` names a `#[view]` of this crate (in any module) by its exact URI"
    )]
    pub trait ViewDeclared<M> {}

    // A second implementation, for a marker no URI hashes to: with one implementation
    // only, rustc's error for a URI no view declares points at it, marker numbers and all;
    // with two, it lists the implementations, and lists none not to be recommended.
    #[diagnostic::do_not_recommend]
    impl ViewDeclared<()> for ViewUri<0> {}

    /// Compiles only when one `#[view]` declares the URI `U` stands for.
    pub fn view_declared<M, U: ViewDeclared<M>>() {}
    pub use futures_util::future::BoxFuture;
    pub use inventory;
    pub use schemars::{self, Schema, SchemaGenerator};
    pub use serde;
    pub use serde_json::{self, Map, Value};

    /// A tool argument of type `T` with `#[schemars(..)]` on its parameter; `wrapper` is the
    /// schema of the one-field struct the macro derives with those attributes.
    pub fn constrained_argument<T: serde::de::DeserializeOwned>(
        spec: &mut ParamSpec,
        name: &'static str,
        description: Option<&'static str>,
        wrapper: Option<fn(&mut SchemaGenerator) -> Schema>,
    ) {
        spec.constrained_argument::<T>(name, description, wrapper);
    }

    /// `#[header("..")]` on a tool argument of type `T` (checked here, at the user's type).
    pub fn mirror_argument<T: crate::HeaderArg>(
        spec: &mut ParamSpec,
        name: &'static str,
        header: &'static str,
    ) {
        spec.mirror(name, header);
    }

    /// Box a tool's future.
    pub fn boxed<F>(future: F) -> BoxFuture<'static, Result<CallToolResult, RpcError>>
    where
        F: std::future::Future<Output = Result<CallToolResult, RpcError>> + Send + 'static,
    {
        Box::pin(future)
    }

    /// Box a resource read's future.
    pub fn boxed_read<F>(future: F) -> ReadFuture
    where
        F: std::future::Future<Output = Result<Vec<ResourceContents>, RpcError>> + Send + 'static,
    {
        Box::pin(future)
    }

    /// Box a prompt's future.
    pub fn boxed_prompt<F>(future: F) -> PromptFuture
    where
        F: std::future::Future<Output = Result<GetPromptResult, RpcError>> + Send + 'static,
    {
        Box::pin(future)
    }

    /// Box a completer's future.
    pub fn boxed_complete<F>(future: F) -> CompleteFuture
    where
        F: std::future::Future<Output = Result<Completion, RpcError>> + Send + 'static,
    {
        Box::pin(future)
    }

    /// -32602 for a URI variable that does not parse as the parameter's type.
    pub fn bad_uri_param(uri: &str, name: &str, reason: String) -> RpcError {
        RpcError::invalid_params(format!(
            "Invalid URI {uri}: `{name}` could not be parsed: {reason}"
        ))
        .with_data(serde_json::json!({ "uri": uri, "parameter": name, "reason": reason }))
    }
}

#[cfg(test)]
mod view_bridge_tests {
    use super::VIEW_BRIDGE_JS;

    /// A page inlines the bridge as it is: nothing in it may end the `<script>` element or
    /// change how the rest of it is parsed.
    #[test]
    fn the_bridge_can_be_inlined_in_a_script_element() {
        let lower = VIEW_BRIDGE_JS.to_ascii_lowercase();
        assert!(!lower.contains("</script"), "the bridge holds </script");
        assert!(!lower.contains("<!--"), "the bridge holds <!--");
    }

    /// It runs nothing it is sent and writes nothing it is sent into the document.
    #[test]
    fn the_bridge_neither_evaluates_nor_writes_markup() {
        for word in [
            "eval(",
            "Function(",
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "srcdoc",
        ] {
            assert!(!VIEW_BRIDGE_JS.contains(word), "the bridge uses {word}");
        }
    }

    /// Small enough to read in one sitting, and it speaks the protocol the host expects.
    #[test]
    fn the_bridge_is_small_and_speaks_mcp_apps() {
        let lines = VIEW_BRIDGE_JS.lines().count();
        assert!(lines < 200, "the bridge has {lines} lines");
        for needle in [
            "globalThis.mcpView",
            "'2026-01-26'",
            "'ui/initialize'",
            "'ui/notifications/initialized'",
            "'ui/notifications/tool-input'",
            "'ui/notifications/tool-result'",
            "'tools/call'",
            "'ui/notifications/size-changed'",
            "event.source !== host",
        ] {
            assert!(VIEW_BRIDGE_JS.contains(needle), "the bridge lacks {needle}");
        }
    }
}
