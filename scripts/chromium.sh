#!/usr/bin/env bash
# Prints the path of a Chromium binary for the browser tests, installing Debian's `chromium`
# package first when the machine has none (as a fresh CI machine does not). The tests drive
# it with playwright-core, which downloads no browser of its own.
set -euo pipefail
find_chromium() { command -v chromium 2>/dev/null || true; }
bin=$(find_chromium)
if [ -z "$bin" ]; then
  echo "installing Chromium from the Debian packages" >&2
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends chromium >&2
  bin=$(find_chromium)
fi
if [ -z "$bin" ]; then
  echo "no chromium after installing the package" >&2
  exit 1
fi
echo "$bin"
