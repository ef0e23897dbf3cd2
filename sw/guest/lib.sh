# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest build scripts (sourced, not run).

# Where built artefacts live: outside the repository, reused across
# worktrees and runs.
FLASHVP_CACHE=${FLASHVP_CACHE:-$HOME/.cache/flashvp}

say() { echo "[$(basename "$0")] $*" >&2; }
die() { say "error: $*"; exit 1; }

# Installs the Debian packages given that are missing, like
# tools/install-deps.sh (nothing happens when all are there).
ensure_pkgs() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}

# A short hash of the named files' paths and contents (in the order given),
# used as a cache key: any change to an input gives a new key.
hash_inputs() {
  local f
  for f in "$@"; do
    printf '== %s\n' "${f#"$REPO"/}"
    cat "$f"
  done | sha256sum | cut -c1-16
}

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
