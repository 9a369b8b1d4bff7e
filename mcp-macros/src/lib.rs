//! Attribute macros for `mcp-runtime`: `#[tool]`, `#[resource]`, `#[view]` and `#[prompt]`. Depend on
//! `mcp-runtime`, which re-exports them; the generated code names
//! `::mcp_runtime::__private` only.
//!
//! Each macro is the same pipeline (run by `stages`) in its own folder: `parse` (tokens to syntax), `model`
//! (what the user declared, each option read into a typed field), `validate` (the rules
//! between fields and the wire rules, checked at compile time) and `expand` (code). Shared
//! pieces: `options` (option keys, values and hints), `name` (the tool and prompt name
//! rule), `sig` (signatures and parameters), `uri` (resource URI templates), `docs`,
//! `register` (the code around every macro's glue) and `errors`. Errors are collected in
//! `errors::Errors`, point at the offending token, and a stub is still emitted so one
//! mistake gives one message.
//!
//! Set `MCP_MACROS_DEBUG=1` while building to print every expansion to stderr.

mod docs;
mod errors;
mod name;
mod options;
mod prompt;
mod register;
mod resource;
mod sig;
mod stages;
mod tool;
mod uri;
mod view;

use proc_macro::TokenStream;

/// Turns an async (or sync) function into an MCP tool. See `mcp_runtime` for the guide.
///
/// Options: `name = ".."`, `title = ".."`, `description = ".."` and the annotation flags
/// `read_only`, `destructive`, `idempotent`, `open_world` (each may also be `= false`);
/// `output_schema = false` sends a `Serialize` return value as `structuredContent` without
/// an `outputSchema` (without it, a return type that is `Serialize` but not `JsonSchema` is
/// a compile error).
///
/// Views (the MCP Apps extension): `ui = "ui://.."` names the `#[view]` a host renders the
/// results in (a URI no `#[view]` declares is a compile error at the literal);
/// `visibility = model`, `app` or `[model, app]` (the default) says who may call it;
/// `continues = "tool"` shares that tool's page cursors (both take a `Cursor`).
///
/// A parameter's doc comment is its argument's `description`, and its `#[schemars(..)]`
/// attributes (`range(min = 1)`, `length(max = 64)`, ..) constrain the argument's schema,
/// as on a derived struct's field. A parameter marked `#[header("Region")]` is mirrored
/// into the `Mcp-Param-Region` HTTP header (`x-mcp-header` in the input schema) for
/// gateways; its type must implement `mcp_runtime::HeaderArg`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug(tool::expand(attr.into(), item.into())).into()
}

/// Turns an async (or sync) function into an MCP resource or resource template.
///
/// `#[resource("orders://<id>")]`: `<name>` matches one path segment and `<name..>` the rest
/// of the URI; each binds to the parameter of the same name. Options: `name`, `title`,
/// `description`, `mime`, `size`, `audience`, `priority`, `ttl = "30s"`,
/// `cache = public|private`, `complete(var = completer_fn)`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug(resource::expand(attr.into(), item.into())).into()
}

/// Turns a function that returns an HTML document into a view of the MCP Apps extension:
/// a `ui://` resource a host renders beside a tool's result.
///
/// `#[view("ui://orders/board")]`. Options: `name`, `title`, `description`, `scopes`,
/// `ttl`, `cache` (as on `#[resource]`); `csp(connect(".."), resource(..), frame(..),
/// base_uri(..))`, the origins the view may reach; `permissions(camera, microphone,
/// geolocation, clipboard_write)`; `domain = ".."`; `prefers_border` (or `= false`).
/// A tool names it with `#[tool(ui = "ui://orders/board")]`.
#[proc_macro_attribute]
pub fn view(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug(view::expand(attr.into(), item.into())).into()
}

/// Turns an async (or sync) function into an MCP prompt.
///
/// Parameters become prompt arguments (required unless `Option`). Options: `name`,
/// `title`, `description`, `complete(arg = completer_fn)`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    debug(prompt::expand(attr.into(), item.into())).into()
}

fn debug(output: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{output}");
    }
    output
}
