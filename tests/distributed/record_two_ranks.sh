#!/usr/bin/env bash
# Records a small two-rank data-parallel training run of the Fashion-MNIST MLP over MPI, one
# trace per rank, the way a user does: mpirun -np 2 tscope record -o r%r.tsc -- train_fashion_mnist
# --distributed ...
#
#   record_two_ranks.sh BUILD_DIR OUTPUT_DIR [train_fashion_mnist switches...]
#
# writes OUTPUT_DIR/r0.tsc and OUTPUT_DIR/r1.tsc: 12 steps (TSCOPE_TWO_RANK_STEPS) of the MLP,
# global batch 64 (32 per rank); extra switches (--slow-rank 1 --slow-ms 30, --no-overlap,
# --bucket-mb) go to the example. Exits 77 when mpirun is not installed. As root (CI containers)
# OpenMPI needs its consent, two ranks on fewer cores need oversubscription, and containers often
# forbid the cross-process reads of OpenMPI's shared-memory single copy. Two ranks share the
# machine's cores, so each does its GEMMs on one BLAS thread and a rank waiting in MPI yields the
# core instead of spinning, and no rank is bound to one core (its main and communication threads
# would then share it): otherwise the waiting rank slows the one it waits for, and a run with no
# planted delay shows a straggler the program did not cause.
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 BUILD_DIR OUTPUT_DIR [train_fashion_mnist switches...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
output=$2
shift 2
if ! command -v mpirun >/dev/null; then
  echo "record_two_ranks: mpirun not found (install openmpi-bin)" >&2
  exit 77
fi
mkdir -p "$output"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
cd "$output"
exec mpirun -np 2 --oversubscribe --bind-to none "$build/bin/tscope" record -o 'r%r.tsc' -- \
  "$build/bin/train_fashion_mnist" --distributed --model mlp --epochs 1 --steps "${TSCOPE_TWO_RANK_STEPS:-12}" \
  --batch-size 64 --workers 0 --data-dir "${TSCOPE_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}" \
  "$@"
