#!/usr/bin/env bash
# Prints the path of an nginx binary, installing the Debian package first when the machine
# has none (as a fresh CI machine does not). The package's own service is not used: the
# tests run nginx in the foreground with a configuration and prefix of their own.
set -euo pipefail
find_nginx() { command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true; }
bin=$(find_nginx)
if [ -z "$bin" ]; then
  echo "installing nginx from the Debian packages" >&2
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq >&2
  # The package would start its service on port 80; nothing here needs it.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo_cmd tee /usr/sbin/policy-rc.d >/dev/null
    $sudo_cmd chmod +x /usr/sbin/policy-rc.d
    trap '$sudo_cmd rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nginx >&2
  bin=$(find_nginx)
fi
echo "$bin"
