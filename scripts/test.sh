#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every test: installs the Debian packages, builds with
# warnings as errors, and runs the CTest suites. The CI job (.ci/run) is exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

build_dir=${TSCOPE_BUILD_DIR:-build/ci}
jobs=$(nproc)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSCOPE_WERROR=ON
cmake --build "$build_dir" -j "$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 600
