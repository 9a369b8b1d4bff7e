//! Attribute macros for `mcp-runtime`. Depend on `mcp-runtime`, which re-exports them; the
//! generated code names `::mcp_runtime::__private` only.
//!
//! Each macro is a pipeline in its own folder: `parse` (tokens to syntax), `model` (what the
//! user declared), `validate` (wire rules checked at compile time) and `expand` (code).
//! Errors are collected, point at the offending token, and a stub is still emitted so one
//! mistake gives one message.
//!
//! Set `MCP_MACROS_DEBUG=1` while building to print every expansion to stderr.

mod docs;
mod errors;
mod tool;

use proc_macro::TokenStream;

/// Turns an async (or sync) function into an MCP tool. See `mcp_runtime` for the guide.
///
/// Options: `name = ".."`, `title = ".."`, `description = ".."` and the annotation flags
/// `read_only`, `destructive`, `idempotent`, `open_world` (each may also be `= false`).
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let output = tool::expand(attr.into(), item.into());
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{output}");
    }
    output.into()
}
