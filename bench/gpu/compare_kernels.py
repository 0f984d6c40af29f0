#!/usr/bin/env python3
"""Compares the GPU kernels of two Chrome traces of the same PyTorch steps: one exported from a
`tscope record` trace (only kernels inside the NVTX range WINDOW count, the measured steps) and
one written by torch.profiler (which recorded only those steps). Prints one JSON object: kernel
counts, names present in one trace only, total kernel time of each and their relative gap.
Used by bench/gpu/cupti_check.sh.
"""

import collections
import gzip
import json
import sys

WINDOW = "tscope_check_window"


def events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as trace:
        loaded = json.load(trace)
    return loaded["traceEvents"] if isinstance(loaded, dict) else loaded


def kernels(trace_events):
    return [e for e in trace_events
            if e.get("ph") == "X" and e.get("cat", "").lower() == "kernel"]


def window_kernels(trace_events):
    windows = [e for e in trace_events if e.get("ph") == "X" and e.get("name") == WINDOW]
    if not windows:
        sys.exit(f"no NVTX range {WINDOW} in the tscope trace: NVTX capture did not see it")
    begin = windows[0]["ts"]
    end = begin + windows[0]["dur"]
    return [k for k in kernels(trace_events) if begin <= k["ts"] <= end]


def summary(found):
    return {"count": len(found),
            "total_us": sum(float(k["dur"]) for k in found),
            "names": collections.Counter(k["name"] for k in found)}


def main():
    tscope = summary(window_kernels(events(sys.argv[1])))
    torch = summary(kernels(events(sys.argv[2])))
    gap = (abs(tscope["total_us"] - torch["total_us"]) / torch["total_us"]
           if torch["total_us"] else float("inf"))
    print(json.dumps({
        "tscope_kernels": tscope["count"],
        "torch_kernels": torch["count"],
        "tscope_kernel_us": round(tscope["total_us"], 1),
        "torch_kernel_us": round(torch["total_us"], 1),
        "kernel_time_gap": round(gap, 4),
        "names_only_in_tscope": sorted((tscope["names"] - torch["names"]).keys())[:10],
        "names_only_in_torch": sorted((torch["names"] - tscope["names"]).keys())[:10],
    }))


if __name__ == "__main__":
    main()
