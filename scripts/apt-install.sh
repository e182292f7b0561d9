# Sourced by the ensure-* scripts: installs Debian packages a test needs when the machine lacks
# them. apt_install WHO HINT PACKAGE... installs without recommends (a test never needs a
# desktop's worth of extras), as root or through sudo, all output on stderr so that the calling
# script's stdout stays its answer (a path). Fails with WHO's name and HINT when it cannot.
apt_install() {
  local who=$1 hint=$2
  shift 2
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: no apt-get to install $*; $hint" >&2
    exit 1
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "$who: installing $* needs root or sudo" >&2; exit 1; }
    sudo=(sudo)
  fi
  {
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"
  } >&2
}

# The command prefix that runs as root: empty for root, sudo otherwise (after apt_install checked it).
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Keeps packages installed from now until the calling script exits from starting services:
# a policy-rc.d that answers 101 ("action forbidden"), when the machine has none of its own
# (Debian container images do), removed again on exit.
forbid_service_starts() {
  local policy=/usr/sbin/policy-rc.d
  [ -e "$policy" ] && return 0
  printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
  as_root chmod 755 "$policy"
  trap 'as_root rm -f /usr/sbin/policy-rc.d' EXIT
}
