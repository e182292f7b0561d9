#!/usr/bin/env bash
# Installs the Debian packages of the local cluster's real node (docs/real-node.md) when missing:
# runc (the OCI runtime containerd's shim calls), the CNI plugins (bridge, host-local, loopback,
# portmap), iptables and conntrack (kube-proxy), iproute2 and util-linux (the node's network
# namespace: ip, unshare, nsenter), and gcc with glibc's static library (the pause program, a few
# lines of C linked statically). Idempotent; the machine's package cache is the cache. kubelet,
# kube-proxy and containerd are built from Go modules instead (cluster/real-node/binaries.ts).
set -euo pipefail

missing=()
need() { # need PACKAGE PATH-OR-COMMAND
  if [[ $2 == /* ]]; then [ -e "$2" ] || missing+=("$1"); else command -v "$2" >/dev/null 2>&1 || missing+=("$1"); fi
}
need runc runc
need containernetworking-plugins /usr/lib/cni/bridge
need iptables iptables
need conntrack conntrack
need iproute2 ip
need util-linux nsenter
need gcc gcc
need libc6-dev /usr/include/stdio.h
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
forbid_service_starts
apt_install ensure-real-node "install ${missing[*]} yourself (root needed)" "${missing[@]}"
