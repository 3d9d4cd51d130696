#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""to_kineto.py - rewrite a trace from gen_trace into the PyTorch/Kineto shape
that Holistic Trace Analysis reads (doc/design.md 3): GPU pid 0 with
'kernel' and 'gpu_memcpy' events on stream tids, host 'cuda_runtime'
cudaLaunchKernel events linked by 'correlation', 'cpu_op' host ops,
'user_annotation' ProfilerStep#N step markers, distributedInfo.rank 0.
Same events, same times; the duplicate device views (TensorFlow Ops / Name
Scope lines, Steps line) are dropped, as Kineto has none.

Streams line by line (gen_trace writes one event per line), so memory stays
small. Usage: to_kineto.py IN.json[.gz] OUT.json.gz
"""
import gzip
import json
import sys

GPU_PID, HOST_PID = 1, 501
STREAMS = {13, 14, 15}


def convert(e):
    ph, pid, tid = e.get("ph"), e.get("pid"), e.get("tid")
    args = e.get("args") or {}
    if ph == "M":
        if pid == GPU_PID:
            if tid is not None and tid not in STREAMS:
                return None
            e["pid"] = 0
            if e["name"] == "process_name":
                e["args"] = {"name": "GPU 0"}
        return e
    if ph != "X":
        return None
    name = e["name"]
    if pid == GPU_PID:
        if tid not in STREAMS:
            return None
        out = {"ph": "X", "pid": 0, "tid": tid, "ts": e["ts"], "dur": e["dur"]}
        corr = int(args.get("correlation_id", 0))
        if name.startswith("Memcpy"):
            size = int(args["memcpy_details"].split()[0][5:])
            kind = "HtoD (Pageable -> Device)" if name == "MemcpyH2D" else \
                "DtoH (Device -> Pinned)"
            out.update(cat="gpu_memcpy", name="Memcpy " + kind,
                       args={"device": 0, "stream": tid, "correlation": corr, "bytes": size})
        else:
            out.update(cat="kernel", name=name,
                       args={"device": 0, "stream": tid, "correlation": corr,
                             "grid": [80, 1, 1], "block": [256, 1, 1]})
        return out
    out = {"ph": "X", "pid": pid, "tid": tid, "ts": e["ts"], "dur": e["dur"]}
    if "correlation_id" in args:
        out.update(cat="cuda_runtime", name="cudaLaunchKernel",
                   args={"correlation": int(args["correlation_id"]), "cbid": 211})
    elif name == "train" and "step_num" in args:
        out.update(cat="user_annotation", name="ProfilerStep#%s" % args["step_num"],
                   args={})
    else:
        out.update(cat="cpu_op", name=name, args={})
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    opener = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
    n = 0
    with opener(src, "rt") as f, gzip.open(dst, "wt", compresslevel=1) as out:
        out.write('{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},\n'
                  '"deviceProperties": [{"id": 0, "name": "Synthetic GPU", "numSms": 80}],\n'
                  '"traceEvents": [\n')
        first = True
        for line in f:
            line = line.strip().rstrip(",")
            if not line.startswith('{"ph"'):
                continue
            e = convert(json.loads(line))
            if e is None:
                continue
            out.write(("" if first else ",\n") + json.dumps(e, separators=(",", ":")))
            first = False
            n += 1
        out.write("\n]}\n")
    print(n, file=sys.stderr)


if __name__ == "__main__":
    main()
