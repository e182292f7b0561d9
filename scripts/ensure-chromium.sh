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

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no chromium and no apt-get; install Chromium yourself and set KUBEDAG_CHROMIUM to its path" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ensure-chromium: installing chromium needs root or sudo" >&2; exit 1; }
  sudo=(sudo)
fi

{
  "${sudo[@]}" apt-get update -qq
  # Recommends would add a desktop's worth of packages (sound, themes) a headless test never uses.
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core
} >&2
[ -x /usr/bin/chromium ] || { echo "ensure-chromium: chromium installed but /usr/bin/chromium is missing" >&2; exit 1; }
echo /usr/bin/chromium
