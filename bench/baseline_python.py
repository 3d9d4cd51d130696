#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""baseline_python.py - what a user writes instead of a tool: load the Chrome
trace with the standard json module and compute per-step times.

Steps are the host markers ("train" with args.step_num, TF2), else the
device "Steps" line, else PyTorch ProfilerStep#N. For each step: its wall
time (marker duration) and the device busy time of kernels and copies that
carry its group_id. Prints one line per step, then the median.

Usage: baseline_python.py TRACE[.gz]   (prints "steps events" on stderr)
"""
import gzip
import json
import statistics
import sys


def main():
    path = sys.argv[1]
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc

    device_pids = set()
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            if "/device:" in str(e.get("args", {}).get("name", "")):
                device_pids.add(e.get("pid"))

    steps = {}          # step number -> (ts, dur)
    busy = {}           # group_id -> device busy us
    for e in events:
        if e.get("ph") != "X":
            continue
        args = e.get("args") or {}
        name = e.get("name", "")
        if "step_num" in args and name in ("train", "test", "TraceContext"):
            steps[int(args["step_num"])] = (float(e["ts"]), float(e["dur"]))
        elif name.startswith("ProfilerStep#"):
            steps[int(name[13:])] = (float(e["ts"]), float(e["dur"]))
        if e.get("pid") in device_pids and "group_id" in args and e.get("tid") in (13, 14, 15):
            g = int(args["group_id"])
            busy[g] = busy.get(g, 0.0) + float(e.get("dur", 0))

    times = []
    for n in sorted(steps):
        ts, dur = steps[n]
        times.append(dur)
        print("step %d: %.3f ms, device busy %.3f ms" % (n, dur / 1000, busy.get(n, 0) / 1000))
    if times:
        print("median step time: %.3f ms over %d steps" % (statistics.median(times) / 1000,
                                                          len(times)))
    print("%d %d" % (len(steps), len(events)), file=sys.stderr)


if __name__ == "__main__":
    main()
