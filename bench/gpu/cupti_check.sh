#!/usr/bin/env bash
# Device validation of CUPTI capture on a GPU machine (see docs/PERFORMANCE.md, "CUPTI capture";
# bench/gpu/device_check.sh runs this and the engine's checks in one call):
#   1. the binaries from a carry folder (bench/gpu/carry.sh);
#   2. the CUPTI conversion tests;
#   3. the engine's Fashion-MNIST training on the GPU under `tscope record` (the IDX files in
#      $FASHION_MNIST_DIR, which the carry holds);
#   4. bench/gpu/torch_train.py under `tscope record` and under torch.profiler: kernel count,
#      kernel names and total kernel time of the measured steps (targets: counts and names equal,
#      time within 5%);
#   5. the same script's median step time with and without CUPTI capture (default records:
#      target at most 5% overhead; at batch 8, launch-bound: at most 3%; every -t record at
#      batch 8: reported).
# Prints one table and leaves the traces and logs under $OUT. A failed step is a FAIL row; the
# steps after it still run. Exits non-zero when any row fails, including when no device answers.
# Only our programs get the carry's library path: python3 and PyTorch keep the machine's, also
# when `tscope record` runs them.
#
#   bench/gpu/cupti_check.sh [CARRY_DIR]    (default: build-cuda/gpu-carry)
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo/bench/gpu/carry.sh"

check_folders "${1:-}"
steps=${STEPS:-50}
rows=()
row() { rows+=("$(printf '%-34s | %-38s | %-16s | %s' "$1" "$2" "$3" "$4")"); }

# 1. Binaries.
row "carry" "$carry" "-" "ok"
tscope=$carry/bin/tscope
[[ -x $tscope ]] || { echo "no tscope in $carry/bin: pack a carry first (bench/gpu/device_check.sh pack)" >&2; exit 2; }
use_carry "$carry"
echo "$cuda_library_folders" >"$out/cuda_folders.txt"
if probe_devices "$carry" "$out" >"$out/gpu.txt"; then
  row "GPU" "$(cat "$out/gpu.txt")" "a device" "PASS"
else
  row "GPU" "$(cat "$out/gpu.txt")" "a device" "FAIL"
fi

# 2. Conversion tests (the binary's child-process tests need the build tree, so only these).
if run_carried "$carry/bin/profiler_cupti_tests" \
  --gtest_filter='ActivityConverter*:CallbackNames*:InjectionBoundary*:GpuTraceSelection*' \
  >"$out/tests.log" 2>&1; then
  row "CUPTI conversion tests" "$(grep -c '^\[       OK' "$out/tests.log") passed" "all pass" "PASS"
else
  row "CUPTI conversion tests" "failed (tests.log)" "all pass" "FAIL"
fi

# The value of `key` in `tscope info`'s metadata, or of a category's span count.
info_value() { awk -v key="  $2:" 'index($0, key) == 1 {print $2; exit}' "$1"; }
category_count() { awk -v name="$2" '$1 == name && NF == 2 {print $2; exit}' "$1"; }
# A row for a metadata count that must be 0: LABEL INFO_FILE KEY.
zero_row() {
  local value
  value=$(info_value "$2" "$3")
  row "$1: $3" "${value:-missing}" "0" "$([[ $value == 0 ]] && echo PASS || echo FAIL)"
}

# 3. The engine on the GPU.
train=$carry/bin/train_fashion_mnist
if [[ -x $train ]] && run_carried "$train" --help 2>&1 | grep -q -- '--device'; then
  if run_carried "$tscope" record -o "$out/engine_gpu.tsc" -- "$train" --device cuda --steps "$steps" \
    --data-dir "$FASHION_MNIST_DIR" >"$out/engine_gpu.log" 2>&1; then
    run_carried "$tscope" info "$out/engine_gpu.tsc" >"$out/engine_gpu.info"
    flows=$(awk '/^events:/ {print $(NF-1)}' "$out/engine_gpu.info")
    row "engine GPU training: kernels" "$(category_count "$out/engine_gpu.info" kernel) kernels, $flows flows" \
      "> 0" "$([[ $(category_count "$out/engine_gpu.info" kernel) -gt 0 ]] && echo PASS || echo FAIL)"
    zero_row "engine GPU training" "$out/engine_gpu.info" cupti_incomplete_records
  else
    row "engine GPU training" "failed (engine_gpu.log)" "runs" "FAIL"
  fi
elif [[ -x $train ]]; then
  row "engine GPU training" "skipped: the example has no --device" "-" "SKIP"
else
  row "engine GPU training" "skipped: train_fashion_mnist not carried" "-" "SKIP"
fi

# Prints the table; fails when a row did.
print_table() {
  printf '%-34s | %-38s | %-16s | %s\n' check result target verdict
  local line failed=()
  for line in "${rows[@]}"; do
    echo "$line"
    [[ $line == *"| FAIL"* ]] && failed+=("$(sed 's/ *|.*//' <<<"$line")")
  done
  echo "traces and logs: $out"
  if ((${#failed[@]})); then
    echo "FAILED: $(printf '%s, ' "${failed[@]}" | sed 's/, $//')"
    return 1
  fi
}

if ! python3 -c 'import torch; assert torch.cuda.is_available()' >"$out/torch_check.log" 2>&1; then
  row "torch rows" "skipped: no torch with CUDA (torch_check.log)" "-" "SKIP"
  print_table
  exit
fi

# 4. PyTorch: the same measured steps under tscope record and under torch.profiler.
torch_train=(python3 "$repo/bench/gpu/torch_train.py" --steps "$steps")
run_carried "$tscope" record -o "$out/torch_tscope.tsc" -- "${machine_env[@]}" "${torch_train[@]}" \
  --result "$out/torch_tscope_1.json" >"$out/torch_tscope.log" 2>&1
"${torch_train[@]}" --torch-profiler-trace "$out/torch_profiler.json" \
  --result "$out/torch_profiler.json.steps" >"$out/torch_profiler.log" 2>&1
run_carried "$tscope" info "$out/torch_tscope.tsc" >"$out/torch_tscope.info"
run_carried "$tscope" export --chrome "$out/torch_tscope.json" "$out/torch_tscope.tsc"
python3 "$repo/bench/gpu/compare_kernels.py" "$out/torch_tscope.json" "$out/torch_profiler.json" \
  >"$out/compare.json"
field() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" \
    2>/dev/null || echo missing
}
# PASS when VALUE is a number no larger than LIMIT.
at_most() {
  python3 -c 'import sys
try:
    print("PASS" if float(sys.argv[1]) <= float(sys.argv[2]) else "FAIL")
except ValueError:
    print("FAIL")' "$1" "$2"
}
ours=$(field "$out/compare.json" tscope_kernels)
theirs=$(field "$out/compare.json" torch_kernels)
row "torch: kernel count" "tscope $ours, torch.profiler $theirs" "equal" \
  "$([[ $ours == "$theirs" ]] && echo PASS || echo FAIL)"
only_ours=$(field "$out/compare.json" names_only_in_tscope)
only_theirs=$(field "$out/compare.json" names_only_in_torch)
row "torch: kernel names" "only tscope: $only_ours; only torch: $only_theirs" "same names" \
  "$([[ $only_ours == "[]" && $only_theirs == "[]" ]] && echo PASS || echo FAIL)"
gap=$(field "$out/compare.json" kernel_time_gap)
row "torch: total kernel time" \
  "$(field "$out/compare.json" tscope_kernel_us) us vs $(field "$out/compare.json" torch_kernel_us) us" \
  "within 5%" "$(at_most "$gap" 0.05) ($gap)"
zero_row torch "$out/torch_tscope.info" cupti_dropped_records
zero_row torch "$out/torch_tscope.info" cupti_incomplete_records

# 5. Step time with and without capture, alternating runs so drift hits both alike; the best
# of two runs each. NAME TARGET (a fraction, or - to report only) TRACE (-t) TRAIN_ARGS...
best() {
  python3 -c 'import json,sys; print(min(json.load(open(p))["median_step_ms"] for p in sys.argv[1:]))' \
    "$@" 2>/dev/null || echo missing
}
overhead_row() {
  local name=$1 target=$2 trace=$3 round plain recorded overhead
  shift 3
  for round in 1 2; do
    "${torch_train[@]}" "$@" --result "$out/${name}_plain_$round.json" >>"$out/$name.log" 2>&1
    run_carried "$tscope" record -t "$trace" -o "$out/${name}_$round.tsc" -- "${machine_env[@]}" \
      "${torch_train[@]}" "$@" --result "$out/${name}_recorded_$round.json" >>"$out/$name.log" 2>&1
  done
  plain=$(best "$out/${name}_plain_"*.json)
  recorded=$(best "$out/${name}_recorded_"*.json)
  overhead=$(python3 -c "print(round(($recorded - $plain) / $plain, 4))" 2>/dev/null || echo missing)
  if [[ $target == - ]]; then
    row "$name: overhead, -t $trace" "${plain} ms plain, ${recorded} ms recorded" "-" "- ($overhead)"
  else
    row "$name: overhead, -t $trace" "${plain} ms plain, ${recorded} ms recorded" \
      "<= $(python3 -c "print(f'{$target:.0%}')")" "$(at_most "$overhead" "$target") ($overhead)"
  fi
}
# The CNN at batch 128, and a launch-bound step (batch 8: the GPU waits for launches) with the
# default records (the 3% target) and with every record, to show what -t adds.
overhead_row torch_cnn 0.05 runtime,sync
overhead_row torch_launch_bound 0.03 runtime,sync --batch-size 8
overhead_row torch_launch_bound_all - runtime,driver,sync,overhead --batch-size 8

print_table
