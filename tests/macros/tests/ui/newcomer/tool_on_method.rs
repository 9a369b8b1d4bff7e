// A tool written as a method of the service struct, as in other SDKs.
use mcp_runtime::prelude::*;

pub struct Fleet {
    pub broken: Vec<u64>,
}

impl Fleet {
    /// Counts the bikes needing repair.
    #[tool(read_only)]
    async fn count_broken(&self) -> usize {
        self.broken.len()
    }
}

fn main() {}
