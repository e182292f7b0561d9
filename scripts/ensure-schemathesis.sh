#!/usr/bin/env bash
# Prints the path of schemathesis's `st`, installing the version pinned in
# scripts/fuzz/requirements.txt (every package pinned, installed with --no-deps) from PyPI into a
# per-user virtualenv the first time. The virtualenv's name carries a digest of that list, so a
# changed pin gets a fresh one. Needs python3 >= 3.11 with venv (Debian: python3-venv).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
requirements="$root/scripts/fuzz/requirements.txt"
version=$(sed -n 's/^schemathesis==//p' "$requirements")
[ -n "$version" ] || { echo "ensure-schemathesis: no schemathesis pin in $requirements" >&2; exit 1; }

cache=${KUBEDAG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubedag}
digest=$(sha256sum "$requirements" | cut -c1-12)
target="$cache/schemathesis-$version-$digest"
if [ -f "$target/.complete" ]; then
  echo "$target/bin/st"
  exit 0
fi

python=${KUBEDAG_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || { echo "ensure-schemathesis: $python not found; install Python >= 3.11 or set KUBEDAG_PYTHON" >&2; exit 1; }
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { echo "ensure-schemathesis: schemathesis $version needs Python >= 3.11; set KUBEDAG_PYTHON to one" >&2; exit 1; }

mkdir -p "$cache"
# One installer at a time: make targets may run side by side. A virtualenv cannot be moved
# (its scripts name its path), so it is built in place and marked complete at the end.
exec 9>"$cache/.schemathesis.lock"
flock 9
if [ ! -f "$target/.complete" ]; then
  rm -rf "$target"
  echo "ensure-schemathesis: installing schemathesis $version into $target" >&2
  "$python" -m venv "$target" >&2
  "$target/bin/pip" install --quiet --disable-pip-version-check --no-deps --only-binary=:all: -r "$requirements" >&2
  "$target/bin/st" --version >/dev/null
  touch "$target/.complete"
fi
echo "$target/bin/st"
