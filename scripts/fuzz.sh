#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ from its committed corpus for a while, as many at once as
# there are cores, under the sanitizers the build was configured with (CI: address,undefined).
# Any crash, sanitizer report, leak, hang (10 s on one input) or use of more than 2 GiB fails the
# script, which then prints the fuzzer's report; libFuzzer leaves the input in the work folder.
#   scripts/fuzz.sh BUILD_DIR [SECONDS_PER_FUZZER] [WORK_DIR]
# New inputs go to WORK_DIR/<fuzzer>/, never into the committed corpus; to keep one as a regression
# test, minimise it (-minimize_crash=1) and copy it to fuzz/corpus/<fuzzer>/.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS_PER_FUZZER] [WORK_DIR]}
seconds=${2:-60}
work_dir=${3:-$(mktemp -d)}
fuzzers=(tsc_reader_fuzzer chrome_json_fuzzer chrome_json_gzip_fuzzer nsys_sqlite_fuzzer
  gbench_json_fuzzer policy_fuzzer cli_args_fuzzer)

# The first report ends the run, leaks included.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_fuzzer() {
  local fuzzer=$1 binary="$build_dir/fuzz/$1"
  mkdir -p "$work_dir/$fuzzer"
  # -close_fd_mask=1 drops the commands' stdout (the CLI fuzzer prints reports); stderr stays.
  if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=1 \
    -print_final_stats=1 -artifact_prefix="$work_dir/$fuzzer/" \
    "$work_dir/$fuzzer" "fuzz/corpus/$fuzzer" >"$work_dir/$fuzzer.log" 2>&1; then
    local runs
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work_dir/$fuzzer.log" | grep -o '[0-9]*$')
    echo "fuzz: $fuzzer: $runs executions in $seconds s, no crash"
  else
    echo "fuzz: $fuzzer FAILED; the end of its log:" >&2
    tail -n 80 "$work_dir/$fuzzer.log" >&2
    touch "$work_dir/$fuzzer.failed"
  fi
}

for fuzzer in "${fuzzers[@]}"; do
  if [ ! -x "$build_dir/fuzz/$fuzzer" ]; then
    echo "fuzz: $build_dir/fuzz/$fuzzer is missing (configure with -DTSCOPE_FUZZ=ON)" >&2
    exit 1
  fi
done

for fuzzer in "${fuzzers[@]}"; do
  # At most one fuzzer per core.
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  run_fuzzer "$fuzzer" &
done
wait
if compgen -G "$work_dir/*.failed" >/dev/null; then
  echo "fuzz: a fuzzer failed (inputs and logs in $work_dir)" >&2
  exit 1
fi
