#!/usr/bin/env bash
# Every GPU check of the project in one call on a GPU machine with no package registry (see
# docs/cuda.md, "Running the device checks"): check.sh (the engine's CUDA tests and benchmarks),
# then cupti_check.sh (CUPTI capture, the PyTorch comparison, the capture overhead). Prints both
# tables and leaves two files in $OUT: summary.txt (the tables) and device_check.tar.gz (every log,
# trace, table and JSON of both halves), since only a few files come back from a device machine.
# Exits non-zero when either half fails, and so when no device answers.
#
#   bench/gpu/device_check.sh pack BUILD_DIR    on the build machine: writes
#                                               BUILD_DIR/gpu-carry.tar.gz to carry
#   bench/gpu/device_check.sh [ARCHIVE_OR_DIR]  on the GPU machine
#                                               (default: build-cuda/gpu-carry.tar.gz)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo/bench/gpu/carry.sh"

if [[ ${1:-} == pack ]]; then
  build=${2:?usage: device_check.sh pack BUILD_DIR}
  pack_carry "$build" "$build/gpu-carry"
  tar -czf "$build/gpu-carry.tar.gz" -C "$build" gpu-carry
  echo "carry $build/gpu-carry.tar.gz ($(du -h "$build/gpu-carry.tar.gz" | cut -f1); the device" \
    "tool carries at most 64 MiB)"
  exit 0
fi

source=${1:-$repo/build-cuda/gpu-carry.tar.gz}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
if [[ -f $source ]]; then
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  tar -xzf "$source" -C "$unpacked"
  carry=$unpacked/gpu-carry
else
  carry=$source
fi
results=$(mktemp -d)/device_check

# Both halves run whatever the first one found; the status says whether either failed.
run_halves() {
  local status=0
  echo "== engine: CUDA tests and benchmarks"
  OUT=$results/engine "$repo/bench/gpu/check.sh" "$carry" || status=1
  echo
  echo "== profiler: CUPTI capture"
  OUT=$results/cupti "$repo/bench/gpu/cupti_check.sh" "$carry" || status=1
  return "$status"
}

mkdir -p "$results"
# A pipeline runs its members in subshells: the status comes back through PIPESTATUS.
set +e
run_halves 2>&1 | tee "$results/summary.txt"
status=${PIPESTATUS[0]}
set -e
cp "$results/summary.txt" "$out/summary.txt"
tar -czf "$out/device_check.tar.gz" -C "$(dirname "$results")" device_check
echo "device check: $([[ $status == 0 ]] && echo passed || echo FAILED); tables in" \
  "$out/summary.txt, everything in $out/device_check.tar.gz"
exit "$status"
