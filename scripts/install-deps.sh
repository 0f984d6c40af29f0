#!/usr/bin/env bash
# Installs every Debian package tensorscope needs to build, test and run its examples.
# Idempotent: packages already present are left alone, and `apt-get update` runs at most once.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libopenblas-dev zlib1g-dev libzstd-dev libsimdjson-dev libcli11-dev libfmt-dev libsqlite3-dev
  libre2-dev  # the regular expressions users write for names (report/name_regex.h)
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  dataset-fashion-mnist
  libimgui-dev libglfw3-dev libgl-dev libstb-dev xvfb xauth libgl1-mesa-dri
  clang libclang-rt-14-dev clang-format
  clang-tidy-19  # scripts/check-tidy.sh: clang-tidy 14 rejects C++20 the code uses (lambdas capturing
                 # structured bindings)
  patchelf
  protobuf-compiler  # protoc --decode_raw checks the Perfetto export (tests/trace)
  chromium  # speedscope in headless Chromium, for the viewer tests (tests/viewers)
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

export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
# The same list serves Debian 12 and the Ubuntu of NVIDIA's CUDA images; a package one archive
# lacks is named and skipped rather than failing the whole install.
installable=()
for package in "${missing[@]}"; do
  if apt-cache show "$package" >/dev/null 2>&1; then
    installable+=("$package")
  else
    echo "install-deps: $package is not in this distribution's archive, skipping it" >&2
  fi
done
if [ "${#installable[@]}" -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${installable[*]}"
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${installable[@]}"
