#!/usr/bin/env bash
# Prints the path of an OpenSSH sshd for the ssh executor's tests, installing the Debian
# package openssh-server when it is missing (idempotent; the machine's package cache is the
# cache). The tests start their own sshd on a loopback port with their own config; no system
# ssh service is started or enabled here.
set -euo pipefail

for candidate in /usr/sbin/sshd "$(command -v sshd 2>/dev/null || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "$candidate"
    exit 0
  fi
done

# shellcheck source=apt-install.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"

# The package's maintainer scripts would start an ssh service; a policy-rc.d that answers 101
# ("action forbidden") stops that when the machine has none of its own (Debian container images do).
policy=/usr/sbin/policy-rc.d
added_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
  as_root chmod 755 "$policy"
  added_policy=true
fi
cleanup() { if $added_policy; then as_root rm -f "$policy"; fi; }
trap cleanup EXIT

apt_install ensure-sshd "install OpenSSH's server (sshd) yourself" openssh-server
[ -x /usr/sbin/sshd ] || { echo "ensure-sshd: openssh-server installed but /usr/sbin/sshd is missing" >&2; exit 1; }
echo /usr/sbin/sshd
