//! The extensions this crate serves, by the names a client declares them under in its
//! capabilities (`extensions: {"<name>": {..}}`) and a server announces them under.
//!
//! Both eras read these names (the modern era on each request, the handshake era to leave
//! out what its revisions do not define), and the core announces and checks them, so they
//! are written once, here.

use serde_json::{json, Map, Value};

use super::RpcError;

/// Long-running tools (a call answered with a task handle; `tasks/get`, `tasks/update`,
/// `tasks/cancel`).
pub(crate) const TASKS: &str = "io.modelcontextprotocol/tasks";

/// MCP Apps (SEP-1865): views, HTML documents a host renders beside a tool's result.
pub(crate) const UI: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's contents, which a client taking views lists in the
/// [`UI`] extension's `mimeTypes`.
pub(crate) const UI_MIME: &str = "text/html;profile=mcp-app";

/// -32021 naming the extension `name` as a client declares it (`declaration`): a request
/// that needs it came from a client that did not declare it.
pub(crate) fn missing(name: &str, declaration: Value) -> RpcError {
    let mut extensions = Map::new();
    extensions.insert(name.into(), declaration);
    RpcError::missing_capability(json!({ "extensions": extensions }))
}

/// -32021 naming the [`TASKS`] extension.
pub(crate) fn missing_tasks() -> RpcError {
    missing(TASKS, json!({}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_extension_as_declared() {
        let refused = missing_tasks();
        assert_eq!(
            (refused.code, refused.data),
            (
                -32021,
                Some(json!({"requiredCapabilities": {"extensions": {TASKS: {}}}}))
            )
        );
    }
}
