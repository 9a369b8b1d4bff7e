use mcp_runtime::prelude::*;

/// Orders by id.
#[resource("orders://<id>")]
async fn order(id: u32) -> String {
    id.to_string()
}

mod other {
    use super::*;

    /// The same URIs under another variable name.
    #[resource("orders://<number>")]
    async fn order_again(number: u32) -> String {
        number.to_string()
    }
}

fn main() {}
