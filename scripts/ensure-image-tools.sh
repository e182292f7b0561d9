#!/usr/bin/env bash
# Installs the OCI tools the image's tests read `make image`'s archive with, when missing:
# skopeo (inspects and copies the archive as a registry client would) and umoci (unpacks it
# into a root file system as a runtime would), both Debian packages (idempotent; the machine's
# package cache is the cache). `make image` itself needs neither: only apt-get and dpkg-deb.
set -euo pipefail

missing=()
command -v skopeo >/dev/null 2>&1 || missing+=(skopeo)
command -v umoci >/dev/null 2>&1 || missing+=(umoci)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
apt_install ensure-image-tools "install ${missing[*]} yourself" "${missing[@]}"
for tool in "${missing[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "ensure-image-tools: $tool installed but not on PATH" >&2; exit 1; }
done
