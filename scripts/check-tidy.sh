#!/usr/bin/env bash
# Fails when clang-tidy (.clang-tidy) warns in a C++ source or header that the change touches.
# usage: scripts/check-tidy.sh [BUILD_DIR]   (BUILD_DIR holds compile_commands.json; build/ci)
#
# The change: the files changed since TSCOPE_TIDY_BASE when it is set; else since the merge-base
# with origin/main where that remote branch exists and HEAD is not on it; else the last commit's
# (for a merge commit, all that the merge brought against its first parent). A clone without the
# commit before HEAD has nothing to compare with, and says so. Each changed .cpp is checked, with
# warnings kept to the changed files; a changed header is checked through the changed sources
# that include it. CUDA (.cu) files are left out: clang-tidy would need a CUDA-capable clang.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:-build/ci}
# 19 (Debian bookworm's clang-tidy-19) parses all the C++20 the code uses; 14 does not.
clang_tidy=${CLANG_TIDY:-clang-tidy-19}
if ! command -v "$clang_tidy" >/dev/null; then
  echo "check-tidy: $clang_tidy not found (Debian package clang-tidy-19)" >&2
  exit 2
fi
if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "check-tidy: no $build_dir/compile_commands.json; configure the build first" >&2
  exit 2
fi

base=${TSCOPE_TIDY_BASE:-}
if [ -z "$base" ] && git rev-parse -q --verify origin/main >/dev/null; then
  merge_base=$(git merge-base HEAD origin/main)
  if [ "$merge_base" != "$(git rev-parse HEAD)" ]; then base=$merge_base; fi
fi
if [ -z "$base" ]; then
  if ! git rev-parse -q --verify 'HEAD~1' >/dev/null; then
    echo "check-tidy: no commit before HEAD in this clone; nothing to compare with, nothing checked"
    exit 0
  fi
  base='HEAD~1'
fi

mapfile -t changed < <(git diff --name-only --diff-filter=AM "$base" HEAD -- \
  '*.cpp' '*.cc' '*.h' '*.hpp' | grep -v '^build' || true)
sources=()
for file in "${changed[@]}"; do
  case "$file" in
    *.cpp | *.cc)
      # Only sources the build compiles (a file the build leaves out has no command to run).
      if grep -q "\"file\": \".*/$file\"" "$build_dir/compile_commands.json"; then sources+=("$file"); fi
      ;;
  esac
done
if [ "${#sources[@]}" -eq 0 ]; then
  echo "check-tidy: no changed C++ source since $(git rev-parse --short "$base")"
  exit 0
fi

# Warnings only in the changed files: a header nobody changed is not this change's to fix. The
# commands are GCC's, so clang-tidy passes over GCC-only warning flags (-Wno-restrict, CMakeLists.txt).
line_filter="["
for file in "${changed[@]}"; do line_filter+="{\"name\":\"$file\"},"; done
line_filter="${line_filter%,}]"

echo "check-tidy: ${#sources[@]} changed sources since $(git rev-parse --short "$base")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! printf '%s\0' "${sources[@]}" |
  xargs -0 -n 1 -P "$(nproc)" "$clang_tidy" -p "$build_dir" --quiet --line-filter="$line_filter" \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
  grep -E 'warning:|error:' -A3 "$log" >&2 || cat "$log" >&2
  echo "check-tidy: clang-tidy warns in the files above; fix them (or, where a check is wrong" \
    "for this code, say why in .clang-tidy)" >&2
  exit 1
fi
echo "check-tidy: no warnings"
