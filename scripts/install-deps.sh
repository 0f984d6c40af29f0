#!/usr/bin/env bash
# Installs every Debian package tensorscope needs to build, test and run its examples.
# Idempotent: packages already present are left alone, and `apt-get update` runs at most once.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libopenblas-dev zlib1g-dev libzstd-dev libsimdjson-dev libcli11-dev libfmt-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  dataset-fashion-mnist
  libimgui-dev libglfw3-dev libgl-dev libstb-dev xvfb xauth libgl1-mesa-dri
  clang libclang-rt-14-dev
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
