#!/usr/bin/env bash
# Installs the viewers pinned in package-lock.json into FOLDER/node_modules for the viewer tests,
# once per lock file. Exits 77 (CTest's skip) when npm or the registry cannot be had.
set -uo pipefail
folder=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$folder"
if cmp -s "$here/package-lock.json" "$folder/package-lock.json" &&
   [ -f "$folder/node_modules/speedscope/dist/release/index.html" ]; then
  echo "viewers already installed in $folder"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "SKIP: npm is not installed, so the viewer tests cannot fetch speedscope and the trace engines"
  exit 77
fi
cp "$here/package.json" "$here/package-lock.json" "$folder/"
if ! (cd "$folder" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error); then
  rm -f "$folder/package-lock.json"
  echo "SKIP: npm could not install the pinned viewers (is the registry reachable?)"
  exit 77
fi
