#!/usr/bin/env bash
# Prints the directory of PostgreSQL's server programs (initdb, postgres) for the history
# store's tests, installing Debian's `postgresql` package when they are missing (idempotent; the
# machine's package cache is the cache). KUBEDAG_POSTGRES_BIN names another directory holding
# both. The tests run their own server on a loopback port in a temporary directory
# (test/postgres-server.ts); no system PostgreSQL service is started or enabled here.
set -euo pipefail

# Debian keeps each major version's programs apart, off PATH: the newest installed one wins.
server_bin() {
  local dir
  for dir in "${KUBEDAG_POSTGRES_BIN:-}" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

if server_bin; then exit 0; fi

# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"

# The package's maintainer scripts would start the cluster they create: keep them from it.
forbid_service_starts

apt_install ensure-postgres "install PostgreSQL's server yourself and set KUBEDAG_POSTGRES_BIN to the directory of its initdb and postgres" postgresql
server_bin || { echo "ensure-postgres: postgresql installed but no /usr/lib/postgresql/*/bin holds initdb and postgres" >&2; exit 1; }
