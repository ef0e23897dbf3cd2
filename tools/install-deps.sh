#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages FlashVP builds and tests with, if missing
# (GTKWave, Xvfb and ImageMagick: the waveform test opens GTKWave headless;
# QEMU: the guest tests; python3-venv: the venv of the flashvp tool;
# sw/guest/build-*.sh install what the guest build needs).
set -euo pipefail
pkgs=(g++ make cmake ninja-build pkg-config libsystemc-dev libboost-program-options-dev libboost-context-dev
      libyaml-cpp-dev nlohmann-json3-dev libfmt-dev catch2
      gtkwave xvfb xauth imagemagick qemu-system-x86 bc python3 python3-venv)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
