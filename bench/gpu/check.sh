#!/usr/bin/env bash
# Device checks of the engine's CUDA backend on a GPU machine (see docs/cuda.md, "Running the
# device checks"; bench/gpu/device_check.sh runs this and the CUPTI checks in one call):
#   1. the binaries from a carry folder (bench/gpu/carry.sh), or built there when
#      TSCOPE_BUILD_DIR is set and cmake exists; each must find every library it loads, and
#      `tscope doctor` must find a device;
#   2. engine_cuda_tests: every CUDA kernel and gradient against its CPU reference, the device
#      allocator, pinned copies (must all pass, none skipped);
#   3. distributed_nccl_tests: a world-of-one NCCL group's collectives on the GPU and their
#      `nccl:*` ranges in a trace (needs the machine's libnccl.so.2);
#   4. bench_gpu_engine: matmul against cuBLAS called directly (target: at least 90%), elementwise
#      add against a device-to-device copy on 256 MiB tensors (target: at least 80%), the fused
#      linear + ReLU against the two ops, the CNN training step on the GPU against the CPU.
# Prints one table; the logs and the raw JSON stay under $OUT. Exits non-zero when any row fails,
# including when no device answers or a carried program lacks a library.
#
#   bench/gpu/check.sh [CARRY_DIR]     (default: build-cuda/gpu-carry)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo/bench/gpu/carry.sh"

check_folders "${1:-}"

# 1. Binaries.
if [[ -n ${TSCOPE_BUILD_DIR:-} ]] && command -v cmake >/dev/null; then
  cmake -S "$repo" -B "$TSCOPE_BUILD_DIR" -G Ninja -DTSCOPE_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real \
    >"$out/configure.log" 2>&1
  cmake --build "$TSCOPE_BUILD_DIR" --target engine_cuda_tests bench_gpu_engine tscope \
    train_fashion_mnist tscope_inject profiler_cupti_tests distributed_nccl_tests \
    >"$out/build.log" 2>&1
  carry=$TSCOPE_BUILD_DIR/gpu-carry
  pack_carry "$TSCOPE_BUILD_DIR" "$carry" >"$out/bundle.log"
  built="built in $TSCOPE_BUILD_DIR"
else
  built="carried $carry"
fi
[[ -x $carry/bin/engine_cuda_tests ]] || {
  echo "no engine_cuda_tests in $carry/bin: pack a carry first (bench/gpu/device_check.sh pack)" >&2
  exit 2
}
use_carry "$carry"
echo "$cuda_library_folders" >"$out/cuda_folders.txt"
mapfile -t programs < <(carried_programs "$carry")
missing_libraries "${programs[@]}" >"$out/missing_libraries.txt"
probe_devices "$carry" "$out" >"$out/gpu.txt" || true

# 2. Tests.
tests_status=0
run_carried "$carry/bin/engine_cuda_tests" --gtest_output="json:$out/tests.json" >"$out/tests.log" 2>&1 ||
  tests_status=$?

nccl_status=0
run_carried "$carry/bin/distributed_nccl_tests" --gtest_output="json:$out/nccl_tests.json" \
  >"$out/nccl_tests.log" 2>&1 || nccl_status=$?

# 4. Benchmarks.
bench_status=0
run_carried "$carry/bin/bench_gpu_engine" --benchmark_min_time="${MIN_TIME:-0.3}" \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json >"$out/bench.log" 2>&1 ||
  bench_status=$?

python3 - "$out" "$built" "$tests_status" "$bench_status" "${#programs[@]}" "$nccl_status" <<'PY'
import json, os, sys

out, built, tests_status, bench_status = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
programs, nccl_status = int(sys.argv[5]), int(sys.argv[6])
rows = [("build", built, "-", "-", "ok")]
missing = open(os.path.join(out, "missing_libraries.txt")).read().split("\n")
missing = [line.strip() for line in missing if line.strip()]
rows.append(("carried programs load", f"{programs} programs, {len(missing)} missing libraries"
             + (f": {'; '.join(missing)}" if missing else ""), "-", "none missing",
             "FAIL" if missing else "PASS"))
gpu = open(os.path.join(out, "gpu.txt")).read().strip()
rows.append(("GPU", gpu or "?", "-", "a device", "FAIL" if gpu.startswith("no device") else "PASS"))

def test_row(label, results, status, log):
    try:
        tests = json.load(open(os.path.join(out, results)))
        cases = [case for suite in tests["testsuites"] for case in suite["testsuite"]]
    except (OSError, ValueError, KeyError) as error:
        rows.append((label, f"no result ({error}); exit {status}", "-", "all pass", "FAIL"))
        return
    failed = sum(1 for case in cases if case.get("failures"))
    skipped = sum(1 for case in cases if case.get("result") == "SKIPPED")
    passed = len(cases) - failed - skipped
    verdict = "PASS" if failed == 0 and status == 0 else "FAIL"
    # On a GPU machine only the checks for machines without a device may skip.
    device_skips = sum(1 for case in cases if case.get("result") == "SKIPPED"
                       and not case["classname"].startswith("CudaWithoutDevice"))
    if device_skips:
        verdict = f"FAIL (device tests skipped: {log})"
    rows.append((label, f"{passed} passed, {failed} failed, {skipped} skipped", "-", "all pass", verdict))

test_row("engine_cuda_tests", "tests.json", tests_status, "tests.log")
test_row("distributed_nccl_tests", "nccl_tests.json", nccl_status, "nccl_tests.log")

def benchmarks():
    try:
        data = json.load(open(os.path.join(out, "bench.json")))
    except (OSError, ValueError):
        return {}
    return {b["name"]: b for b in data.get("benchmarks", []) if not b.get("error_occurred")}

bench = benchmarks()

def counter(name, key):
    entry = bench.get(name + "/real_time")
    return entry.get(key) if entry else None

def compare(label, engine, reference, unit, key, target):
    mine, theirs = counter(engine, key), counter(reference, key)
    if mine is None or theirs is None:
        rows.append((label, "missing (bench.log)", "-", f">= {target:.0%}", "FAIL"))
        return
    ratio = mine / theirs
    rows.append((label, f"{mine:.1f} {unit}",
                 f"{theirs:.1f} {unit}", f"{ratio:.0%} (>= {target:.0%})",
                 "PASS" if ratio >= target else "FAIL"))

for n in (1024, 4096):
    compare(f"matmul n={n} vs cuBLAS", f"BM_EngineMatmulCuda/{n}", f"BM_CublasSgemmDirect/{n}",
            "TFLOP/s", "TFLOP/s", 0.9)
for n, label in ((1 << 20, "4 MiB"), (1 << 26, "256 MiB")):
    target = 0.8 if n == 1 << 26 else 0.0
    compare(f"add {label} vs D2D copy", f"BM_EngineAddCuda/{n}", f"BM_DeviceToDeviceCopy/{n}",
            "GB/s", "GB/s", target)
fused, unfused = counter("BM_LinearReluCuda/1", "real_time"), counter("BM_LinearReluCuda/0", "real_time")
if fused is None or unfused is None:
    rows.append(("linear+ReLU fused vs two ops", "missing (bench.log)", "-", "-", "FAIL"))
else:
    rows.append(("linear+ReLU 4096x1024 (ms)", f"fused {fused:.2f}", f"two ops {unfused:.2f}",
                 f"{unfused / fused:.2f}x (> 1)", "PASS" if fused < unfused else "FAIL"))
measured, heuristic = counter("BM_CnnTrainingStepCudaMeasuredAlgorithms/512", "real_time"), counter("BM_CnnTrainingStepCuda/512", "real_time")
if measured is None or heuristic is None:
    rows.append(("CNN step 512: cuDNN search", "missing (bench.log)", "-", "-", "FAIL"))
else:
    rows.append(("CNN step 512: cuDNN search (ms)", f"measured {measured:.2f}", f"heuristic {heuristic:.2f}",
                 f"{heuristic / measured:.2f}x", "-"))
for batch in (64, 512):
    gpu_step = counter(f"BM_CnnTrainingStepCuda/{batch}", "real_time")
    cpu_step = counter(f"BM_CnnTrainingStepCpu/{batch}", "real_time")
    if gpu_step is None or cpu_step is None:
        rows.append((f"CNN step batch {batch}", "missing (bench.log)", "-", "-", "FAIL"))
    else:
        rows.append((f"CNN step batch {batch} (ms)", f"GPU {gpu_step:.2f}", f"CPU {cpu_step:.2f}",
                     f"{cpu_step / gpu_step:.1f}x faster", "-"))

widths = [max(len(str(row[i])) for row in rows + [("check", "engine", "reference", "ratio / target", "verdict")]) for i in range(5)]
header = ("check", "engine", "reference", "ratio / target", "verdict")
for row in [header] + rows:
    print(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
print(f"logs and JSON in {out}; bench exit {bench_status}")
failed = [row[0] for row in rows if row[4].startswith("FAIL")]
if failed:
    print(f"FAILED: {', '.join(failed)}")
sys.exit(1 if failed else 0)
PY
