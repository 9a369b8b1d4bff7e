use mcp_runtime::prelude::*;

/// An unknown permission, with a hint; one asked for twice; one given a value.
#[view("ui://a", permissions(clipboard, camera, camera, microphone = true))]
fn asks() -> &'static str {
    ""
}

/// A domain that is not a host name.
#[view("ui://b", domain = "https://views.example.com/")]
fn domain() -> &'static str {
    ""
}

/// `prefers_border` is a flag; `mime` is fixed for views.
#[view("ui://c", prefers_border = "yes", mime = "text/html")]
fn border() -> &'static str {
    ""
}

/// Options of `#[resource]` that a view does not take, each with its reason.
#[view("ui://d", size = 120, audience = user, priority = 0.5, complete(id = ids))]
fn resource_options() -> &'static str {
    ""
}

fn main() {}
