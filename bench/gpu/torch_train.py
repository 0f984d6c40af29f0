#!/usr/bin/env python3
"""A short PyTorch training loop (a small CNN on random Fashion-MNIST-shaped batches) for
bench/gpu/cupti_check.sh: the same program is run plain, under `tscope record` and under
torch.profiler, so that kernel counts, names and times and the step time can be compared.

The measured steps run inside the NVTX range "tscope_check_window", which `tscope record`
captures, so its kernels can be told apart from warm-up and start-up work; torch.profiler
records exactly those steps. Writes the median step time (and, under torch.profiler, its
Chrome trace) where asked.
"""

import argparse
import json
import statistics
import time

import torch
from torch import nn

WINDOW = "tscope_check_window"


def model():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=50, help="measured steps")
    parser.add_argument("--warmup", type=int, default=10, help="steps before measuring")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--torch-profiler-trace", help="profile the measured steps with "
                        "torch.profiler and write its Chrome trace here")
    parser.add_argument("--result", required=True, help="JSON file for the step times")
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda")
    net = model().to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    images = torch.randn(args.batch_size, 1, 28, 28, device=device)
    labels = torch.randint(0, 10, (args.batch_size,), device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(net(images), labels)
        loss.backward()
        optimizer.step()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()

    step_seconds = []

    def measured_steps():
        torch.cuda.nvtx.range_push(WINDOW)
        for _ in range(args.steps):
            start = time.perf_counter()
            step()
            torch.cuda.synchronize()
            step_seconds.append(time.perf_counter() - start)
        torch.cuda.nvtx.range_pop()

    if args.torch_profiler_trace:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as profile:
            measured_steps()
        profile.export_chrome_trace(args.torch_profiler_trace)
    else:
        measured_steps()

    with open(args.result, "w", encoding="utf-8") as out:
        json.dump({"steps": len(step_seconds),
                   "median_step_ms": statistics.median(step_seconds) * 1e3}, out)


if __name__ == "__main__":
    main()
