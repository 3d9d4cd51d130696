#!/usr/bin/env python3
"""Make the PyTorch fixtures in testdata/ from small real CPU training loops.

    python3 tools/make_fixtures_torch.py            # all scenarios
    python3 tools/make_fixtures_torch.py input      # one scenario

Each scenario runs torch.profiler.profile(schedule(wait=1, warmup=1,
active=3), CPU activity only, record_shapes=False) over 5 training steps (the
compiled one: schedule(wait=0, warmup=0, active=4), so that the step that
compiles is recorded; the annotated, epoch and parts ones: no schedule, no
prof.step(), their iterations for the analysis to find),
exports the Chrome trace with prof.export_chrome_trace, gzips it
deterministically into testdata/, checks its size and step markers, computes
a sanity figure with plain json and writes the README row.
"""

import math
import os
import platform
import sys
import tempfile
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_util as fu  # noqa: E402

WAIT, WARMUP, ACTIVE = 1, 1, 3
STEPS = WAIT + WARMUP + ACTIVE
SCRIPT = "tools/make_fixtures_torch.py"


class SlowDataset(torch.utils.data.Dataset):
    """Each sample costs `sleep_s` of host time, like a slow decoder."""

    def __init__(self, n, features, sleep_s):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, features, generator=g)
        self.y = torch.randint(0, 4, (n,), generator=g)
        self.sleep_s = sleep_s

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if self.sleep_s:
            time.sleep(self.sleep_s)
        return self.x[i], self.y[i]


def profiled_loop(out_json, batches, step_fn, wait=WAIT, warmup=WARMUP,
                  active=ACTIVE):
    """Run wait + warmup + active steps under the profiler; batches is an
    iterable."""
    def ready(prof):
        prof.export_chrome_trace(out_json)

    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=wait, warmup=warmup, active=active,
                                   repeat=1),
                 on_trace_ready=ready, record_shapes=False) as prof:
        for step, batch in enumerate(batches):
            if step >= wait + warmup + active:
                break
            step_fn(batch)
            prof.step()


def make_train_step(model, lr=0.01):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(batch):
        x, y = batch
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return step


def slow_loader_loop(out_json, workers):
    """A tiny MLP 16-16-4 fed batches of 8 slow samples (8 ms each)."""
    ds = SlowDataset(8 * (STEPS + 1 + 3 * workers), 16, 0.008)
    dl = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=workers,
                                     shuffle=False)
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 4))
    profiled_loop(out_json, dl, make_train_step(model))


def scenario_input(out_json):
    # num_workers=0: every __getitem__ (8 ms sleep) runs inside
    # enumerate(DataLoader)#..., 8 samples a batch = ~64 ms a step,
    # against a tiny model.
    slow_loader_loop(out_json, 0)
    return ("input-bound: DataLoader num_workers=0, __getitem__ sleeps 8 ms, "
            "batch 8, MLP 16-16-4")


def scenario_workers(out_json):
    # The same slow samples read by two worker processes: each worker makes
    # a batch in ~64 ms, so a batch is ready about every 32 ms, and the
    # tiny step waits for it in enumerate(DataLoader)#_MultiProcessing...
    slow_loader_loop(out_json, 2)
    return ("input-bound with workers: DataLoader num_workers=2, __getitem__ "
            "sleeps 8 ms, batch 8, MLP 16-16-4")


def scenario_compute(out_json):
    # Cheap data (in-memory tensors, no sleep), a heavier MLP.
    ds = SlowDataset(32 * (STEPS + 1), 1024, 0.0)
    dl = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=0,
                                     shuffle=False)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
                                torch.nn.Linear(2048, 2048), torch.nn.ReLU(),
                                torch.nn.Linear(2048, 4))
    torch.set_num_threads(1)
    profiled_loop(out_json, dl, make_train_step(model))
    return ("compute-bound: in-memory data, batch 32, MLP 1024-2048-2048-4, "
            "1 intra-op thread")


def scenario_host(out_json):
    # A Python loop of tiny tensor ops per step, with Python-side
    # bookkeeping between them: the thread that drives the step spends
    # most of its time in Python, outside any framework op.
    w = torch.zeros(8, requires_grad=True)
    batches = [torch.randn(8, generator=torch.Generator().manual_seed(s))
               for s in range(STEPS)]

    def step(x):
        h = x
        for i in range(20):
            scale = 0.5 + sum(math.sin(i + k) for k in range(200)) * 1e-6
            h = h * scale + w
        loss = h.sum()
        loss.backward()
        with torch.no_grad():
            w.sub_(0.01 * w.grad)
            w.grad.zero_()
    profiled_loop(out_json, batches, step)
    return ("host-bound: eager Python loop of 20 (mul, add) on 8-element "
            "tensors with ~50 us of Python between them, then backward")


# The compiled scenario records from the very first step (no wait, no
# warm-up in the schedule): the step in which torch.compile compiles must
# be in the trace, for the warm-up rule to find (doc/design.md 5.2).
COMPILED_ACTIVE = 3


def scenario_compiled(out_json):
    ds = SlowDataset(32 * (COMPILED_ACTIVE + 1), 64, 0.0)
    dl = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=0,
                                     shuffle=False)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 4))
    compiled = torch.compile(model)
    profiled_loop(out_json, dl, make_train_step(compiled), wait=0, warmup=0,
                  active=COMPILED_ACTIVE)
    return ("torch.compile'd MLP 64-64-4 (Inductor, CPU), batch 32: step 0 "
            "compiles (dynamo_timed events), steps 1-2 run the compiled "
            "graphs")


def small_mlp():
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 10))


def batches_of(seed, n, size=64):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(size, 256, generator=g),
             torch.randint(0, 10, (size,), generator=g)) for _ in range(n)]


def timed_profile(out_json, batches, step, loop_end=False, after=None):
    """Run step over batches under one profile() with no schedule and no
    prof.step() (autograd's first run outside it), then `after` inside it;
    the time from each iteration's start to the next (and to the loop's
    end with loop_end), in us."""
    step(*next(iter(batches)))
    starts = []
    with profile(activities=[ProfilerActivity.CPU], record_shapes=False) as prof:
        for x, y in batches:
            starts.append(time.perf_counter_ns())
            step(x, y)
        if loop_end:
            starts.append(time.perf_counter_ns())
        if after is not None:
            after()
    prof.export_chrome_trace(out_json)
    return [(b - a) / 1e3 for a, b in zip(starts, starts[1:])]


# The annotated scenario has no ProfilerStep#N: 0 markers expected, and
# its own sanity figures (annotated_sanity()).
ANNOTATED_STEPS = 5
ANNOTATION = "train_step"


def scenario_annotated(out_json):
    # Research-style code that tfprof-analyze must find the iterations of
    # with no prof.step(), no torch.optim and no DataLoader: the weights
    # updated by hand, each iteration in the user's own
    # record_function("train_step"), the whole loop under one profile().
    torch.set_num_threads(1)
    model = small_mlp()
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        with record_function(ANNOTATION):
            loss = loss_fn(model(x), y)
            model.zero_grad(set_to_none=True)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.01 * p.grad

    scenario_annotated.gaps_us = timed_profile(out_json, batches_of(2, ANNOTATED_STEPS), step)
    return ("no step marker: a loop of %d iterations, each in "
            "record_function(\"%s\"), MLP 256-512-10 on batches of 64, "
            "weights updated by hand (no torch.optim, no DataLoader), 1 "
            "intra-op thread, profiled from start to stop without "
            "prof.step()" % (ANNOTATED_STEPS, ANNOTATION))


def annotated_sanity(path):
    evs = fu.complete_events(fu.load_chrome(path))
    spans = sorted(a for n, p, t, a, b, _ in evs if n == ANNOTATION)
    if len(spans) != ANNOTATED_STEPS or any(fu.STEP_RE.match(n)
                                            for n, *_ in evs):
        sys.exit("%s: expected %d %s spans and no ProfilerStep#N"
                 % (path, ANNOTATED_STEPS, ANNOTATION))
    return ("%d %s spans on the main thread; from one iteration's start to "
            "the next (timed in the script): %s us"
            % (len(spans), ANNOTATION,
               ", ".join("%.1f" % g for g in scenario_annotated.gaps_us)))


EPOCH_BATCHES, EVAL_BATCHES = 6, 4


def scenario_epoch(out_json):
    # A whole epoch and the evaluation after it under one profile(), as a
    # user profiles an epoch by hand: no prof.step(); the training and the
    # evaluation DataLoaders' next batch have the same name.
    torch.set_num_threads(1)
    model = small_mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    # batches made ahead (batch_size=None): no collate of single samples,
    # whose ops would be most of the file
    tl = torch.utils.data.DataLoader(batches_of(3, EPOCH_BATCHES), batch_size=None)
    vl = torch.utils.data.DataLoader(batches_of(5, EVAL_BATCHES, 256), batch_size=None)

    def step(x, y):
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    def evaluate():
        with torch.no_grad():
            for x, _ in vl:
                model(x)

    scenario_epoch.gaps_us = timed_profile(out_json, tl, step, loop_end=True, after=evaluate)
    return ("no step marker: an epoch of %d training batches of 64 (a "
            "DataLoader of batches made ahead, torch.optim.SGD) then %d "
            "evaluation batches of 256 under torch.no_grad() from a second "
            "DataLoader, MLP 256-512-10, 1 intra-op thread, profiled from start "
            "to stop without prof.step()" % (EPOCH_BATCHES, EVAL_BATCHES))


def epoch_sanity(path):
    evs = fu.complete_events(fu.load_chrome(path))
    nexts = [n for n, *_ in evs if n.startswith(DL_RE)]
    steps = [n for n, *_ in evs if n.startswith("Optimizer.step#")]
    # each loader's last call ends its epoch: one more than its batches
    if (len(nexts) != EPOCH_BATCHES + EVAL_BATCHES + 2 or
            len(steps) != EPOCH_BATCHES or any(fu.STEP_RE.match(n) for n, *_ in evs)):
        sys.exit("%s: expected %d DataLoader calls and %d optimizer steps, found "
                 "%d and %d" % (path, EPOCH_BATCHES + EVAL_BATCHES + 2,
                                EPOCH_BATCHES, len(nexts), len(steps)))
    return ("%d enumerate(DataLoader) calls (%d training batches, %d "
            "evaluation batches, each loader's last), %d Optimizer.step; "
            "from one training batch's start to the next (timed in the "
            "script): %s us"
            % (len(nexts), EPOCH_BATCHES, EVAL_BATCHES, len(steps),
               ", ".join("%.1f" % g for g in scenario_epoch.gaps_us)))


PARTS = ("forward", "backward", "update")
PARTS_STEPS = 5


def scenario_parts(out_json):
    # Each part of each iteration in the user's record_function(), none
    # around the whole: no prof.step(), no torch.optim, no DataLoader.
    torch.set_num_threads(1)
    model = small_mlp()
    loss_fn = torch.nn.CrossEntropyLoss()
    def step(x, y):
        with record_function(PARTS[0]):
            loss = loss_fn(model(x), y)
        with record_function(PARTS[1]):
            model.zero_grad(set_to_none=True)
            loss.backward()
        with record_function(PARTS[2]):
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.01 * p.grad

    scenario_parts.gaps_us = timed_profile(out_json, batches_of(4, PARTS_STEPS), step,
                                           loop_end=True)
    return ("no step marker: a loop of %d iterations, each part in its own "
            "record_function (%s) and none around the whole, MLP 256-512-10 "
            "on batches of 64, weights updated by hand, 1 intra-op thread, "
            "profiled from start to stop without prof.step()"
            % (PARTS_STEPS, ", ".join('"%s"' % p for p in PARTS)))


def parts_sanity(path):
    evs = fu.complete_events(fu.load_chrome(path))
    for part in PARTS:
        if sum(1 for n, *_ in evs if n == part) != PARTS_STEPS:
            sys.exit("%s: expected %d %s spans" % (path, PARTS_STEPS, part))
    return ("%d spans each of %s; from one iteration's start to the next "
            "(timed in the script, the last to the loop's end): %s us"
            % (PARTS_STEPS, ", ".join(PARTS),
               ", ".join("%.1f" % g for g in scenario_parts.gaps_us)))


# name -> (scenario, output file, ProfilerStep#N markers expected, and for
# those with none the sanity figures of their own)
SCENARIOS = {
    "input": (scenario_input, "torch_input_bound.trace.json.gz", ACTIVE, None),
    "workers": (scenario_workers, "torch_input_workers.trace.json.gz", ACTIVE, None),
    "compute": (scenario_compute, "torch_compute_bound.trace.json.gz", ACTIVE, None),
    "host": (scenario_host, "torch_host_bound.trace.json.gz", ACTIVE, None),
    "compiled": (scenario_compiled, "torch_compiled.trace.json.gz",
                 COMPILED_ACTIVE, None),
    "annotated": (scenario_annotated, "torch_annotated.trace.json.gz", 0,
                  annotated_sanity),
    "epoch": (scenario_epoch, "torch_epoch_eval.trace.json.gz", 0, epoch_sanity),
    "parts": (scenario_parts, "torch_parts.trace.json.gz", 0, parts_sanity),
}

DL_RE = "enumerate(DataLoader)"


def sanity(path, active):
    """Steps and figures from the exported trace, plain json only."""
    evs = fu.complete_events(fu.load_chrome(path))
    steps = sorted((a, b, n) for n, p, t, a, b, _ in evs
                   if fu.STEP_RE.match(n))
    nums = [int(fu.STEP_RE.match(n).group(1)) for _, _, n in steps]
    if len(steps) != active:
        sys.exit("%s: expected %d ProfilerStep#N markers, found %s"
                 % (path, active, nums))
    windows = [(a, b) for a, b, _ in steps]
    dl = [(a, b) for n, p, t, a, b, _ in evs if n.startswith(DL_RE)]
    # CPU ops: everything except the step markers themselves and the
    # DataLoader spans (python functions do not appear: no with_stack).
    ops = [(a, b) for n, p, t, a, b, _ in evs
           if not fu.STEP_RE.match(n) and not n.startswith(DL_RE)
           and not n.startswith("Optimizer.") and n != "PyTorch Profiler (0)"]
    nops = sum(1 for n, p, t, a, b, _ in evs
               if any(a >= lo and b <= hi for lo, hi in windows)
               and n.startswith("aten::"))
    mean_ms = sum(b - a for a, b in windows) / len(windows) / 1000.0
    return {
        "steps": nums,
        "mean_ms": mean_ms,
        "input": fu.covered_fraction(windows, dl),
        "ops": fu.covered_fraction(windows, ops),
        "aten_per_step": nops / len(windows),
    }


def main(argv):
    names = argv[1:] or list(SCENARIOS)
    torch.manual_seed(0)
    versions = "torch %s, Python %s" % (torch.__version__,
                                        platform.python_version())
    for name in names:
        scenario, fname, active, own_sanity = SCENARIOS[name]
        out = os.path.join(fu.TESTDATA, fname)
        with tempfile.TemporaryDirectory() as tmp:
            tmp_json = os.path.join(tmp, "trace.json")
            what = scenario(tmp_json)
            with open(tmp_json, "rb") as f:
                fu.write_gzip(out, f.read())
        size = fu.check_size(out)
        if active == 0:
            figure = own_sanity(out)
            fu.readme_row(fname,
                          "PyTorch CPU Chrome trace (export_chrome_trace, "
                          "gzip), %s. Sanity: %s" % (what, figure),
                          "`python3 %s %s`; %s; CPU only, no schedule"
                          % (SCRIPT, name, versions))
            print("wrote %s (%d bytes): %s" % (out, size, figure))
            continue
        s = sanity(out, active)
        figure = ("steps ProfilerStep#%s, mean step %.1f ms, "
                  "enumerate(DataLoader) %s of step time, "
                  "union of CPU ops %s, %.0f aten ops/step"
                  % (",".join(map(str, s["steps"])), s["mean_ms"],
                     fu.fmt_pct(s["input"]), fu.fmt_pct(s["ops"]),
                     s["aten_per_step"]))
        fu.readme_row(fname,
                      "PyTorch CPU Chrome trace (export_chrome_trace, gzip), "
                      "%s. Sanity: %s" % (what, figure),
                      "`python3 %s %s`; %s; CPU only, schedule(wait=%d, "
                      "warmup=%d, active=%d)"
                      % (SCRIPT, name, versions,
                         0 if name == "compiled" else WAIT,
                         0 if name == "compiled" else WARMUP, active))
        print("wrote %s (%d bytes): %s" % (out, size, figure))


if __name__ == "__main__":
    main(sys.argv)
