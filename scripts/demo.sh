#!/usr/bin/env bash
# The main job on a fresh Debian machine: installs the Debian packages, builds tensorscope,
# trains a CNN on Fashion-MNIST with the engine under the profiler (on the CPU when no GPU is
# present), then exports the trace to Chrome JSON and prints the analyzer's report.
# Outputs land in ${TSCOPE_OUT:-out}/: demo.tsc, demo.json.gz (open it in ui.perfetto.dev or
# chrome://tracing), report.md and report.html (the findings with charts, open it in any browser).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

build_dir=${TSCOPE_BUILD_DIR:-build/release}
out_dir=${TSCOPE_OUT:-out}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTSCOPE_TESTS=OFF -DTSCOPE_BENCH=OFF
cmake --build "$build_dir" -j "$(nproc)" --target train_fashion_mnist tscope
mkdir -p "$out_dir"

"$build_dir/bin/train_fashion_mnist" --model cnn --epochs 2 --trace "$out_dir/demo.tsc" "$@"
"$build_dir/bin/tscope" info "$out_dir/demo.tsc"
"$build_dir/bin/tscope" export --chrome "$out_dir/demo.json.gz" "$out_dir/demo.tsc"
"$build_dir/bin/tscope" analyze --format md "$out_dir/demo.tsc" > "$out_dir/report.md"
"$build_dir/bin/tscope" analyze --format html "$out_dir/demo.tsc" > "$out_dir/report.html"
"$build_dir/bin/tscope" analyze "$out_dir/demo.tsc"
