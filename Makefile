# SPDX-License-Identifier: BSD-3-Clause
# The two commands of the README:
#   make run   installs what is missing, builds, runs the default platform
#   make test  installs what is missing, builds, runs the whole test suite
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test test-asan bench clean guest venv

all: build

deps:
	@bash tools/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/vp-server $(ARGS)

# The Python tooling (tools/: the flashvp command) in a venv of Debian's
# Python, installed editable so it runs the checkout's code; reinstalled
# when its pyproject.toml changes.
VENV ?= .venv
$(VENV)/.installed: tools/pyproject.toml | deps
	/usr/bin/python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e 'tools[test]'
	touch $@

venv: $(VENV)/.installed

# The guest kernel and image (cached outside the repository, see sw/guest).
guest: deps
	bash sw/guest/build-kernel.sh
	bash sw/guest/build-image.sh

test: build guest venv
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The non-guest suite and every preset under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/; see docs/testing.md).
ASAN_BUILD ?= build-asan
test-asan: deps venv
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLASHVP_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	bash tools/run-asan.sh $(ASAN_BUILD)

bench: build
	$(BUILD)/bin/vp-bench $(ARGS)
	$(BUILD)/bin/vp-bench $(ARGS) --set workload.bench.rw=randwrite
	$(BUILD)/bin/vp-bench $(ARGS) --drive
	$(BUILD)/bin/vp-bench-precondition sequential
	$(BUILD)/bin/vp-bench-precondition random

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(VENV)
