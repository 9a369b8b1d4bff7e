//! The files a team owns, written when absent: the manifest, the library, the program and
//! the curation file.

use super::Dependency;
use super::Options;
use crate::model::Api;
pub(super) fn manifest(options: &Options) -> String {
    let runtime = match &options.runtime {
        Dependency::Version(version) => format!("{version:?}"),
        Dependency::Path(path) => format!("{{ path = {path:?} }}"),
    };
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
mcp-runtime = {runtime}
reqwest = {{ version = "0.13", default-features = false, features = ["rustls", "json", "query", "form"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
tokio = {{ version = "1", features = ["macros", "rt-multi-thread"] }}
"#,
        name = options.crate_name
    )
}

pub(super) fn library(api: &Api, options: &Options) -> String {
    format!(
        r#"//! An MCP server for {title}.
//!
//! `src/api/` holds the tools `mcp openapi` generates from
//! `{document}` (never edited by hand); tools of your own go here.

pub mod api;

use mcp_runtime::prelude::*;

/// The server: every tool of `api`, and yours.
pub fn server(api: api::Api) -> Server {{
    Server::new("{name}", env!("CARGO_PKG_VERSION")).state(api)
}}
"#,
        title = api.title.replace('\n', " "),
        document = options.document,
        name = options.crate_name,
    )
}

pub(super) const MAIN: &str = r#"//! Serves the API's tools over stdio, or over HTTP with `--http ADDR`.

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    {crate}::server({crate}::api::Api::from_env())
        .serve_from_args()
        .await
}
"#;

pub(super) const CURATION: &str = r#"# What `mcp openapi` makes tools of, and how they read. Kept when the crate is generated
# again; the generated code in src/api/ follows it.
#
# [select]
# tags = ["items"]                 # only operations with these tags (or paths, or operations)
# paths = ["/items/**"]
# operations = ["listItems"]
# exclude = ["/admin/**"]
#
# [operations.createItem]          # by operationId, or by the tool name
# name = "add_item"
# description = "Add an item to the inventory."
# confirm = true
# scopes = ["inventory:write"]
# pages = false                    # keep the API's paging arguments (default: the framework's cursor)
#
# [operations.listItems.arguments]
# perPage = { rename = "page_size", description = "Items per page (1 to 100)." }
# tenantId = { from = "tenant" }   # hidden: the caller's tenant
"#;
