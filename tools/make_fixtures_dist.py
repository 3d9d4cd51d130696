#!/usr/bin/env python3
"""Make the four-rank distributed PyTorch fixtures in testdata/.

    python3 tools/make_fixtures_dist.py

Four ranks of one job (torch.multiprocessing.spawn, gloo backend over
127.0.0.1, world size 4) train a small MLP with DistributedDataParallel on
CPU, each under torch.profiler.profile(schedule(wait=1, warmup=1, active=5)),
CPU activity only. Each rank exports its own Kineto trace with
prof.export_chrome_trace, which carries distributedInfo (rank, world_size,
backend); it is gzipped deterministically to
testdata/dist_rank{0,1,2,3}.pt.trace.json.gz. Rank 2 is the straggler: in
every step it sleeps inside its forward pass (host compute of its own, in a
record_function span "straggle_sleep"), so the other ranks wait for it in
the gradient all_reduce. The script checks sizes, step markers and
distributedInfo, computes per-rank step times and the measured sleep of
each step with plain json, writes the README rows and the expected job
figures (tests/cli/job/expect_dist.txt: per step, the straggler and its
sleep, which its excess over the median rank must match within 5%).
"""

import os
import platform
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel
from torch.profiler import ProfilerActivity, profile, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_util as fu  # noqa: E402

SCRIPT = "tools/make_fixtures_dist.py"
WORLD = 4
WAIT, WARMUP, ACTIVE = 1, 1, 5
STEPS = WAIT + WARMUP + ACTIVE
BATCH, FEATURES, HIDDEN, CLASSES = 32, 128, 256, 4
# The straggler: rank SLOW_RANK sleeps SLOW_MS in its forward pass of every
# step.
SLOW_RANK, SLOW_MS = 2, 150
EXPECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                      "cli", "job", "expect_dist.txt")
PORT = 29517


def fname(rank):
    return "dist_rank%d.pt.trace.json.gz" % rank


class Straggle(torch.nn.Module):
    """Identity, except that it sleeps when told to: the slow rank's extra
    host compute, inside the forward pass of its own model."""

    def __init__(self):
        super().__init__()
        self.sleep_s = 0.0

    def forward(self, x):
        if self.sleep_s:
            with torch.profiler.record_function("straggle_sleep"):
                time.sleep(self.sleep_s)
        return x


def child(rank, out_dir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(PORT)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    straggle = Straggle()
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(), straggle,
        torch.nn.Linear(HIDDEN, CLASSES)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1 + rank)   # each rank its own shard
    data = [(torch.randn(BATCH, FEATURES, generator=g),
             torch.randint(0, CLASSES, (BATCH,), generator=g))
            for _ in range(STEPS)]

    def ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, "rank%d.json" % rank))

    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE,
                                   repeat=1),
                 on_trace_ready=ready, record_shapes=False) as prof:
        for step, (x, y) in enumerate(data):
            straggle.sleep_s = SLOW_MS / 1000.0 if rank == SLOW_RANK else 0.0
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()     # DDP all_reduces the gradients here
            opt.step()
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def sanity(path):
    """Steps, step times and distributedInfo from the exported trace."""
    doc = fu.load_chrome_doc(path)
    info = doc.get("distributedInfo") or {}
    if info.get("world_size") != WORLD or info.get("backend") != "gloo":
        sys.exit("%s: distributedInfo is %r" % (path, info))
    evs = fu.complete_events(doc.get("traceEvents", []))
    steps = sorted((a, b, int(fu.STEP_RE.match(n).group(1)))
                   for n, p, t, a, b, _ in evs if fu.STEP_RE.match(n))
    nums = [n for _, _, n in steps]
    if len(steps) != ACTIVE:
        sys.exit("%s: expected %d ProfilerStep#N markers, found %s"
                 % (path, ACTIVE, nums))
    ms = [(b - a) / 1000.0 for a, b, _ in steps]
    windows = [(a, b) for a, b, _ in steps]
    gloo = [(a, b) for n, p, t, a, b, _ in evs if n.startswith("gloo:")]
    sleeps = [(a, b) for n, p, t, a, b, _ in evs if n == "straggle_sleep"]
    return {
        "rank": info.get("rank"),
        "steps": nums,
        "ms": ms,
        "gloo": fu.covered_fraction(windows, gloo),
        "sleep_ms": [fu.union_len(sleeps, a, b) / 1000.0 for a, b, _ in steps],
    }


def main(argv):
    if len(argv) > 1:
        sys.exit("usage: %s (no arguments)" % SCRIPT)
    versions = "torch %s, Python %s" % (torch.__version__,
                                        platform.python_version())
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(child, args=(tmp,), nprocs=WORLD, join=True)
        for rank in range(WORLD):
            with open(os.path.join(tmp, "rank%d.json" % rank), "rb") as f:
                fu.write_gzip(os.path.join(fu.TESTDATA, fname(rank)), f.read())
    for rank in range(WORLD):
        out = os.path.join(fu.TESTDATA, fname(rank))
        size = fu.check_size(out)
        s = sanity(out)
        if s["rank"] != rank:
            sys.exit("%s: distributedInfo rank %r" % (out, s["rank"]))
        figure = ("steps ProfilerStep#%s, step times %s ms, "
                  "straggle_sleep per step %s ms, "
                  "gloo collectives (gloo:* ops) %s of step time"
                  % (",".join(map(str, s["steps"])),
                     " ".join("%.1f" % m for m in s["ms"]),
                     " ".join("%.1f" % m for m in s["sleep_ms"]),
                     fu.fmt_pct(s["gloo"])))
        role = ("sleeps %d ms in its forward pass of every step (the "
                "straggler)" % SLOW_MS if rank == SLOW_RANK else
                "waits for rank %d in each step's all_reduce" % SLOW_RANK)
        if rank == SLOW_RANK:
            with open(EXPECT, "w") as f:
                f.write("# tools/make_fixtures_dist.py: per step, the straggler "
                        "and its measured sleep (ns)\n")
                for n, ms in zip(s["steps"], s["sleep_ms"]):
                    f.write("step %d straggler %d sleep_ns %d\n"
                            % (n, rank, round(ms * 1e6)))
        fu.readme_row(fname(rank),
                      "PyTorch CPU Chrome trace (export_chrome_trace, gzip) "
                      "of rank %d of 4 (distributedInfo rank %d, world_size "
                      "4, backend gloo): DistributedDataParallel MLP "
                      "%d-%d-%d, batch %d per rank, SGD, 1 intra-op thread; "
                      "rank %d %s. Sanity: %s"
                      % (rank, rank, FEATURES, HIDDEN, CLASSES, BATCH, rank,
                         role, figure),
                      "`python3 %s`; %s; CPU only, torch.multiprocessing "
                      "spawn, gloo on 127.0.0.1, schedule(wait=%d, "
                      "warmup=%d, active=%d)"
                      % (SCRIPT, versions, WAIT, WARMUP, ACTIVE))
        print("wrote %s (%d bytes): %s" % (out, size, figure))


if __name__ == "__main__":
    main(sys.argv)
