#!/usr/bin/env bash
# Prints the path of a Chromium for the web UI's browser tests, installing Debian's `chromium`
# package when it is missing (idempotent; the machine's package cache is the cache). The tests
# drive it with playwright-core, which never downloads a browser of its own. A sans-serif font
# comes with it so that screenshots show text on machines that have no fonts at all.
set -euo pipefail

for candidate in "${KUBEDAG_CHROMIUM:-}" /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "$candidate"
    exit 0
  fi
done

# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
apt_install ensure-chromium "install Chromium yourself and set KUBEDAG_CHROMIUM to its path" chromium fonts-dejavu-core
[ -x /usr/bin/chromium ] || { echo "ensure-chromium: chromium installed but /usr/bin/chromium is missing" >&2; exit 1; }
echo /usr/bin/chromium
