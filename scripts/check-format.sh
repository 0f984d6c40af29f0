#!/usr/bin/env bash
# Fails when a C++ or CUDA file differs from .clang-format, naming each such file: every file git
# tracks and every new one it does not ignore (a file not yet added is checked too).
# `scripts/check-format.sh --fix` rewrites them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
  echo "check-format: $clang_format not found (Debian package clang-format)" >&2
  exit 2
fi

mapfile -t files < <(git ls-files --cached --others --exclude-standard --deduplicate \
  '*.cpp' '*.cc' '*.h' '*.hpp' '*.cu' '*.cuh' | while read -r file; do
  # A tracked file deleted in the working tree is not there to check.
  if [ -f "$file" ]; then echo "$file"; fi
done)
if [ "${1:-}" = "--fix" ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" -i
  exit 0
fi

unformatted=()
for file in "${files[@]}"; do
  if ! "$clang_format" --dry-run -Werror "$file" >/dev/null 2>&1; then unformatted+=("$file"); fi
done
if [ "${#unformatted[@]}" -ne 0 ]; then
  echo "check-format: ${#unformatted[@]} of ${#files[@]} files differ from .clang-format:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: all ${#files[@]} files formatted"
