#!/usr/bin/env bash
# The device check as it first meets a bare GPU machine, rehearsed on this one: packs a carry from
# the build (device_check.sh pack), unpacks it elsewhere and runs device_check.sh on it with a
# clean environment (env -i, a minimal PATH) in a private mount namespace where every Debian
# library the carry brings is hidden (/dev/null bound over its real file), except those the
# machine's own tools (bash, python3, tar, ...) load, which any machine has. Asserts that every
# carried program finds its libraries (in the carry, through its RPATH), that the engine and CUPTI
# halves both start, find no device and say so in their tables, that the results come back as one
# archive, and that the script exits non-zero. Needs root (unshare -m); skips (exit 77) without it
# or on a machine with a GPU, where device_check.sh itself is the test.
#
#   bench/gpu/carry_test.sh BUILD_DIR
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: carry_test.sh BUILD_DIR}" && pwd)
source "$repo/bench/gpu/carry.sh"

skip() {
  echo "SKIP: $*"
  exit 77
}
[[ $(id -u) == 0 ]] || skip "hiding the machine's libraries needs root (unshare -m, mount --bind)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
unshare -m true 2>/dev/null || skip "this machine refuses private mount namespaces (unshare -m)"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 &&
  skip "a GPU answers here: run bench/gpu/device_check.sh itself"

failures=0
check() {
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    echo "FAILED: $what"
    failures=$((failures + 1))
  fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

started=$SECONDS
"$repo/bench/gpu/device_check.sh" pack "$build"
echo "packed in $((SECONDS - started)) s"
tar -xzf "$build/gpu-carry.tar.gz" -C "$work"
carry=$work/gpu-carry

# The device check's PATH, and what the scripts run from it, whose libraries stay visible.
minimal_path=/usr/bin:/bin
machine_tools=(bash python3 tar gzip awk sed grep env cat cp mkdir mktemp dirname basename du cut
  sort tee ldd id)
declare -A kept=()
for tool in "${machine_tools[@]}"; do
  path=$(PATH=$minimal_path command -v "$tool") || continue
  while read -r library; do kept[$(readlink -f "$library")]=1; done < <(
    ldd "$path" 2>/dev/null | awk '$3 ~ /^\// {print $3}')
done
hidden=()
for carried in "$carry"/lib/*; do
  name=$(basename "$carried")
  for folder in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64; do
    [[ -e $folder/$name ]] || continue
    real=$(readlink -f "$folder/$name")
    [[ -z ${kept[$real]:-} ]] && hidden+=("$real")
  done
done
mapfile -t hidden < <(printf '%s\n' "${hidden[@]}" | sort -u)
echo "hidden from the carried programs: ${hidden[*]}"
check "libsimdjson and libfmt are among the hidden libraries" \
  bash -c '[[ "$1" == *libsimdjson.so.14* && "$1" == *libfmt.so.9* ]]' _ "${hidden[*]}"

mapfile -t programs < <(carried_programs "$carry")
use_carry "$carry"
cuda_path=${cuda_library_folders// /:}
# Inside the namespace: the libraries hidden, then every carried program's view of its libraries
# (with only the machine's CUDA folders on the path, as use_carry finds them: the Debian ones
# must come from the RPATH), then the device check.
inside=$(
  cat <<'SH'
set -u
carry=$1 repo=$2 cuda_path=$3 minimal_path=$4
shift 4
while [[ $1 != -- ]]; do mount --bind /dev/null "$1"; shift; done
shift
for program in "$@"; do
  echo "== ldd $program"
  LD_LIBRARY_PATH=$cuda_path ldd "$program" 2>&1
done
echo "== device_check"
env -i PATH="$minimal_path" HOME="$carry/.." OUT="$carry/../out" \
  bash "$repo/bench/gpu/device_check.sh" "$carry"
echo "== device_check exit $?"
SH
)
started=$SECONDS
output=$(unshare -m bash -c "$inside" _ "$carry" "$repo" "$cuda_path" "$minimal_path" "${hidden[@]}" -- "${programs[@]}" 2>&1) ||
  true
echo "device check under hidden libraries took $((SECONDS - started)) s"
echo "$output"

contains() { [[ $output == *"$1"* ]]; }
loads=$(awk '/^== ldd /{program=$3} /not found|error while loading/ {print program ": " $0}' \
  <<<"$output")
check "every carried program finds every library it loads" test -z "$loads"
from_carry() { grep -Eq "^\s+$1 => $carry/bin/\.\./lib/$1 " <<<"$output"; }
check "the hidden libfmt comes from the carry" from_carry 'libfmt\.so\.9'
check "the hidden libsimdjson comes from the carry" from_carry 'libsimdjson\.so\.14'
check "the hidden OpenBLAS comes from the carry" from_carry 'libopenblas\.so\.0'
check "the engine half starts" contains "== engine: CUDA tests and benchmarks"
check "the engine half runs its tests" bash -c 'grep -Eq "^engine_cuda_tests +\| [0-9]+ passed" <<<"$1"' _ "$output"
check "the engine half runs the NCCL group's tests" \
  bash -c 'grep -Eq "^distributed_nccl_tests +\| [0-9]+ passed" <<<"$1"' _ "$output"
check "the engine half finds all carried libraries" \
  bash -c 'grep -Eq "^carried programs load +\| [0-9]+ programs, 0 missing libraries .*PASS" <<<"$1"' _ "$output"
check "the CUPTI half starts" contains "== profiler: CUPTI capture"
check "the CUPTI half runs its conversion tests" \
  bash -c 'grep -Eq "^CUPTI conversion tests +\| [0-9]+ passed .*PASS" <<<"$1"' _ "$output"
check "both halves say in their tables that no device answers" \
  test "$(grep -Ec '^GPU +\| no device: .*FAIL' <<<"$output")" -eq 2
check "the device check exits non-zero" bash -c '[[ $1 =~ "== device_check exit "[1-9] ]]' _ "$output"
check "the tables come back as summary.txt" test -s "$work/out/summary.txt"
archived=$(tar -tzf "$work/out/device_check.tar.gz" 2>/dev/null || true)
check "the archive holds both halves' logs and tables" bash -c \
  '[[ $1 == *engine/tests.json* && $1 == *cupti/tests.log* && $1 == *summary.txt* ]]' _ "$archived"

if ((failures)); then
  echo "$failures checks failed"
  exit 1
fi
echo "all checks passed"
