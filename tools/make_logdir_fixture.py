#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_logdir_fixture.py - write testdata/logdir/, a tiny TensorBoard logdir
for the logdir tests (newest run, --run, --list-runs, one report per host):

    logdir/train/plugins/profile/2024_01_01_10_00_00/hosta.trace.json.gz
    logdir/train/plugins/profile/2024_01_02_10_00_00/hosta.trace.json.gz
    logdir/train/plugins/profile/2024_01_02_10_00_00/hostb.trace.json.gz

    python3 tools/make_logdir_fixture.py [OUTDIR]   (default: testdata/logdir)

Synthetic (no profiler ran): each file is shaped like the TF2 trace viewer's
JSON (/device:GPU:0 with a compute stream, a copy stream and a "Steps" line,
/host:CPU with the python thread), with 3 steps whose kernel time differs
per run and host, so reports tell them apart. gzip mtime is 0: reruns give
identical bytes.
"""
import gzip
import io
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), '..', 'testdata', 'logdir')


def trace(kernel_us, gap_us):
    ev = [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
        {"ph": "M", "pid": 1, "tid": 13, "name": "thread_name",
         "args": {"name": "Stream #13(Compute)"}},
        {"ph": "M", "pid": 1, "tid": 14, "name": "thread_name",
         "args": {"name": "Stream #14(MemcpyH2D)"}},
        {"ph": "M", "pid": 1, "tid": 3735928559, "name": "thread_name", "args": {"name": "Steps"}},
        {"ph": "M", "pid": 501, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "M", "pid": 501, "tid": 7, "name": "thread_name", "args": {"name": "python3"}},
    ]
    t = 1000.0
    for step in range(3):
        start = t
        ev.append({"ph": "X", "pid": 501, "tid": 7, "ts": t, "dur": gap_us,
                   "name": "IteratorGetNext", "args": {"group_id": str(step)}})
        t += gap_us
        ev.append({"ph": "X", "pid": 1, "tid": 14, "ts": t, "dur": 20.0, "name": "MemcpyH2D",
                   "args": {"group_id": str(step), "correlation_id": str(10 * step + 1),
                            "memcpy_details": "size:65536 dest:0 async:1"}})
        t += 20.0
        for k in range(2):
            ev.append({"ph": "X", "pid": 501, "tid": 7, "ts": t - 5.0, "dur": 4.0,
                       "name": "cudaLaunchKernel",
                       "args": {"group_id": str(step), "correlation_id": str(10 * step + 2 + k)}})
            ev.append({"ph": "X", "pid": 1, "tid": 13, "ts": t, "dur": kernel_us,
                       "name": "volta_sgemm_128x64_nn",
                       "args": {"group_id": str(step), "correlation_id": str(10 * step + 2 + k)}})
            t += kernel_us + 1.0
        ev.append({"ph": "X", "pid": 1, "tid": 3735928559, "ts": start, "dur": t - start,
                   "name": "train %d" % step, "args": {"group_id": str(step)}})
        t += 10.0
    ev.append({})
    return json.dumps({"displayTimeUnit": "ns", "traceEvents": ev}, separators=(',', ':'))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    buf = io.BytesIO()
    with gzip.GzipFile(filename='', mode='wb', fileobj=buf, mtime=0) as g:
        g.write(text.encode('utf-8'))
    with open(path, 'wb') as f:
        f.write(buf.getvalue())


base = os.path.join(OUT, 'train', 'plugins', 'profile')
write(os.path.join(base, '2024_01_01_10_00_00', 'hosta.trace.json.gz'), trace(100.0, 400.0))
write(os.path.join(base, '2024_01_02_10_00_00', 'hosta.trace.json.gz'), trace(300.0, 50.0))
write(os.path.join(base, '2024_01_02_10_00_00', 'hostb.trace.json.gz'), trace(250.0, 60.0))
