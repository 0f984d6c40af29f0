#!/usr/bin/env bash
# Every GPU check of the project in one call on a GPU machine with no package registry (see
# docs/cuda.md, "Running the device checks"): check.sh (the engine's CUDA tests and benchmarks),
# then cupti_check.sh (CUPTI capture, the PyTorch comparison, the capture overhead), each into
# its own folder under $OUT; prints both tables, also saved as $OUT/summary.txt.
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
  tar -xzf "$source" -C "$unpacked"
  carry=$unpacked/gpu-carry
else
  carry=$source
fi

status=0
{
  echo "== engine: CUDA tests and benchmarks"
  OUT=$out/engine "$repo/bench/gpu/check.sh" "$carry" || status=$?
  echo
  echo "== profiler: CUPTI capture"
  OUT=$out/cupti "$repo/bench/gpu/cupti_check.sh" "$carry" || status=$?
} 2>&1 | tee "$out/summary.txt"
exit "$status"
