//! Every form of `#[view]` and of the view options of `#[tool]` keeps compiling: a view
//! with every option, one that takes extractors and fails as a resource does, tools
//! naming views with each visibility, a tool continuing another's pages, and views and
//! tools in different modules.

use mcp_runtime::prelude::*;
use mcp_runtime::{Cursor, Page};

/// Every option.
#[view(
    "ui://shop/board",
    name = "board",
    title = "Board",
    description = "The shop's board.",
    csp(
        connect("https://api.example.com", "wss://live.example.com:8443"),
        resource("https://*.cdn.example.com"),
        frame("https://player.example.com"),
        base_uri("https://cdn.example.com")
    ),
    permissions(camera, microphone, geolocation, clipboard_write),
    domain = "a904794854a047f6.views.example.com",
    prefers_border = false,
    ttl = "5m",
    cache = public,
    scopes("shop:read")
)]
fn board() -> &'static str {
    "<!DOCTYPE html><html></html>"
}

/// Extractors, async, and a fallible read.
#[view("ui://shop/cart", prefers_border)]
async fn cart(_ctx: RequestContext, tenant: Tenant) -> Result<String, RpcError> {
    Ok(format!("<!DOCTYPE html><p>{}</p>", tenant.0))
}

/// Names a view (default visibility).
#[tool(ui = "ui://shop/board")]
async fn show(after: Cursor<u32>) -> Page<u32> {
    after.page(vec![1, 2], Some(2))
}

/// For views only, continuing `show`'s pages.
#[tool(visibility = app, continues = "show", read_only)]
async fn show_more(after: Cursor<u32>) -> Page<u32> {
    after.page(vec![3], None)
}

/// For the model only.
#[tool(visibility = model, ui = "ui://shop/cart")]
async fn model_only() -> &'static str {
    "ok"
}

/// Both, written out.
#[tool(visibility = [model, app])]
async fn both() -> &'static str {
    "ok"
}

/// Views and the tools naming them may live in any modules of the crate.
mod views {
    use mcp_runtime::prelude::*;

    pub mod nested {
        use mcp_runtime::prelude::*;

        #[view("ui://shop/nested")]
        pub fn nested() -> &'static str {
            "<!DOCTYPE html><html></html>"
        }
    }

    #[view("ui://shop/sibling")]
    fn sibling() -> &'static str {
        "<!DOCTYPE html><html></html>"
    }
}

mod tools {
    use mcp_runtime::prelude::*;

    /// Names a view of a sibling module.
    #[tool(ui = "ui://shop/sibling")]
    async fn in_sibling() -> &'static str {
        "ok"
    }

    /// Names a view of a module nested in a sibling.
    #[tool(ui = "ui://shop/nested")]
    async fn in_nested() -> &'static str {
        "ok"
    }
}

fn main() {}
