#!/usr/bin/env python3
"""Make the JAX fixtures in testdata/ from small real CPU training loops.

    JAX_PYTHON=/path/to/jax/venv/bin/python python3 tools/make_fixtures_jax.py          # all
    JAX_PYTHON=/path/to/jax/venv/bin/python python3 tools/make_fixtures_jax.py input    # one

The parent needs xprof (its trace_viewer and overview_page converters); each
scenario runs in a child process under JAX_PYTHON (jax[cpu]; default: this
interpreter). Every scenario is a plain-JAX MLP train step under jax.jit
(value_and_grad and an SGD update, no Flax or optax), 5 steps profiled by
jax.profiler.trace(logdir), which turns JAX's Python tracer on: each Python
call is an event "$file.py:line func", each C function Python calls one
"$module func" ("$builtins next", "$time sleep"). Each step waits for its
loss (jax.block_until_ready), and the child times it with
time.perf_counter, phase by phase.

input: input-bound: the batch is next(it) of a Python generator that sleeps
30 ms per batch; each step in jax.profiler.StepTraceAnnotation('train',
step_num=i), XProf's documented step marker for JAX.
host: host-bound: a tiny step (MLP 16-32-4, batch 8), then 15 calls of a
tiny jitted function on 8 floats and a Python loop of 4000 iterations; the
batches come from a list; StepTraceAnnotation as above.
batch: compute-bound: MLP 256-1024-1024-4, batch 128, from a list; each
step in jax.profiler.TraceAnnotation('Profiled batch <i>'), the span
Keras 3's TensorBoard callback puts around each batch it profiles on the
JAX backend (keras/src/backend/jax/tensorboard.py: no step_num stat, the
number in the name).
anno: input-bound as input, each step in the user's own
jax.profiler.TraceAnnotation('iteration') (no StepTraceAnnotation): a span
of a name no table knows on the Python thread, as XLA's ops are; it holds
the step's Python and dispatch, XLA's ops hold none.
async: asynchronous dispatch: the batch scenario's MLP and batch, each step
in StepTraceAnnotation('train', step_num=i) with no jax.block_until_ready
in it: the loop dispatches the 5 steps in well under a millisecond, the
ops run after it; the child blocks on the last loss after the loop,
inside the profile, and times that drain too.
pmap: collectives: two CPU devices in one process
(XLA_FLAGS=--xla_force_host_platform_device_count=2), the step under
jax.pmap, MLP 128-1024-4, batch 32 a device, the gradient and the loss
averaged by lax.pmean (XLA's "all-reduce" on the devices' threads, a
"Rendezvous" inside where one device waits for the other);
StepTraceAnnotation as above.

The host's .xplane.pb is copied to testdata/jax_<scenario>.xplane.pb
without its "/host:metadata" plane (the HLO protos of the compiled
functions, 100-150 KB, which no analysis reads; XSpace field 1, cut at the
protobuf wire level); the Chrome trace is xprof's trace_viewer conversion of
that file, gzipped to testdata/jax_<scenario>.trace.json.gz. The README row
gives the script's own clocks, sanity figures from the converted trace and
XProf's overview_page statement on the file.
"""

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_util as fu  # noqa: E402

SCRIPT = "tools/make_fixtures_jax.py"
WORK = "/tmp/tpa_fixtures_jax"
STEPS = 5
CHILD_TIMEOUT = 300

WHAT = {
    "input": "input-bound: jitted MLP 16-32-4 step, batch 8, the batch from "
             "next() of a Python generator sleeping 30 ms; "
             "StepTraceAnnotation('train', step_num=0..4)",
    "host": "host-bound: jitted MLP 16-32-4 step, batch 8, then 15 calls of "
            "a tiny jitted function on 8 floats and a Python loop of 4000 "
            "iterations; StepTraceAnnotation('train', step_num=0..4)",
    "batch": "compute-bound: jitted MLP 256-1024-1024-4 step, batch 128; "
             "each step in TraceAnnotation('Profiled batch <i>'), i = 0..4, "
             "as Keras 3's TensorBoard callback marks its profiled batches on "
             "the JAX backend",
    "anno": "input-bound: as input, each step in the user's "
            "TraceAnnotation('iteration'), no StepTraceAnnotation",
    "async": "asynchronous dispatch: jitted MLP 256-1024-1024-4 step, batch "
             "128, no jax.block_until_ready in the step: "
             "StepTraceAnnotation('train', step_num=0..4) spans each dispatch, "
             "the ops run after the loop",
    "pmap": "collectives: jax.pmap over 2 CPU devices "
            "(--xla_force_host_platform_device_count=2), MLP 128-1024-4, "
            "batch 32 a device, gradient and loss averaged by lax.pmean; "
            "StepTraceAnnotation('train', step_num=0..4)",
}


# --------------------------------------------------------------------------
# Child side: JAX.

def child(scenario, logdir):
    if scenario == "pmap":
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    import time
    import numpy as np
    import jax
    import jax.numpy as jnp

    widths, batch = {"batch": ([256, 1024, 1024, 4], 128),
                     "async": ([256, 1024, 1024, 4], 128),
                     "pmap": ([128, 1024, 4], 32)}.get(scenario,
                                                         ([16, 32, 4], 8))
    ndev = 2 if scenario == "pmap" else 1

    def init(key):
        ps = []
        for a, b in zip(widths[:-1], widths[1:]):
            key, k = jax.random.split(key)
            ps.append((jax.random.normal(k, (a, b)) * 0.05, jnp.zeros(b)))
        return ps

    def loss(ps, x, y):
        h = x
        for i, (w, b) in enumerate(ps):
            h = h @ w + b
            if i < len(ps) - 1:
                h = jax.nn.relu(h)
        return jnp.mean((h - y) ** 2)

    @jax.jit
    def train_step(ps, x, y):
        val, g = jax.value_and_grad(loss)(ps, x, y)
        return [(w - 0.01 * gw, b - 0.01 * gb)
                for (w, b), (gw, gb) in zip(ps, g)], val

    def pmap_step(ps, x, y):
        val, g = jax.value_and_grad(loss)(ps, x, y)
        g = jax.lax.pmean(g, "d")
        val = jax.lax.pmean(val, "d")
        return [(w - 0.01 * gw, b - 0.01 * gb)
                for (w, b), (gw, gb) in zip(ps, g)], val

    if scenario == "pmap":
        train_step = jax.pmap(pmap_step, axis_name="d")  # noqa: F811

    @jax.jit
    def tiny(a):
        return a * 1.0001 + 0.5

    rng = np.random.default_rng(0)
    lead = (ndev,) if scenario == "pmap" else ()
    data = [(rng.standard_normal(lead + (batch, widths[0]), dtype=np.float32),
             rng.standard_normal(lead + (batch, widths[-1]), dtype=np.float32))
            for _ in range(STEPS + 1)]

    def slow():
        for xy in data:
            time.sleep(0.030)
            yield xy

    ps = init(jax.random.PRNGKey(0))
    if scenario == "pmap":
        ps = jax.tree_util.tree_map(lambda a: jnp.stack([a] * ndev), ps)
    ps, val = train_step(ps, *data[0])      # compiled before the profile
    jax.block_until_ready(val)
    if scenario == "pmap":      # again: the replicated outputs' sharding
        ps, val = train_step(ps, *data[0])
        jax.block_until_ready(val)
    ones = jnp.ones(8)
    jax.block_until_ready(tiny(ones))
    it = slow() if scenario in ("input", "anno") else iter(data[1:])
    clock = {"step_ms": [], "input_ms": [], "train_ms": [], "after_ms": []}

    def one():
        nonlocal ps
        t0 = time.perf_counter()
        x, y = next(it)
        t1 = time.perf_counter()
        ps, val = train_step(ps, x, y)
        if scenario != "async":
            jax.block_until_ready(val)
        t2 = time.perf_counter()
        if scenario == "host":
            a = ones
            for _ in range(15):
                a = tiny(a)
            jax.block_until_ready(a)
            s = 0
            for k in range(4000):
                s += k * k
        t3 = time.perf_counter()
        for k, v in (("step_ms", t3 - t0), ("input_ms", t1 - t0),
                     ("train_ms", t2 - t1), ("after_ms", t3 - t2)):
            clock[k].append(round(v * 1e3, 3))

    with jax.profiler.trace(logdir):
        for i in range(STEPS):
            if scenario == "batch":
                with jax.profiler.TraceAnnotation("Profiled batch %d" % i):
                    one()
            elif scenario == "anno":
                with jax.profiler.TraceAnnotation("iteration"):
                    one()
            else:
                with jax.profiler.StepTraceAnnotation("train", step_num=i):
                    one()
        if scenario == "async":
            t0 = time.perf_counter()
            jax.block_until_ready(ps)
            clock["drain_ms"] = round((time.perf_counter() - t0) * 1e3, 3)
    found = []
    for root, _, files in os.walk(logdir):
        found += [os.path.join(root, f) for f in files
                  if f.endswith(".xplane.pb")]
    print(json.dumps({"xplane": sorted(found)[-1], "clock": clock,
                      "jax": jax.__version__}))


# --------------------------------------------------------------------------
# Parent side: plain Python plus xprof's converters.

def run_child(args):
    py = os.environ.get("JAX_PYTHON", sys.executable)
    res = subprocess.run([py, os.path.abspath(__file__), "--child"] + args,
                         capture_output=True, text=True, timeout=CHILD_TIMEOUT)
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-4000:])
        sys.exit("child %s failed" % args)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def _fields(b):
    """(field number, the field's bytes, a length-delimited field's body)."""
    i = 0
    while i < len(b):
        key, j = _varint(b, i)
        wire = key & 7
        body = None
        if wire == 0:
            _, k = _varint(b, j)
        elif wire == 1:
            k = j + 8
        elif wire == 5:
            k = j + 4
        elif wire == 2:
            n, j = _varint(b, j)
            k = j + n
            body = b[j:k]
        else:
            raise ValueError("wire type %d" % wire)
        yield key >> 3, b[i:k], body
        i = k


def strip_metadata(src, dst):
    """Copy an XSpace without its /host:metadata plane; the names kept."""
    with open(src, "rb") as f:
        data = f.read()
    out, kept = [], []
    for num, raw, body in _fields(data):
        if num == 1:
            name = [bd for n, _, bd in _fields(body) if n == 2]
            name = name[0].decode() if name else ""
            if name == "/host:metadata":
                continue
            kept.append(name)
        out.append(raw)
    with open(dst, "wb") as f:
        f.write(b"".join(out))
    return kept


def xprof_tools(xplane):
    """xprof's trace viewer JSON and overview statement, or (None, why)."""
    try:
        from xprof.convert import raw_to_tool_data as r
    except ImportError as e:
        return None, "xprof not installed: %s" % e
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(xplane))
        shutil.copyfile(xplane, copy)
        params = {"use_saved_result": False}
        data, _ = r.xspace_to_tool_data([copy], "trace_viewer", params)
        ov, _ = r.xspace_to_tool_data([copy], "overview_page", params)
    if isinstance(data, bytes):
        data = data.decode()
    if isinstance(ov, bytes):
        ov = ov.decode()
    m = re.search(r'"input_conclusion":"([^"]*)"', ov or "")
    return data, m.group(1) if m else "no input_conclusion"


def sanity(json_path, scenario):
    """Step spans and the shares of their time in a few kinds of events."""
    xs = fu.complete_events(fu.load_chrome(json_path))
    if scenario == "batch":
        steps = sorted((a, b) for n, p, t, a, b, _ in xs
                       if n.startswith("Profiled batch "))
    elif scenario == "anno":
        steps = sorted((a, b) for n, p, t, a, b, _ in xs if n == "iteration")
    else:
        steps = sorted((a, b) for n, p, t, a, b, args in xs
                       if n.split(" ")[0] == "train" and "step_num" in args)
    if len(steps) != STEPS:
        sys.exit("%s: expected %d step spans, found %d"
                 % (json_path, STEPS, len(steps)))

    def share(pred):
        return fu.covered_fraction(steps, [(a, b) for n, p, t, a, b, _ in xs
                                           if pred(n)])
    return {
        "spans_ms": [round((b - a) / 1000.0, 1) for a, b in steps],
        "next": share(lambda n: n == "$builtins next"),
        "dispatch": share(lambda n: n.startswith("PjitFunction(")),
        "xla": share(lambda n: n == "ThunkExecutor::Execute"
                     or "fusion" in n or n.startswith("dot")),
        "allreduce": share(lambda n: n.startswith("all-reduce")),
    }


def make(scenario, versions):
    logdir = os.path.join(WORK, scenario)
    shutil.rmtree(logdir, ignore_errors=True)
    info = run_child([scenario, logdir])
    base = "jax_%s" % scenario
    xp_out = os.path.join(fu.TESTDATA, base + ".xplane.pb")
    planes = strip_metadata(info["xplane"], xp_out)
    xp_size = fu.check_size(xp_out)
    ver = "JAX %s, %s" % (info["jax"], versions)
    c = info["clock"]
    clock = ("script's perf_counter per step %s ms (next batch %s, train "
             "step %s, after it %s)"
             % (", ".join("%.1f" % v for v in c["step_ms"]),
                ", ".join("%.1f" % v for v in c["input_ms"]),
                ", ".join("%.1f" % v for v in c["train_ms"]),
                ", ".join("%.1f" % v for v in c["after_ms"])))
    if "drain_ms" in c:
        clock += (", then %.1f ms until the last step's parameters are ready"
                  % c["drain_ms"])
    data, said = xprof_tools(xp_out)
    if not data:
        sys.exit("no Chrome trace: %s" % said)
    js_out = os.path.join(fu.TESTDATA, base + ".trace.json.gz")
    fu.write_gzip(js_out, data.encode())
    js_size = fu.check_size(js_out)
    s = sanity(js_out, scenario)
    figure = ("step spans %s ms; of their time $builtins next %s, "
              "PjitFunction dispatch %s, XLA's ops (ThunkExecutor::Execute, "
              "fusions, dots) %s, all-reduce %s; xprof overview_page: \"%s\""
              % (", ".join("%.1f" % v for v in s["spans_ms"]),
                 fu.fmt_pct(s["next"]), fu.fmt_pct(s["dispatch"]),
                 fu.fmt_pct(s["xla"]), fu.fmt_pct(s["allreduce"]), said))
    fu.readme_row(os.path.basename(js_out),
                  "Chrome trace JSON (gzip) made from %s.xplane.pb by xprof's "
                  "trace_viewer converter" % base,
                  "`python3 %s %s`; %s" % (SCRIPT, scenario, ver))
    fu.readme_row(os.path.basename(xp_out),
                  "JAX XSpace (jax.profiler.trace, Python tracer on; planes "
                  "%s, /host:metadata cut), CPU: %s. Sanity: %s; %s"
                  % (", ".join(planes), WHAT[scenario], clock, figure),
                  "`python3 %s %s`; %s" % (SCRIPT, scenario, ver))
    print("wrote %s (%d bytes), %s (%d bytes): %s; %s"
          % (xp_out, xp_size, js_out, js_size, clock, figure))


def main(argv):
    if len(argv) > 1 and argv[1] == "--child":
        child(argv[2], argv[3])
        sys.stdout.flush()
        os._exit(0)
    versions = "Python %s" % platform.python_version()
    os.makedirs(WORK, exist_ok=True)
    for scenario in argv[1:] or list(WHAT):
        if scenario not in WHAT:
            sys.exit("unknown scenario " + scenario)
        make(scenario, versions)


if __name__ == "__main__":
    main(sys.argv)
