#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every test: installs the Debian packages, builds with
# warnings as errors, runs the CTest suites, the profiler's under ThreadSanitizer too, the whole
# CPU suite again and the fuzzers under AddressSanitizer + UBSan, and the benchmark gate. The CI
# job (.ci/run) is exactly this script. Each stage prints its wall and CPU time (README.md says
# what they add up to on the 2-core CI machine).
set -euo pipefail
cd "$(dirname "$0")/.."

# Runs a stage and prints its wall-clock time and the CPU time (user + sys) of everything it ran.
stage() {
  local name=$1
  shift
  local TIMEFORMAT="test.sh: stage $name: %0R s wall, %0U s user + %0S s sys"
  time "$@"
}

stage deps bash scripts/install-deps.sh

# Every C++ and CUDA file as .clang-format writes it.
stage format bash scripts/check-format.sh

# CI always has the real traces of ../shared and the Fashion-MNIST package: a test that cannot
# find one fails there instead of skipping.
if [ "${CI:-}" = "true" ]; then export TSCOPE_REQUIRE_TEST_INPUTS=1; fi

build_dir=${TSCOPE_BUILD_DIR:-build/ci}
jobs=$(nproc)
stage configure cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTSCOPE_WERROR=ON
stage build cmake --build "$build_dir" -j "$jobs"
# clang-tidy (.clang-tidy) on the C++ files this change touches; any warning there fails.
stage tidy bash scripts/check-tidy.sh "$build_dir"
stage ctest ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 600 \
  -LE '^multirank_mpi_tests$'
# Two real MPI ranks share this machine's two cores with their recorders: a few milliseconds in
# which the system holds one rank's core can make a run without a planted delay look like one
# with a straggler (measured: one to three runs in seven on a 2-vCPU VM). That end-to-end check gets up
# to five runs; the planted-straggler check passes in each.
stage ctest-mpi ctest --test-dir "$build_dir" --output-on-failure --timeout 600 \
  -L '^multirank_mpi_tests$' --repeat until-pass:5

# The capture layer's threads under ThreadSanitizer, in a build of their own. The tests link most
# of the tree, and at -O2 -g this was the longest build stage: -O1 -g1 (line tables, all that a
# report's stack needs) compiles in 63% of the time (154 s against 246 s on an idle 2-core VM).
# At -O1 GCC 12 warns falsely that a std::optional may be read uninitialised; the gcc build above
# keeps that warning.
tsan_dir=${build_dir}-tsan
tsan_flags="-O1 -g1 -DNDEBUG -Wno-maybe-uninitialized"
stage tsan-configure cmake -S . -B "$tsan_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$tsan_flags" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$tsan_flags" \
  -DTSCOPE_WERROR=ON -DTSCOPE_SANITIZE=thread -DTSCOPE_CUDA=OFF -DTSCOPE_GUI=OFF -DTSCOPE_BENCH=OFF
stage tsan-build cmake --build "$tsan_dir" -j "$jobs" --target profiler_tests
# One BLAS thread: OpenBLAS's own threads synchronise in ways ThreadSanitizer cannot see.
OPENBLAS_NUM_THREADS=1 stage tsan-ctest ctest --test-dir "$tsan_dir" -L '^profiler_tests$' \
  --output-on-failure --timeout 600

# The whole CPU suite and the fuzzers under AddressSanitizer + UBSan, in one clang build whose
# objects all carry libFuzzer's coverage instrumentation, so the test binaries and the fuzzers
# link the same library objects (docs/reliability.md, "Sanitizers"). Off there: CUDA (nvcc's
# device code cannot take clang's sanitizers) and the benchmarks (timings under ASan mean
# nothing). Any sanitizer report fails the test or the fuzzer it came from (leaks too, except in
# the viewer's suites: scripts/asan-ctest.sh says why).
asan_dir=${build_dir}-asan
CC=clang CXX=clang++ stage asan-configure cmake -S . -B "$asan_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DTSCOPE_WERROR=ON \
  -DTSCOPE_SANITIZE=address,undefined -DTSCOPE_FUZZ=ON -DTSCOPE_CUDA=OFF -DTSCOPE_BENCH=OFF
stage asan-build cmake --build "$asan_dir" -j "$jobs"
stage asan-ctest bash scripts/asan-ctest.sh "$asan_dir"
# Each fuzzer 60 s from its committed corpus; any crash, sanitizer report or leak fails the run.
stage fuzz bash scripts/fuzz.sh "$asan_dir" 60

# The overhead claims of docs/PERFORMANCE.md, measured as ratios within one run.
stage bench-gate bash scripts/bench-gate.sh "$build_dir"
