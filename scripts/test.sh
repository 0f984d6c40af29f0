#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every test: installs the Debian packages, builds with
# warnings as errors, runs the CTest suites, the profiler's under ThreadSanitizer too, the
# fuzzers under AddressSanitizer + UBSan, and the benchmark gate. The CI job (.ci/run) is
# exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

# Every C++ and CUDA file as .clang-format writes it.
bash scripts/check-format.sh

# CI always has the real traces of ../shared and the Fashion-MNIST package: a test that cannot
# find one fails there instead of skipping.
if [ "${CI:-}" = "true" ]; then export TSCOPE_REQUIRE_TEST_INPUTS=1; fi

build_dir=${TSCOPE_BUILD_DIR:-build/ci}
jobs=$(nproc)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSCOPE_WERROR=ON
cmake --build "$build_dir" -j "$jobs"
# clang-tidy (.clang-tidy) on the C++ files this change touches; any warning there fails.
bash scripts/check-tidy.sh "$build_dir"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 600 -LE '^multirank_mpi_tests$'
# Two real MPI ranks share this machine's two cores with their recorders: a few milliseconds in
# which the system holds one rank's core can make a run without a planted delay look like one
# with a straggler (measured: one to three runs in seven on a 2-vCPU VM). That end-to-end check gets up
# to five runs; the planted-straggler check passes in each.
ctest --test-dir "$build_dir" --output-on-failure --timeout 600 -L '^multirank_mpi_tests$' \
  --repeat until-pass:5

# The capture layer's threads under ThreadSanitizer, in a build of their own.
tsan_dir=${build_dir}-tsan
cmake -S . -B "$tsan_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSCOPE_WERROR=ON \
  -DTSCOPE_SANITIZE=thread -DTSCOPE_CUDA=OFF -DTSCOPE_GUI=OFF -DTSCOPE_BENCH=OFF
cmake --build "$tsan_dir" -j "$jobs" --target profiler_tests
# One BLAS thread: OpenBLAS's own threads synchronise in ways ThreadSanitizer cannot see.
OPENBLAS_NUM_THREADS=1 ctest --test-dir "$tsan_dir" -L '^profiler_tests$' --output-on-failure --timeout 600

# The fuzzers under AddressSanitizer + UBSan, in a clang build whose libraries carry libFuzzer's
# coverage instrumentation (docs/reliability.md), 60 s each from their committed corpus; any crash,
# sanitizer report or leak fails the run. Off there: CUDA (nvcc's device code cannot take clang's
# sanitizers), the benchmarks and the GUI. The same build runs the whole CTest suite when asked
# (docs/reliability.md, "Sanitizers"); CI does not yet.
asan_dir=${build_dir}-asan
CC=clang CXX=clang++ cmake -S . -B "$asan_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DTSCOPE_WERROR=ON \
  -DTSCOPE_SANITIZE=address,undefined -DTSCOPE_FUZZ=ON \
  -DTSCOPE_CUDA=OFF -DTSCOPE_GUI=OFF -DTSCOPE_BENCH=OFF
cmake --build "$asan_dir" -j "$jobs" --target tscope_fuzzers
bash scripts/fuzz.sh "$asan_dir" 60

# The overhead claims of docs/PERFORMANCE.md, measured as ratios within one run.
bash scripts/bench-gate.sh "$build_dir"
