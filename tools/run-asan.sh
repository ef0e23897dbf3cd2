#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The sanitizer run of `make test-asan`: the non-guest suite, then each
# preset with vp-server, in the ASan/UBSan build folder given ($1). Any
# report stops the process with an error, so it fails the run.
set -euo pipefail
build=$(cd "${1:?build folder}" && pwd)
# SystemC switches coroutine stacks, which ASan's fake stacks cannot follow;
# SystemC's own globals outlive main (leak checking would report them).
here=$(cd "$(dirname "$0")" && pwd)
export ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=0:halt_on_error=1:abort_on_error=0:suppressions=$here/asan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The studies' --quick reproductions (dozens of runs each) are left out:
# under ASan flashshare's outlasts its 1,500 s limit; the platforms they run
# are the presets below.
(cd "$build" && ctest -LE guest -E 'repro [a-z]+ --quick' -j "$(nproc)" --output-on-failure)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Group headings ("deepflash/:") are not presets.
for p in $("$build/bin/vp-server" --list-presets | awk 'NF && $1 !~ /:$/ {print $1}'); do
  echo "== preset $p"
  name=${p//\//-}  # a group's presets are named group/preset
  "$build/bin/vp-server" --preset "$p" --overwrite --out "$out/$name" > "$out/$name.log" 2>&1 || { cat "$out/$name.log"; exit 1; }
  tail -1 "$out/$name.log"
done
