use mcp_runtime::prelude::*;

struct Service;

impl Service {
    /// A method cannot be a tool.
    #[tool]
    async fn run(&self) -> String {
        String::new()
    }
}

fn main() {}
