#!/usr/bin/env python3
"""Make the GPU-shaped synthetic four-rank fixtures in testdata/.

    python3 tools/make_fixtures_gpu_ranks.py

This machine has no GPU, and on CPU-only gloo traces kernel launch delay
and queue depth are not defined (HTA computes neither there), so these
four Kineto-shaped traces (distributedInfo rank 0..3 of 4, backend nccl)
are written by this generator, seeded, the same bytes every run, to test
the figures HTA computes on GPU traces against ours
(tools/hta_job.py, tests/cli/job/hta.sh).

Each rank runs 4 steps (ProfilerStep#1..4), and the profiler stops 20 us
into a fifth. In a step the host launches
KERNELS compute kernels (cudaLaunchKernel, correlation ids) faster than
stream 7 runs them, so a queue builds up; then an NCCL all-reduce kernel on
stream 20 that starts when the rank's last bucket is ready (overlapping its
last compute kernels) and ends when the slowest rank's has started plus
the transfer time, as a real all-reduce does. Rank 3 is the straggler: its
compute kernels are 30% longer, so the others wait for it in the
all-reduce.
"""

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_util as fu  # noqa: E402

SCRIPT = "tools/make_fixtures_gpu_ranks.py"
WORLD, STEPS, KERNELS = 4, 4, 12
SLOW_RANK, SLOW_FACTOR = 3, 1.3
STEP_GAP_US = 200.0       # host work between steps
TRANSFER_US = 400.0       # all-reduce time once every rank has joined
PID_HOST, TID_HOST, PID_GPU = 4242, 4242, 0


def fname(rank):
    return "synth_gpu_rank%d.pt.trace.json.gz" % rank


def x(name, cat, pid, tid, ts, dur, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
         "ts": round(ts, 3), "dur": round(dur, 3)}
    if args:
        e["args"] = args
    return e


def plan():
    """Per rank and step, the kernels' durations and launch gaps; drawn
    once so that the all-reduce can wait for the slowest rank."""
    rng = random.Random(21)
    out = {}
    for r in range(WORLD):
        for s in range(STEPS):
            k = [rng.uniform(150, 400) * (SLOW_FACTOR if r == SLOW_RANK else 1)
                 for _ in range(KERNELS)]
            gaps = [rng.uniform(20, 60) for _ in range(KERNELS + 2)]
            delays = [rng.uniform(3, 30) for _ in range(KERNELS + 2)]
            out[r, s] = (k, gaps, delays)
    return out


def rank_events(rank, p, allreduce_end):
    ev, corr, t = [], 1, 1000.0 + rank * 0.137
    ev.append({"ph": "M", "name": "process_name", "pid": PID_HOST, "tid": 0,
               "args": {"name": "python"}})
    ev.append({"ph": "M", "name": "process_name", "pid": PID_GPU, "tid": 0,
               "args": {"name": "GPU 0"}})
    for s in range(STEPS):
        k, gaps, delays = p[rank, s]
        start, gpu_free, launch_t = t, t, t + 15.0
        body = []
        for i, dur in enumerate(k):
            ldur = 6.0 + gaps[i] / 10.0
            body.append(x("cudaLaunchKernel", "cuda_runtime", PID_HOST, TID_HOST,
                          launch_t, ldur, {"correlation": corr}))
            kstart = max(launch_t + ldur + delays[i], gpu_free)
            body.append(x("void gemm_kernel<%d>" % (i % 3), "kernel", PID_GPU, 7,
                          kstart, dur, {"device": 0, "stream": 7, "correlation": corr}))
            gpu_free = kstart + dur
            corr += 1
            launch_t += ldur + gaps[i]
        # the all-reduce: launched with the last bucket, starts two kernels
        # before this rank's compute ends (overlap), ends for all ranks
        # together
        ldur = 7.0
        body.append(x("cudaLaunchKernel", "cuda_runtime", PID_HOST, TID_HOST,
                      launch_t, ldur, {"correlation": corr}))
        ar_start = max(launch_t + ldur + delays[-2], gpu_free - k[-1] - k[-2] * 0.5)
        ar_end = allreduce_end[s]
        body.append(x("ncclKernel_AllReduce_RING_LL_Sum_float", "kernel", PID_GPU, 20,
                      ar_start, ar_end - ar_start,
                      {"device": 0, "stream": 20, "correlation": corr}))
        corr += 1
        launch_t += ldur + gaps[-2]
        # the optimizer kernel after the all-reduce
        ldur = 6.5
        body.append(x("cudaLaunchKernel", "cuda_runtime", PID_HOST, TID_HOST,
                      launch_t, ldur, {"correlation": corr}))
        kstart = max(launch_t + ldur + delays[-1], ar_end, gpu_free)
        body.append(x("void sgd_kernel", "kernel", PID_GPU, 7, kstart, 50.0,
                      {"device": 0, "stream": 7, "correlation": corr}))
        corr += 1
        end = kstart + 50.0 + 5.0
        body.append(x("cudaStreamSynchronize", "cuda_runtime", PID_HOST, TID_HOST,
                      launch_t + ldur + 2.0, end - (launch_t + ldur + 2.0)))
        ev.append(x("ProfilerStep#%d" % (s + 1), "user_annotation", PID_HOST, TID_HOST,
                    start, end - start))
        ev.extend(body)
        t = end + STEP_GAP_US
    # The profiler stops just after the next step began, as it does in
    # real traces: a last, empty ProfilerStep (HTA drops the last step;
    # ours calls it a tail).
    ev.append(x("ProfilerStep#%d" % (STEPS + 1), "user_annotation", PID_HOST, TID_HOST,
                t, 20.0))
    return ev


def compute_end(rank, p, s, step_start):
    """When rank's compute of step s would end on its own (for the
    all-reduce end): the GPU time of its kernels, launches overlapped."""
    k, gaps, delays = p[rank, s]
    launch_t, gpu_free = step_start + 15.0, step_start
    for i, dur in enumerate(k):
        ldur = 6.0 + gaps[i] / 10.0
        kstart = max(launch_t + ldur + delays[i], gpu_free)
        gpu_free = kstart + dur
        launch_t += ldur + gaps[i]
    return gpu_free


def main(argv):
    if len(argv) > 1:
        sys.exit("usage: %s (no arguments)" % SCRIPT)
    p = plan()
    # Steps start together on every rank (the previous all-reduce ended
    # for all at once): walk the steps, then write each rank.
    ends, t = [], [1000.0 + r * 0.137 for r in range(WORLD)]
    for s in range(STEPS):
        joined = max(compute_end(r, p, s, t[r]) for r in range(WORLD))
        ends.append(joined + TRANSFER_US)
        t = [None] * WORLD
        for r in range(WORLD):
            # a dry run of rank r's step to find where it ends
            ev = rank_events_step_end(r, p, s, ends)
            t[r] = ev
    for r in range(WORLD):
        doc = {"schemaVersion": 1,
               "deviceProperties": [{"id": 0, "name": "Synthetic GPU",
                                     "totalGlobalMem": 16000000000}],
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": WORLD},
               "traceName": fname(r), "displayTimeUnit": "ms",
               "traceEvents": rank_events(r, p, ends)}
        out = os.path.join(fu.TESTDATA, fname(r))
        fu.write_gzip(out, json.dumps(doc, indent=0).encode())
        size = fu.check_size(out)
        fu.readme_row(fname(r),
                      "Synthetic GPU-shaped Kineto trace of rank %d of %d (distributedInfo, "
                      "backend nccl): %d steps of %d compute kernels launched faster than "
                      "stream 7 runs them (a queue), an NCCL all-reduce on stream 20 "
                      "overlapping the last kernels; rank %d's kernels are %d%% longer, so "
                      "the others wait for it. For launch delay, queue depth and comm/comp "
                      "overlap against HTA (tools/hta_job.py)"
                      % (r, WORLD, STEPS, KERNELS, SLOW_RANK,
                         round((SLOW_FACTOR - 1) * 100)),
                      "`python3 %s` (seeded; no GPU needed)" % SCRIPT)
        print("wrote %s (%d bytes)" % (out, size))


def rank_events_step_end(rank, p, s, ends):
    """Where rank's step s ends, given the all-reduce ends so far: the
    start of its step s + 1."""
    ev = rank_events(rank, p, ends + [0] * (STEPS - len(ends)))
    steps = [e for e in ev if e["name"] == "ProfilerStep#%d" % (s + 1)]
    return steps[0]["ts"] + steps[0]["dur"] + STEP_GAP_US


if __name__ == "__main__":
    main(sys.argv)
