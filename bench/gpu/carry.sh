# What the device checks carry to a GPU machine that has no package registry and none of the
# build's Debian libraries, and how they find the CUDA libraries that machine does have. Sourced
# by check.sh, cupti_check.sh and device_check.sh; `bench/gpu/device_check.sh pack BUILD_DIR`
# writes the archive.
#
# The carry folder holds bin/ (the programs without debug information), lib/ (what they load
# except the C library, the driver and the CUDA libraries) and data/fashion-mnist (the training
# set, for the engine's GPU training). cuBLAS, cuBLASLt and cuDNN (over 1 GiB together) are not
# carried: the machine's CUDA 13 toolkit or PyTorch's nvidia wheels provide them.

# The programs of every device check, relative to a build folder. The library goes to lib/.
carry_programs=(
  tests/engine/engine_cuda_tests
  bench/bench_gpu_engine
  bin/tscope
  bin/train_fashion_mnist
  lib/libtscope_inject.so
  tests/profiler/profiler_cupti_tests
)

# pack_carry BUILD_DIR CARRY_DIR: fills CARRY_DIR from the build.
pack_carry() {
  local build=$1 carry=$2 program
  rm -rf "$carry"
  mkdir -p "$carry/bin" "$carry/lib" "$carry/data"
  for program in "${carry_programs[@]}"; do
    [[ -e $build/$program ]] || { echo "missing $build/$program: build it first" >&2; return 2; }
    case $program in
      lib/*) strip --strip-debug -o "$carry/lib/$(basename "$program")" "$build/$program" ;;
      *) strip --strip-debug -o "$carry/bin/$(basename "$program")" "$build/$program" ;;
    esac
    ldd "$build/$program" | awk '$3 ~ /^\// {print $3}' |
      grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda|libnvidia-[^/]*|libcublas[^/]*|libcudart[^/]*|libcudnn[^/]*)\.so' |
      xargs -r cp -Ln -t "$carry/lib/"
  done
  # CUPTI is loaded at run time, so ldd does not list it; it is small and matches the headers the
  # profiler was built with.
  cp -Ln /usr/local/cuda/lib64/libcupti.so.* "$carry/lib/" 2>/dev/null || true
  cp -r "${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}" "$carry/data/fashion-mnist"
}

# use_carry CARRY_DIR: puts the carried and the machine's CUDA libraries on the loader's path and
# points the checks at the carried data. Prints the folders it found for the CUDA libraries.
use_carry() {
  local carry=$1 dir
  local -a found=()
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib; do
    [[ -e $dir/libcublas.so.13 || -e $dir/libcudnn.so.9 ]] && found+=("$dir")
  done
  if command -v python3 >/dev/null; then
    while IFS= read -r dir; do found+=("$dir"); done < <(python3 - <<'PY' 2>/dev/null || true
import importlib, os
wanted = ("libcublas.so.13", "libcudnn.so.9")
for name in ("nvidia.cublas", "nvidia.cudnn", "nvidia.cu13", "nvidia"):
    try:
        module = importlib.import_module(name)
    except ImportError:
        continue
    for base in module.__path__:
        for root, _, files in os.walk(base):
            if any(w in files for w in wanted):
                print(root)
PY
    )
  fi
  local path=$carry/lib
  for dir in "${found[@]}"; do [[ :$path: == *:$dir:* ]] || path+=":$dir"; done
  export LD_LIBRARY_PATH=$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export FASHION_MNIST_DIR=${FASHION_MNIST_DIR:-$carry/data/fashion-mnist}
  echo "${found[*]:-none}"
}

# missing_libraries PROGRAM: what the loader cannot find for PROGRAM (empty when all resolve).
missing_libraries() {
  ldd "$1" 2>&1 | grep 'not found' || true
}
