#!/usr/bin/env bash
# Compile time of 100 tools: the same generated server written with this framework's
# #[tool] and with rmcp's #[tool_router]/#[tool] macros, each built clean in release mode.
#
#   scripts/compile-time.sh [OUT_DIR]      (default: target/compile-time)
#
# Prints, for each: the clean release build (dependencies included), and the rebuild of the
# server crate alone after its source changes (what a developer waits for). Needs network
# access to crates.io for rmcp. Not part of the test command: it takes several minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/target/compile-time}
tools=100
rm -rf "$out"
mkdir -p "$out/ours/src" "$out/rmcp/src"

# Both use the same profile, so the comparison is of the code, not the settings.
profile='[profile.release]
opt-level = 3
debug = false
incremental = false'

cat >"$out/ours/Cargo.toml" <<EOF
[package]
name = "tools100-ours"
version = "0.1.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
mcp-runtime = { path = "$root/mcp-runtime" }
schemars = "1"
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }

$profile
EOF

cat >"$out/rmcp/Cargo.toml" <<EOF
[package]
name = "tools100-rmcp"
version = "0.1.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
rmcp = { version = "=3.11.0", features = ["server", "macros", "transport-io", "transport-streamable-http-server"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros", "io-std"] }

$profile
EOF

{
  echo '//! 100 generated tools (this framework).'
  echo 'use mcp_runtime::prelude::*;'
  echo
  echo '/// A computed total.'
  echo '#[derive(serde::Serialize, schemars::JsonSchema)]'
  echo 'pub struct Total {'
  echo '    /// The total.'
  echo '    pub total: i64,'
  echo '}'
  for i in $(seq 1 $tools); do
    cat <<EOF

/// Tool number $i: adds two integers, with an optional label.
#[tool(read_only)]
async fn tool_$i(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
    /// A label echoed back.
    label: Option<String>,
) -> Result<Json<Total>, ToolError> {
    let total = a.checked_add(b).ok_or_else(|| ToolError::new("overflow"))?;
    Ok(Json(Total { total }).with_text(format!("{} {total}", label.unwrap_or_default())))
}
EOF
  done
  cat <<'EOF'

fn main() -> Result<(), mcp_runtime::Error> {
    let runtime = tokio::runtime::Runtime::new().map_err(mcp_runtime::Error::Io)?;
    runtime.block_on(async {
        Server::new("tools100", "0.1.0").serve_from_args().await
    })
}
EOF
} >"$out/ours/src/main.rs"

{
  echo '//! 100 generated tools (rmcp).'
  echo 'use rmcp::{handler::server::{router::tool::ToolRouter, wrapper::Parameters}, model::{ServerCapabilities, ServerConfig}, tool, tool_handler, tool_router, Json, ServerHandler, ServiceExt};'
  echo
  echo '/// A computed total.'
  echo '#[derive(serde::Serialize, schemars::JsonSchema)]'
  echo 'pub struct Total {'
  echo '    /// The total.'
  echo '    pub total: i64,'
  echo '}'
  for i in $(seq 1 $tools); do
    cat <<EOF

/// Arguments of tool $i.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args$i {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
    /// A label echoed back.
    pub label: Option<String>,
}
EOF
  done
  echo
  echo '#[derive(Clone)]'
  echo 'struct Tools { tool_router: ToolRouter<Self> }'
  echo
  echo '#[tool_router]'
  echo 'impl Tools {'
  echo '    fn new() -> Self { Self { tool_router: Self::tool_router() } }'
  for i in $(seq 1 $tools); do
    cat <<EOF

    /// Tool number $i: adds two integers, with an optional label.
    #[tool(annotations(read_only_hint = true))]
    async fn tool_$i(&self, Parameters(Args$i { a, b, label }): Parameters<Args$i>) -> Result<Json<Total>, String> {
        let _ = label;
        a.checked_add(b).map(|total| Json(Total { total })).ok_or_else(|| "overflow".to_owned())
    }
EOF
  done
  cat <<'EOF'
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Tools::new().serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
EOF
} >"$out/rmcp/src/main.rs"

seconds() { # seconds CMD...: wall time of CMD in seconds, its output in $out/build.log
  local start end
  start=$(date +%s.%N)
  if ! "$@" >>"$out/build.log" 2>&1; then
    echo "build failed; see $out/build.log" >&2
    tail -20 "$out/build.log" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}

for which in ours rmcp; do
  (cd "$out/$which" && cargo fetch -q)
  # --timings: target/cargo-timings/cargo-timing.html shows where the build's time went.
  clean=$(cd "$out/$which" && seconds cargo build --release --timings) || exit 1
  touch "$out/$which/src/main.rs"
  crate=$(cd "$out/$which" && seconds cargo build --release) || exit 1
  size=$(stat -c %s "$out/$which/target/release/tools100-$which")
  echo "$which: clean release build ${clean} s; the server crate alone ${crate} s; binary $((size / 1024)) KiB"
done
