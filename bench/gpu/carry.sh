# What the device checks carry to a GPU machine that has no package registry and none of the
# build's Debian libraries, and how they find the CUDA libraries that machine does have. Sourced
# by check.sh, cupti_check.sh, device_check.sh and carry_test.sh; `device_check.sh pack BUILD_DIR`
# writes the archive.
#
# The carry folder holds bin/ (the programs without debug information), lib/ (what they load
# except the C library, the driver and the CUDA libraries) and data/fashion-mnist (the training
# set, for the engine's GPU training). cuBLAS, cuBLASLt, cuDNN and NCCL (over 1 GiB together) are
# not carried: the machine's CUDA 13 toolkit or PyTorch's nvidia wheels provide them (NCCL is
# loaded at run time, as libnccl.so.2).

# The programs of every device check, relative to a build folder. The library goes to lib/.
carry_programs=(
  tests/engine/engine_cuda_tests
  bench/bench_gpu_engine
  bin/tscope
  bin/train_fashion_mnist
  lib/libtscope_inject.so
  tests/profiler/profiler_cupti_tests
  tests/distributed/distributed_nccl_tests
)

# check_folders [CARRY_DIR]: where a device check works, for check.sh and cupti_check.sh: $out
# (its logs: $OUT, else a new temporary folder) and $carry (CARRY_DIR, else the build-cuda one).
check_folders() {
  out=${OUT:-$(mktemp -d)}
  mkdir -p "$out"
  carry=${1:-$repo/build-cuda/gpu-carry}
}

# pack_carry BUILD_DIR CARRY_DIR: fills CARRY_DIR from the build. The programs' RPATH becomes
# $ORIGIN/../lib (the library's $ORIGIN), so they find the carried libraries wherever the carry is
# unpacked and without LD_LIBRARY_PATH. It is DT_RPATH, not DT_RUNPATH, because only DT_RPATH also
# serves the carried libraries' own dependencies (OpenBLAS's libgfortran, for one).
pack_carry() {
  local build=$1 carry=$2 program copy
  command -v patchelf >/dev/null || { echo "patchelf is needed to pack a carry (Debian: patchelf)" >&2; return 2; }
  rm -rf "$carry"
  mkdir -p "$carry/bin" "$carry/lib" "$carry/data"
  for program in "${carry_programs[@]}"; do
    [[ -e $build/$program ]] || { echo "missing $build/$program: build it first" >&2; return 2; }
    case $program in
      lib/*) copy=$carry/lib/$(basename "$program") ;;
      *) copy=$carry/bin/$(basename "$program") ;;
    esac
    strip --strip-debug -o "$copy" "$build/$program"
    case $program in
      lib/*) patchelf --force-rpath --set-rpath '$ORIGIN' "$copy" ;;
      *) patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$copy" ;;
    esac
    ldd "$build/$program" | awk '$3 ~ /^\// {print $3}' |
      grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda|libnvidia-[^/]*|libcublas[^/]*|libcudart[^/]*|libcudnn[^/]*)\.so' |
      xargs -r cp -Ln -t "$carry/lib/"
  done
  # A carried library with a DT_RUNPATH of its own (OpenMPI's, naming its Debian folder) would
  # look for its dependencies there and not through the programs' RPATH: point it at the carry.
  for copy in "$carry"/lib/*; do
    if [[ -n $(patchelf --print-rpath "$copy" 2>/dev/null) ]]; then
      patchelf --force-rpath --set-rpath '$ORIGIN' "$copy"
    fi
  done
  # CUPTI is loaded at run time, so ldd does not list it; it is small and matches the headers the
  # profiler was built with.
  cp -Ln /usr/local/cuda/lib64/libcupti.so.* "$carry/lib/" 2>/dev/null || true
  cp -r "${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}" "$carry/data/fashion-mnist"
}

# The carried programs, each a path under the carry.
carried_programs() {
  local carry=$1 program
  for program in "${carry_programs[@]}"; do
    case $program in
      lib/*) echo "$carry/lib/$(basename "$program")" ;;
      *) echo "$carry/bin/$(basename "$program")" ;;
    esac
  done
}

# use_carry CARRY_DIR: finds the machine's CUDA libraries (cuBLAS, cuDNN: not carried) and sets
# carry_library_path to the carried and those folders, for run_carried; points the checks at the
# carried data. Sets variables in the calling shell, so it must not run in a subshell such as
# $(use_carry ...). cuda_library_folders says where the CUDA libraries were found ("none");
# machine_env is an `env` command that gives a program the machine's own LD_LIBRARY_PATH back.
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
  carry_library_path=$carry/lib
  for dir in "${found[@]}"; do
    [[ :$carry_library_path: == *:$dir:* ]] || carry_library_path+=":$dir"
  done
  cuda_library_folders=${found[*]:-none}
  if [[ -n ${LD_LIBRARY_PATH+set} ]]; then
    machine_env=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH")
  else
    machine_env=(env -u LD_LIBRARY_PATH)
  fi
  export FASHION_MNIST_DIR=${FASHION_MNIST_DIR:-$carry/data/fashion-mnist}
}

# run_carried CMD ARGS...: runs one of our programs with the carry's library path ahead of the
# machine's. Only our programs get it: a program of the machine (python3 with PyTorch) must keep
# its own libraries, so what `tscope record` runs gets the machine's path back ("${machine_env[@]}").
run_carried() {
  LD_LIBRARY_PATH=$carry_library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"
}

# probe_devices CARRY_DIR OUT_DIR: asks the carried `tscope doctor` for the machine's devices
# (its report in OUT_DIR/doctor.json) and prints one line: the devices and driver, or
# "no device: " and the first thing doctor found wrong. Fails when no device answers.
probe_devices() {
  local carry=$1 out=$2
  run_carried "$carry/bin/tscope" doctor --json --no-bandwidth >"$out/doctor.json" 2>"$out/doctor.log"
  python3 - "$out/doctor.json" "$out/doctor.log" <<'PY'
import json, sys

try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError) as error:
    log = open(sys.argv[2]).read().strip().splitlines()
    print(f"no device: tscope doctor gave no report ({log[-1] if log else error})")
    sys.exit(1)
devices = report.get("devices") or []
if not devices:
    diagnoses = report.get("diagnoses", [])
    wrong = [d for d in diagnoses if d.get("status") == "error"] or [
        d for d in diagnoses if d.get("status") == "warning"]
    print("no device: " + (f"{wrong[0]['check']}: {wrong[0]['found']}" if wrong else "none reported"))
    sys.exit(1)
names = ", ".join(f"{d['name']} (sm {d['compute_capability']})" for d in devices)
print(f"{names}; driver {report.get('driver_version')}")
PY
}

# missing_libraries PROGRAM...: what the loader cannot find (or finds broken) for the carried
# PROGRAMs, one line per library and program (empty when all resolve).
missing_libraries() {
  local program
  for program in "$@"; do
    run_carried ldd "$program" 2>&1 | grep -E 'not found|error while loading' |
      sed "s|^|$(basename "$program"): |" || true
  done
}
