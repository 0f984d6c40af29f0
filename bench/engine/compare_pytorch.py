#!/usr/bin/env python3
"""The engine's training throughput next to PyTorch's on the same model, data and batch: for each
model (the example's CNN and MLP) and thread count, runs bench_engine's engine_throughput and
torch_throughput.py --repetitions times each, alternating the two so a busy stretch of a shared
machine slows both, then prints the median images/s of each and their ratio (engine over
PyTorch; above 1 the engine is faster) as a Markdown table, in wall-clock time and per second of
the process's CPU time (the figure a busy machine disturbs least at one thread).

Threads: the engine gets OPENBLAS_NUM_THREADS and TSCOPE_NUM_THREADS, PyTorch
torch.set_num_threads and OMP_NUM_THREADS, all set to the count. --engine-fused runs the engine's
models with their fused ops (engine_throughput --fused); PyTorch runs the same model unfused.
--max-cpu-isa avx2 measures both as a CPU without AVX-512 would run them: the engine without its
AVX-512 kernels (TSCOPE_MAX_CPU_ISA), OpenBLAS with its Haswell kernels (OPENBLAS_CORETYPE),
PyTorch's own kernels and oneDNN at AVX2 (ATEN_CPU_CAPABILITY, ONEDNN_MAX_CPU_ISA).
Exits 0 after saying so when PyTorch (Debian's python3-torch) is not installed."""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXIT_NO_TORCH = 3


FIGURES = ("images_per_second", "images_per_cpu_second")

# The environment that holds each library to AVX2 (see the module's description).
AVX2_ENVIRONMENT = {"TSCOPE_MAX_CPU_ISA": "avx2", "OPENBLAS_CORETYPE": "Haswell",
                    "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


def throughput(command, threads, isa_environment):
    """Runs one measurement; returns ({figure: value}, exit code, message)."""
    environment = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
                       TSCOPE_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
                       **isa_environment)
    result = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return None, result.returncode, result.stderr.strip()
    figures = {}
    for line in result.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name in FIGURES:
            figures[name] = float(value)
    if len(figures) != len(FIGURES):
        return None, 1, f"expected {' and '.join(FIGURES)} lines, got: {result.stdout!r}"
    return figures, 0, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", default="build/ci", help="where bench/engine_throughput is")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--models", default="cnn,mlp")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--engine-fused", action="store_true",
                        help="the engine's fused linear + ReLU and convolution + bias + ReLU ops")
    parser.add_argument("--max-cpu-isa", choices=["native", "avx2"], default="native",
                        help="avx2: both as on a CPU without AVX-512")
    args = parser.parse_args()

    engine = Path(args.build_dir) / "bench" / "engine_throughput"
    if not engine.is_file():
        sys.exit(f"compare_pytorch: {engine} not found; build the engine_throughput target")
    common = ["--steps", str(args.steps), "--warmup", str(args.warmup),
              "--batch-size", str(args.batch_size), "--data-dir", args.data_dir]
    isa_environment = AVX2_ENVIRONMENT if args.max_cpu_isa == "avx2" else {}
    load_before = os.getloadavg()[0]
    rows = []
    for model in args.models.split(","):
        for threads in [int(count) for count in args.threads.split(",")]:
            commands = {
                "engine": [str(engine), "--model", model] + common +
                          (["--fused"] if args.engine_fused else []),
                "pytorch": [sys.executable, str(HERE / "torch_throughput.py"), "--model", model,
                            "--threads", str(threads)] + common,
            }
            samples = {(name, figure): [] for name in commands for figure in FIGURES}
            for _ in range(args.repetitions):
                for name, command in commands.items():
                    figures, code, message = throughput(command, threads, isa_environment)
                    if name == "pytorch" and code == EXIT_NO_TORCH:
                        print(f"compare_pytorch: skipped, {message}")
                        return 0
                    if figures is None:
                        sys.exit(f"compare_pytorch: {' '.join(command)} failed ({code}): {message}")
                    for figure, value in figures.items():
                        samples[(name, figure)].append(value)
            medians = {key: statistics.median(values) for key, values in samples.items()}
            rows.append((model, threads, medians))
            for figure in FIGURES:
                print(f"{model}, {threads} thread(s), {figure}: engine "
                      f"{sorted(round(v) for v in samples[('engine', figure)])}, PyTorch "
                      f"{sorted(round(v) for v in samples[('pytorch', figure)])}", file=sys.stderr)

    print(f"load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; "
          f"{args.repetitions} repetitions of {args.steps} steps each, batch {args.batch_size}"
          f"{'; engine fused' if args.engine_fused else ''}"
          f"{'; both held to AVX2' if args.max_cpu_isa == 'avx2' else ''}")
    print("| model | threads | engine images/s | PyTorch images/s | engine / PyTorch "
          "| engine images/CPU-s | PyTorch images/CPU-s | engine / PyTorch (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for model, threads, medians in rows:
        cells = []
        for figure in FIGURES:
            ours, theirs = medians[("engine", figure)], medians[("pytorch", figure)]
            cells += [f"{ours:.0f}", f"{theirs:.0f}", f"{ours / theirs:.2f}"]
        print(f"| {model} | {threads} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
