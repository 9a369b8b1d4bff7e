#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on a free loopback port for the tests, installing the
# Debian packages first when the machine has none (as a fresh CI machine does not).
#
#   scripts/postgres.sh start DIR   prints the connection URL; data and log go in DIR
#   scripts/postgres.sh stop DIR
#
# PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user the
# package creates.
set -euo pipefail
action=$1 dir=$2

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

case "$action" in
  start)
    if [ -z "$(pg_bin)" ] || [ ! -x "$(pg_bin)/postgres" ]; then
      echo "installing PostgreSQL from the Debian packages" >&2
      sudo_cmd=""
      if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
      $sudo_cmd apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends postgresql >&2
    fi
    bin=$(pg_bin)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_owner "'$bin/initdb' -D '$dir/data' -U mcp --auth=trust -E UTF8" >/dev/null
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/log' -w -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1\" start" >/dev/null
    echo "postgres://mcp@127.0.0.1:$port/postgres"
    ;;
  stop)
    bin=$(pg_bin)
    as_owner "'$bin/pg_ctl' -D '$dir/data' -m immediate stop" >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
