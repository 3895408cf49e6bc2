#!/usr/bin/env bash
# Configures, builds and runs every test (unit, end-to-end against a local HTTP server,
# offscreen GUI, the SSE fuzzer for TOKENSCOPE_FUZZ_SECONDS, default 60), then builds the
# Debian packages and runs them from an unpacked tree (packaging/check_package.sh).
# Usage: tests/run_all.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
build="${1:-build}"
# Conversion caches the tests write go to the build tree, not the user's ~/.cache.
case "$build" in /*) cache="$build-test-cache" ;; *) cache="$repo/$build-test-cache" ;; esac
mkdir -p "$cache"
export XDG_CACHE_HOME="$cache"
# 1. The engine alone (no Qt), as on a GPU machine with only the CUDA toolkit.
cmake -S . -B "$build-engine-only" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOKENSCOPE_ENGINE_ONLY=ON
cmake --build "$build-engine-only" --parallel "$(nproc)"
ctest --test-dir "$build-engine-only" --output-on-failure -LE fuzz
# 2. Everything, and every test.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --parallel "$(nproc)"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)" --timeout 600
# 3. The Debian packages, unpacked and run from that tree.
cd "$repo"
packaging/check_package.sh "$build"
