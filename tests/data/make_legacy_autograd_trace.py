"""Writes legacy_autograd_profiler_mlp.json.gz: a CPU training loop of a small MLP recorded by
PyTorch's legacy autograd profiler (torch.autograd.profiler.profile + export_chrome_trace), the
trace shape of PyTorch builds without Kineto: no "cat", pid "CPU functions". Each step is a
record_function("ProfilerStep#N") range, as torch.profiler names its steps.

Run with Debian's python3-torch: /usr/bin/python3 tests/data/make_legacy_autograd_trace.py
"""

import gzip
import os
import shutil
import tempfile

import torch

STEPS = 6
HERE = os.path.dirname(os.path.abspath(__file__))

torch.manual_seed(0)
torch.set_num_threads(1)
inputs = torch.randn(6 * 32, 64)
labels = torch.randint(0, 10, (6 * 32,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(inputs, labels), batch_size=32)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

with torch.autograd.profiler.profile() as profile:
    batches = iter(loader)
    for step in range(STEPS):
        with torch.autograd.profiler.record_function("ProfilerStep#%d" % step):
            x, y = next(batches)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()

with tempfile.TemporaryDirectory() as folder:
    plain = os.path.join(folder, "trace.json")
    profile.export_chrome_trace(plain)
    with open(plain, "rb") as source, open(
        os.path.join(HERE, "legacy_autograd_profiler_mlp.json.gz"), "wb"
    ) as target, gzip.GzipFile(fileobj=target, mode="wb", mtime=0) as packed:
        shutil.copyfileobj(source, packed)
