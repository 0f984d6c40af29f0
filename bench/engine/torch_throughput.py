#!/usr/bin/env python3
"""PyTorch's training throughput on the example's models (examples/fashion_mnist/models.cpp), for
bench/engine/compare_pytorch.py: the first warmup + steps batches of the Fashion-MNIST training
set (the same IDX .gz files, in file order, normalised with the engine's mean and std), loaded
before timing, then forward, cross-entropy, backward and an Adam step (lr 1e-3) per batch, as
bench/engine/engine_throughput.cpp times the engine. Prints "images_per_second VALUE" (wall
clock) and "images_per_cpu_second VALUE" (the process's CPU time, all threads).
Exits 3 with a message when PyTorch is not installed."""

import argparse
import gzip
import struct
import sys
import time

# The engine's FashionMnist::kPixelMean and kPixelStd.
PIXEL_MEAN = 0.2860
PIXEL_STD = 0.3530
EXIT_NO_TORCH = 3


def read_idx(path, expected_magic):
    with gzip.open(path, "rb") as stream:
        data = stream.read()
    magic = struct.unpack(">I", data[:4])[0]
    if magic != expected_magic:
        sys.exit(f"torch_throughput: {path}: magic {magic:#x}, expected {expected_magic:#x}")
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return data[4 + 4 * dims:], shape


def model(torch, kind):
    nn = torch.nn
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                             nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(800, 128), nn.ReLU(), nn.Linear(128, 10))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=["cnn", "mlp"], default="cnn")
    parser.add_argument("--steps", type=int, default=100, help="timed steps")
    parser.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_throughput: PyTorch is not installed (Debian: apt-get install python3-torch)",
              file=sys.stderr)
        return EXIT_NO_TORCH
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    count = (args.warmup + args.steps) * args.batch_size
    pixels, shape = read_idx(f"{args.data_dir}/train-images-idx3-ubyte.gz", 0x803)
    labels, _ = read_idx(f"{args.data_dir}/train-labels-idx1-ubyte.gz", 0x801)
    if count > shape[0]:
        sys.exit(f"torch_throughput: {count} images wanted, the training set has {shape[0]}")
    side = shape[1] * shape[2]
    images = torch.frombuffer(bytearray(pixels[:count * side]), dtype=torch.uint8)
    images = (images.float().div(255.0).sub(PIXEL_MEAN).div(PIXEL_STD)).view(count, 1, 28, 28)
    targets = torch.frombuffer(bytearray(labels[:count]), dtype=torch.uint8).long()
    batches = [(images[i:i + args.batch_size].contiguous(), targets[i:i + args.batch_size])
               for i in range(0, count, args.batch_size)]

    net = model(torch, args.model)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(inputs, labels_of_batch):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(net(inputs), labels_of_batch)
        loss.backward()
        optimizer.step()
        return loss.item()

    for inputs, labels_of_batch in batches[:args.warmup]:
        step(inputs, labels_of_batch)
    start = time.perf_counter()
    cpu_start = time.process_time()
    for inputs, labels_of_batch in batches[args.warmup:]:
        step(inputs, labels_of_batch)
    cpu_seconds = time.process_time() - cpu_start
    seconds = time.perf_counter() - start
    images = args.steps * args.batch_size
    print(f"images_per_second {images / seconds:.1f}")
    print(f"images_per_cpu_second {images / cpu_seconds:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
