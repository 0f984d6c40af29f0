#!/usr/bin/env bash
# The what-if checked against reality: for each planted problem of the training example whose fix
# the replay models, records the run with the problem and the run with its fix, one after the
# other on this machine, and prints the slow run's measured mean step, the replay's prediction for
# it with the finding's edit, and the fixed run's measured mean step, with the error.
#
#   bash bench/analyzer/whatif_against_fix.sh BUILD_DIR [REPEATS]
#
# BUILD_DIR holds bin/train_fashion_mnist and bin/tscope; each case runs REPEATS times (default 3).
# With mpirun installed, a two-rank MPI case follows: the planted straggler, replayed coupled.
set -euo pipefail
build_dir=${1:?usage: whatif_against_fix.sh BUILD_DIR [REPEATS]}
repeats=${2:-3}
train="$build_dir/bin/train_fashion_mnist"
tscope="$build_dir/bin/tscope"
data_dir=${TSCOPE_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The mean step of a trace's replayed steps, in ms, measured or with an edit applied.
mean_step_ms() {
  local trace=$1 field=$2
  shift 2
  "$tscope" whatif -q "$trace" --format json "$@" |
    python3 -c "import json, sys; print(f'{json.load(sys.stdin)[\"$field\"] / 1e6:.3f}')"
}

# The edits of the fusion findings whose chain has a member named OP (the chains a
# fused op replaces), as --edit arguments.
fusion_edits() {
  local trace=$1 member=$2
  "$tscope" analyze -q "$trace" --only fusion --format json | python3 -c "
import json, sys
for finding in json.load(sys.stdin)['findings']:
    for edit in finding.get('fix', []):
        if edit.startswith('fuse:') and '^$member\$' in edit:
            print('--edit'); print(edit)"
}

# case name | threads | arguments with the problem | arguments with the fix | edit, or
# fusion:OP for the fusion findings' edits whose chain has OP
cases=(
  "unfused GELU MLP|1|--model gelu-mlp --steps 60 --workers 1|--model gelu-mlp --steps 60 --workers 1 --fused|fusion:gelu"
  "unfused MLP|1|--model mlp --steps 60 --workers 1|--model mlp --steps 60 --workers 1 --fused|fusion:relu"
  "unfused CNN|1|--model cnn --steps 30 --workers 1|--model cnn --steps 30 --workers 1 --fused|fusion:relu"
  "slow loader, MLP, two workers|1|--model mlp --steps 40 --workers 1 --decode-passes 200|--model mlp --steps 40 --workers 2 --decode-passes 200|workers=2"
  "slow loader, CNN, two workers|1|--model cnn --steps 30 --workers 1 --decode-passes 20|--model cnn --steps 30 --workers 2 --decode-passes 20|workers=2"
  "slow loader, CNN, two workers|2|--model cnn --steps 30 --workers 1 --decode-passes 20|--model cnn --steps 30 --workers 2 --decode-passes 20|workers=2"
  "slow loader, MLP|1|--model mlp --steps 40 --workers 1 --decode-passes 200|--model mlp --steps 40 --workers 1|input-wait*0"
  "slow loader, MLP|2|--model mlp --steps 40 --workers 1 --decode-passes 200|--model mlp --steps 40 --workers 1|input-wait*0"
  "slow loader, CNN|1|--model cnn --steps 30 --workers 1 --decode-passes 20|--model cnn --steps 30 --workers 1|input-wait*0"
  "slow loader, CNN|2|--model cnn --steps 30 --workers 1 --decode-passes 20|--model cnn --steps 30 --workers 1|input-wait*0"
)

printf '| case | threads | run | with problem (ms) | predicted (ms) | fixed, measured (ms) | error |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for entry in "${cases[@]}"; do
  IFS='|' read -r name threads problem fixed edit <<<"$entry"
  for run in $(seq "$repeats"); do
    # shellcheck disable=SC2086  # the arguments are words
    TSCOPE_NUM_THREADS=$threads "$train" --data-dir "$data_dir" --epochs 1 --no-eval \
      --trace "$scratch/problem.tsc" $problem >/dev/null
    # shellcheck disable=SC2086
    TSCOPE_NUM_THREADS=$threads "$train" --data-dir "$data_dir" --epochs 1 --no-eval \
      --trace "$scratch/fixed.tsc" $fixed >/dev/null
    with_problem=$(mean_step_ms "$scratch/problem.tsc" measured_mean_ns)
    if [[ $edit == fusion:* ]]; then
      mapfile -t edits < <(fusion_edits "$scratch/problem.tsc" "${edit#fusion:}")
    else
      edits=(--edit "$edit")
    fi
    if ((${#edits[@]} == 0)); then
      predicted=$with_problem  # no finding: the replay predicts no change
    else
      predicted=$(mean_step_ms "$scratch/problem.tsc" predicted_mean_ns "${edits[@]}")
    fi
    measured=$(mean_step_ms "$scratch/fixed.tsc" measured_mean_ns)
    error=$(python3 -c "print(f'{100 * ($predicted - $measured) / $measured:+.1f}%')")
    printf '| %s (`%s`) | %s | %s | %s | %s | %s | %s |\n' "$name" "$edit" "$threads" "$run" \
      "$with_problem" "$predicted" "$measured" "$error"
  done
done

# The planted straggler of a two-rank MPI run, when mpirun is installed: the coupled what-if of the
# run with 20 ms of extra host work on rank 1, that work removed, against the run without it
# (means over both ranks).
ranks_mean_ms() {
  local field=$1
  shift
  "$tscope" whatif -q "$@" --format json | python3 -c "
import json, sys
ranks = json.load(sys.stdin)['ranks']
print(f'{sum(r[\"whatif\"][\"$field\"] for r in ranks) / len(ranks) / 1e6:.3f}')"
}
record_two_ranks="$(dirname "$0")/../../tests/distributed/record_two_ranks.sh"
if command -v mpirun >/dev/null; then
  for run in $(seq "$repeats"); do
    TSCOPE_TWO_RANK_STEPS=20 bash "$record_two_ranks" "$build_dir" "$scratch/slow" \
      --slow-rank 1 --slow-ms 20 >/dev/null 2>&1
    TSCOPE_TWO_RANK_STEPS=20 bash "$record_two_ranks" "$build_dir" "$scratch/fixed" >/dev/null 2>&1
    with_problem=$(ranks_mean_ms measured_mean_ns "$scratch"/slow/r{0,1}.tsc)
    predicted=$(ranks_mean_ms predicted_mean_ns "$scratch"/slow/r{0,1}.tsc \
      --edit 'op:planted host work*0')
    measured=$(ranks_mean_ms measured_mean_ns "$scratch"/fixed/r{0,1}.tsc)
    error=$(python3 -c "print(f'{100 * ($predicted - $measured) / $measured:+.1f}%')")
    printf '| straggler, 2-rank MPI MLP (`op:planted host work*0`) | 1 | %s | %s | %s | %s | %s |\n' \
      "$run" "$with_problem" "$predicted" "$measured" "$error"
  done
fi
