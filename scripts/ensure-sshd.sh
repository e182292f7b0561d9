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

# The package's maintainer scripts would start an ssh service: keep them from it.
forbid_service_starts

apt_install ensure-sshd "install OpenSSH's server (sshd) yourself" openssh-server
[ -x /usr/sbin/sshd ] || { echo "ensure-sshd: openssh-server installed but /usr/sbin/sshd is missing" >&2; exit 1; }
echo /usr/sbin/sshd
