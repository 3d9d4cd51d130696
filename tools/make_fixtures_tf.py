#!/usr/bin/env python3
"""Make the TensorFlow fixtures in testdata/ from small real CPU training loops.

    python3 tools/make_fixtures_tf.py                 # everything
    python3 tools/make_fixtures_tf.py tf2 input       # one TF2 scenario
    python3 tools/make_fixtures_tf.py tf1             # the TF1 RunMetadata set
    python3 tools/make_fixtures_tf.py tf1_overlap     # ops at once under one thread_id
    python3 tools/make_fixtures_tf.py tf1_nostep      # tfevents without global_step
    python3 tools/make_fixtures_tf.py tf1_timeline2   # the Timeline of step 2
    python3 tools/make_fixtures_tf.py fit             # Keras 3 model.fit, no markers
    python3 tools/make_fixtures_tf.py loop            # a custom loop, no markers
    python3 tools/make_fixtures_tf.py eager           # the loop without tf.function
    python3 tools/make_fixtures_tf.py callback        # model.fit, TensorBoard(profile_batch)
    python3 tools/make_fixtures_tf.py spe             # model.fit, steps_per_execution=3

TF2 scenarios (input, compute, host) each run in a child process under
tf.profiler.experimental.start/stop with a logdir under /tmp, every step inside
tf.profiler.experimental.Trace('train', step_num=step, _r=1). The host's
.xplane.pb is copied to testdata/tf2_<scenario>_bound.xplane.pb; TF 2.21 writes
no trace.json.gz, so the Chrome trace is made by the profiler's own converter
(xprof.convert.raw_to_tool_data.xspace_to_tool_data(..., 'trace_viewer')) and
gzipped to testdata/tf2_<scenario>_bound.trace.json.gz. xprof's own
input_pipeline_analyzer verdict is recorded next to our sanity figures.

fit: Keras 3's model.fit (the Keras of TF 2.16 on), the profiler started and
stopped by a callback around batches 3..7, as a user profiles a fit by hand:
no step markers at all, one call of the train function Keras compiles
(multi_step_on_iterator) per batch. testdata/tf2_keras_fit.xplane.pb and the
.trace.json.gz xprof makes of it; the README row gives the batches profiled
and xprof's own overview verdict. loop: the same model in a custom training
loop, a @tf.function train_step called per batch, the profiler started and
stopped around the same batches: testdata/tf2_custom_loop.*. eager: that loop
with its train_step left eager (no tf.function), every op dispatched from
Python: testdata/tf2_eager_loop.*. callback: the fit profiled the way Keras
documents, by its TensorBoard callback's profile_batch (batches 0..4):
the callback writes its summaries and stops the profiler after the last
batch, in the trace; profiled from the first batch, whose step traces the
train function (warm-up): testdata/tf2_keras_callback.*. spe: the fit
compiled with steps_per_execution=3, each call of its train function taking
3 batches (IteratorGetNextAsOptional each), 3 calls profiled:
testdata/tf2_keras_spe.*.

TF1: tf.compat.v1 graph mode, Session.run with RunOptions(FULL_TRACE) fed by
feed_dict: two RunMetadata files, a tfevents file with add_run_metadata for 3
steps (FileWriter without graph) and a timeline.Timeline Chrome trace.
tf1_overlap: a traced Session.run whose IteratorGetNext waits on a slow
input (numpy_function sleeping 30 ms, no prefetch) while a MatMul chain that
does not need the input runs; TF files both under one thread_id:
testdata/tf1_overlap.runmeta.pb and the timeline.Timeline trace
of it (whose lanes keep them apart), tf1_overlap_timeline.json. tf1_nostep:
testdata/tf1_nostep.tfevents, tf1_step1/2.runmeta.pb written by
FileWriter.add_run_metadata(md, 'step%03d') without global_step, as TF's
ProfilerHook and the TF1 tutorials write them (every record's step 0).
tf1_timeline2: testdata/tf1_timeline2.json, the timeline.Timeline Chrome
trace of tf1_step2.runmeta.pb (tf1_timeline.json is step 1's): two
timelines of consecutive Session.runs, as ProfilerHook writes them.
"""

import collections
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_util as fu  # noqa: E402

SCRIPT = "tools/make_fixtures_tf.py"
WORK = "/tmp/tpa_fixtures_tf"
STEPS = 5
CHILD_TIMEOUT = 300


# --------------------------------------------------------------------------
# Child side: runs TensorFlow. Ends with os._exit so that a tf.data
# py_function thread can never hang interpreter shutdown.

def make_step(tf, model, compiled=True):
    """A tf.function of one SGD step of model on (x, y); TF runs its calls as
    "EagerLocalExecute: __inference_train_step_<id>". Not compiled: the
    step's ops run eagerly, one by one."""
    opt = tf.keras.optimizers.SGD(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(train_step) if compiled else train_step


def child_tf2(scenario, logdir):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    if scenario == "compute":
        # One intra-op thread: longer ops, far fewer thread-pool events.
        tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.random.set_seed(0)
    np.random.seed(0)
    tf.keras.utils.set_random_seed(0)

    def mlp(features, widths, classes):
        layers = [tf.keras.Input((features,))]
        for w in widths:
            layers.append(tf.keras.layers.Dense(w, activation="relu"))
        layers.append(tf.keras.layers.Dense(classes))
        return tf.keras.Sequential(layers)

    if scenario == "input":
        # One py_function sleep of 40 ms per batch, after batch(); no
        # prefetch, and TF's own prefetch injection, map fusion and
        # autotune switched off, so every step waits in IteratorGetNext.
        def slow(x):
            time.sleep(0.040)
            return x

        ds = tf.data.Dataset.range(4 * 64).map(
            lambda i: (tf.fill([16], tf.cast(i, tf.float32)), i % 4))
        ds = ds.batch(4).map(
            lambda x, y: (tf.py_function(slow, [x], tf.float32), y))
        opts = tf.data.Options()
        opts.experimental_optimization.inject_prefetch = False
        opts.experimental_optimization.map_parallelization = False
        opts.experimental_optimization.map_and_batch_fusion = False
        opts.autotune.enabled = False
        ds = ds.with_options(opts)
        model = mlp(16, [16], 4)
        step_fn = make_step(tf, model)
    elif scenario == "compute":
        # Cached, prefetched in-memory data; a heavier MLP.
        x = np.random.rand(4 * 64, 512).astype("float32")
        y = (np.arange(4 * 64) % 4).astype("int64")
        ds = (tf.data.Dataset.from_tensor_slices((x, y)).batch(64).cache()
              .repeat().prefetch(2))
        model = mlp(512, [2048, 2048], 4)
        step_fn = make_step(tf, model)
    elif scenario == "host":
        # Eager (no tf.function), many tiny ops per step.
        # Data comes from a Python list of tensors: no tf.data at all.
        ds = [tf.constant(np.random.rand(1, 8).astype("float32"))
              for _ in range(2 * STEPS + 2)]
        w = tf.Variable(tf.zeros([8]))

        def step_fn(x):
            with tf.GradientTape() as tape:
                h = x
                for _ in range(4):
                    h = h * 0.5 + w
                loss = tf.reduce_sum(h)
            w.assign_sub(0.01 * tape.gradient(loss, w))
    else:
        raise SystemExit("unknown scenario " + scenario)

    it = iter(ds)

    def one(step):
        batch = next(it)
        if isinstance(batch, tuple):
            step_fn(*batch)
        else:
            step_fn(batch)

    # Warm-up outside the profile: traces the tf.function, fills the cache.
    for _ in range(STEPS + 1):
        one(-1)
    tf.profiler.experimental.start(logdir)
    for step in range(STEPS):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            one(step)
    tf.profiler.experimental.stop()

    # Check the step markers in the XSpace itself.
    from tensorflow.tsl.profiler.protobuf import xplane_pb2
    path = glob.glob(os.path.join(logdir, "plugins/profile/*/*.xplane.pb"))[0]
    space = xplane_pb2.XSpace()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    nums = []
    for plane in space.planes:
        stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
        for line in plane.lines:
            for ev in line.events:
                md = plane.event_metadata[ev.metadata_id]
                if md.name != "train":
                    continue
                for st in ev.stats:
                    if stat_names.get(st.metadata_id) == "step_num":
                        nums.append(st.int64_value or st.uint64_value)
    print(json.dumps({"xplane": path, "xplane_steps": sorted(nums),
                      "tf": tf.__version__}))


# The marker-less kinds: the fixture's base name; the batches profiled,
# from 0 (the callback's from the first, whose step traces the train
# function); the python thread's call that starts each iteration; how many
# distinct calls of train functions and next batches an iteration makes
# once; what the loop is.
FitKind = collections.namedtuple("FitKind", "base batches iteration once what")
FIT_KINDS = {
    "fit": FitKind("tf2_keras_fit", (3, 7), r"multi_step_on_iterator$", 2,
                   "Keras 3 model.fit of an MLP 16-16-4"),
    "loop": FitKind("tf2_custom_loop", (3, 7), r"train_step$", 3,
                    "a custom training loop calling a @tf.function train_step "
                    "(GradientTape, SGD) of a Keras 3 MLP 16-16-4 once a batch"),
    "eager": FitKind("tf2_eager_loop", (3, 7), r"EagerLocalExecute: IteratorGetNext$", 1,
                     "a custom training loop running a train_step (GradientTape, SGD) "
                     "of a Keras 3 MLP 16-16-4 eagerly, without tf.function, once a "
                     "batch"),
    "callback": FitKind("tf2_keras_callback", (0, 4), r"multi_step_on_iterator$", 2,
                        "Keras 3 model.fit of an MLP 16-16-4 profiled by its "
                        "TensorBoard callback (profile_batch=(1, 5))"),
    "spe": FitKind("tf2_keras_spe", (3, 5), r"multi_step_on_iterator$", 2,
                   "Keras 3 model.fit of an MLP 16-16-4 compiled with "
                   "steps_per_execution=3 (3 batches a call of its train function)"),
}
# Batches a call of the train function runs (Keras' steps_per_execution);
# the profiled calls are FIT_KINDS' batches, counted in calls.
FIT_SPE = {"spe": 3}


def child_fit(kind, logdir):
    """Keras 3 model.fit (kind "fit"), a custom loop's tf.function (kind
    "loop"), the same loop eager (kind "eager") or the fit profiled by its
    TensorBoard callback (kind "callback"), over the batches FIT_KINDS
    gives; no Trace markers. Prints the XSpace path, how
    many times the python thread called each train function (its Python
    name, and the runtime's "EagerLocalExecute: __inference_...") and the
    dataset's next batch ("EagerLocalExecute: IteratorGetNext"), the
    median time from one iteration's start to the next (FIT_KINDS[kind]'s
    iteration calls), and the step markers found (none expected)."""
    first, last = FIT_KINDS[kind].batches
    spe = FIT_SPE.get(kind, 1)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf
    import keras

    # one thread each: few thread-pool events, a small file
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(0)
    x = np.random.rand(512, 16).astype("float32")
    y = np.random.randint(0, 4, 512)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat().prefetch(2)
    model = tf.keras.Sequential([tf.keras.Input((16,)),
                                 tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(4)])
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True), steps_per_execution=spe)

    class Profile(tf.keras.callbacks.Callback):
        # a call of several batches calls back once, with one of their
        # numbers: the first call at or past `first`, the last past `last`
        def on_train_batch_begin(self, batch, logs=None):
            if batch >= first * spe and not self.started:
                self.started = True
                tf.profiler.experimental.start(logdir)

        def on_train_batch_end(self, batch, logs=None):
            if batch >= last * spe and not self.stopped:
                self.stopped = True
                tf.profiler.experimental.stop()

    Profile.started = Profile.stopped = False
    if kind in ("fit", "spe"):
        model.fit(ds, steps_per_epoch=(last + 3) * spe, epochs=1, verbose=0,
                  callbacks=[Profile()])
    elif kind == "callback":
        # profile_batch counts batches from 1
        tb = tf.keras.callbacks.TensorBoard(log_dir=logdir, write_graph=False,
                                            profile_batch=(first + 1, last + 1))
        model.fit(ds, steps_per_epoch=last + 3, epochs=1, verbose=0,
                  callbacks=[tb])
    else:
        train_step = make_step(tf, model, compiled=kind == "loop")
        it = iter(ds)
        for batch in range(last + 3):
            if batch == first:
                tf.profiler.experimental.start(logdir)
            train_step(*next(it))
            if batch == last:
                tf.profiler.experimental.stop()

    from tensorflow.tsl.profiler.protobuf import xplane_pb2
    path = glob.glob(os.path.join(logdir, "**", "plugins/profile/*/*.xplane.pb"),
                     recursive=True)[0]
    space = xplane_pb2.XSpace()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    calls, markers, batches, starts, optional = {}, 0, [], [], 0
    for plane in space.planes:
        for line in plane.lines:
            for ev in line.events:
                name = plane.event_metadata[ev.metadata_id].name
                if name in ("train", "test") or name.startswith("ProfilerStep#"):
                    markers += 1
                if name == "Profiled batch":     # Keras' TensorBoard callback
                    batches.append(ev.duration_ps / 1e6)
                if name == "IteratorGetNextAsOptionalOp::DoCompute":
                    optional += 1
                if line.name == "python" and re.match(
                        r"(multi|one)_step_on_iterator$|train_step$|"
                        r"EagerLocalExecute: (__inference_|IteratorGetNext$)", name):
                    calls[name] = calls.get(name, 0) + 1
                    if re.match(FIT_KINDS[kind].iteration, name):
                        starts.append(line.timestamp_ns * 1000 + ev.offset_ps)
    starts.sort()
    gaps = sorted(b - a for a, b in zip(starts, starts[1:]))
    print(json.dumps({"xplane": path, "calls": calls, "markers": markers,
                      "profiled_batch_us": batches, "optional_next": optional,
                      "call_to_call_us": gaps[len(gaps) // 2] / 1e6 if gaps else 0,
                      "tf": tf.__version__, "keras": keras.__version__}))


def child_tb(logdir):
    """A tiny model.fit with the Keras TensorBoard callback (needs the
    tensorboard package): its train/events.out.tfevents.* file."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((8,)),
                                 tf.keras.layers.Dense(4)])
    model.compile("sgd", "mse")
    cb = tf.keras.callbacks.TensorBoard(logdir, write_graph=False,
                                        profile_batch=0, histogram_freq=0)
    model.fit(np.random.rand(32, 8), np.random.rand(32, 4), batch_size=8,
              epochs=2, callbacks=[cb], verbose=0)
    print(json.dumps({"tf": tf.__version__}))


def child_tf1(outdir):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.client import timeline

    v1 = tf.compat.v1
    v1.disable_eager_execution()
    v1.set_random_seed(0)
    rng = np.random.RandomState(0)

    x = v1.placeholder(tf.float32, [None, 32], name="x")
    y = v1.placeholder(tf.int64, [None], name="y")
    init = v1.initializers.glorot_uniform(seed=0)
    w1 = v1.get_variable("w1", [32, 32], initializer=init)
    b1 = v1.get_variable("b1", [32], initializer=v1.zeros_initializer())
    w2 = v1.get_variable("w2", [32, 4], initializer=init)
    b2 = v1.get_variable("b2", [4], initializer=v1.zeros_initializer())
    h = tf.nn.relu(tf.matmul(x, w1) + b1, name="hidden")
    logits = tf.add(tf.matmul(h, w2), b2, name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=logits))
    train = v1.train.GradientDescentOptimizer(0.01).minimize(loss)

    opts = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
    writer = v1.summary.FileWriter(os.path.join(outdir, "events"))
    metas = []
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        feed = {x: rng.rand(16, 32).astype("float32"),
                y: rng.randint(0, 4, 16)}
        sess.run(train, feed_dict=feed)  # warm-up, not traced
        for step in range(1, 4):
            feed = {x: rng.rand(16, 32).astype("float32"),
                    y: rng.randint(0, 4, 16)}
            md = v1.RunMetadata()
            sess.run(train, feed_dict=feed, options=opts, run_metadata=md)
            writer.add_run_metadata(md, "step%d" % step, global_step=step)
            metas.append(md)
    writer.close()
    for i, md in enumerate(metas[:2]):
        with open(os.path.join(outdir, "step%d.runmeta.pb" % (i + 1)),
                  "wb") as f:
            f.write(md.SerializeToString())
    tl = timeline.Timeline(metas[0].step_stats)
    with open(os.path.join(outdir, "timeline.json"), "w") as f:
        f.write(tl.generate_chrome_trace_format())
    stats = []
    for md in metas:
        starts, ends, nodes, devs = [], [], 0, []
        for d in md.step_stats.dev_stats:
            devs.append(d.device)
            for n in d.node_stats:
                nodes += 1
                starts.append(n.all_start_micros)
                ends.append(n.all_start_micros + n.all_end_rel_micros)
        stats.append({"nodes": nodes, "devices": devs,
                      "wall_us": max(ends) - min(starts)})
    evfile = glob.glob(os.path.join(outdir, "events", "*tfevents*"))[0]
    kinds = []
    for e in v1.train.summary_iterator(evfile):
        kind = e.WhichOneof("what")
        if kind == "tagged_run_metadata":
            kind += ":" + e.tagged_run_metadata.tag
        kinds.append(kind)
    print(json.dumps({"tf": tf.__version__, "steps": stats,
                      "events": kinds}))


def child_tf1_overlap(outdir):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow.python.client import timeline

    v1 = tf.compat.v1
    v1.disable_eager_execution()
    v1.set_random_seed(0)

    def slow(a):
        time.sleep(0.03)
        return a

    ds = tf.data.Dataset.range(100000).map(
        lambda i: (tf.fill([64], tf.cast(i % 7, tf.float32)), i % 4)).batch(32)
    ds = ds.map(lambda a, b: (tf.numpy_function(slow, [a], tf.float32), b))
    x, y = v1.data.make_one_shot_iterator(ds).get_next()
    x.set_shape([None, 64])
    w = v1.get_variable("w", [64, 4])
    big = v1.get_variable("big", [700, 700])
    logits = tf.matmul(x, w)
    # a regularizer that needs no input: it runs while IteratorGetNext waits
    reg = tf.reduce_sum(tf.matmul(tf.matmul(big, big), big)) * 1e-9
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=logits)) + reg
    train = v1.train.GradientDescentOptimizer(0.01).minimize(loss)
    opts = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
    runs = []
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        for _ in range(3):
            sess.run(train)     # warm-up, not traced
        for k in range(OVERLAP_RUNS):
            md = v1.RunMetadata()
            t0 = time.perf_counter()
            sess.run(train, options=opts, run_metadata=md)
            run_ms = (time.perf_counter() - t0) * 1e3
            with open(os.path.join(outdir, "run%d.runmeta.pb" % k), "wb") as f:
                f.write(md.SerializeToString())
            with open(os.path.join(outdir, "run%d.json" % k), "w") as f:
                f.write(timeline.Timeline(md.step_stats)
                        .generate_chrome_trace_format())
            ns = [n for d in md.step_stats.dev_stats for n in d.node_stats]
            t = min(n.all_start_micros for n in ns)
            spans = lambda pick: [(n.all_start_micros - t,
                                   n.all_start_micros - t + n.all_end_rel_micros,
                                   n.thread_id) for n in ns if pick(n)]
            runs.append({
                "run_ms": run_ms, "nodes": len(ns),
                "get_next": spans(lambda n: n.node_name == "IteratorGetNext"),
                "matmuls": spans(lambda n: "MatMul" in n.node_name
                                 and n.all_end_rel_micros > 300),
                "thread_ids": sorted({n.thread_id for n in ns})})
    print(json.dumps({"tf": tf.__version__, "runs": runs}))


# TF files the MatMuls under IteratorGetNext's thread_id in some
# Session.runs only (how often varies with the machine and its load; no
# session option makes it so): of OVERLAP_RUNS traced runs a process, the
# first that does; none in OVERLAP_TRIES processes leaves the file as it is
OVERLAP_RUNS = 8
OVERLAP_TRIES = 4


def child_tf1_nostep(outdir):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    v1 = tf.compat.v1
    v1.disable_eager_execution()
    writer = v1.summary.FileWriter(outdir)
    for i in (1, 2):
        md = v1.RunMetadata()
        with open(os.path.join(fu.TESTDATA, "tf1_step%d.runmeta.pb" % i),
                  "rb") as f:
            md.ParseFromString(f.read())
        writer.add_run_metadata(md, "step%03d" % i)   # no global_step
    writer.close()
    evfile = glob.glob(os.path.join(outdir, "*tfevents*"))[0]
    recs = [(e.step, e.tagged_run_metadata.tag)
            for e in v1.train.summary_iterator(evfile)
            if e.WhichOneof("what") == "tagged_run_metadata"]
    print(json.dumps({"tf": tf.__version__, "events": evfile,
                      "records": recs}))


def child_tf1_timeline2(outdir):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow.python.client import timeline

    md = tf.compat.v1.RunMetadata()
    with open(os.path.join(fu.TESTDATA, "tf1_step2.runmeta.pb"), "rb") as f:
        md.ParseFromString(f.read())
    out = os.path.join(outdir, "timeline2.json")
    with open(out, "w") as f:
        f.write(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    print(json.dumps({"tf": tf.__version__, "timeline": out}))


# --------------------------------------------------------------------------
# Parent side: plain Python plus xprof's converter.

def run_child(args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + args
    res = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=CHILD_TIMEOUT)
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-4000:])
        sys.exit("child %s failed" % args)
    return json.loads(res.stdout.strip().splitlines()[-1])


def xprof_convert(xplane):
    """Trace viewer JSON and xprof's input-pipeline verdict, or (None, msg)."""
    try:
        from xprof.convert import raw_to_tool_data as r
    except ImportError as e:
        return None, None, "xprof not installed: %s" % e
    # xprof caches derived files next to the xplane and keys the cache by
    # directory: convert a private copy in a fresh directory every time.
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(xplane))
        shutil.copyfile(xplane, copy)
        params = {"use_saved_result": False}
        data, _ = r.xspace_to_tool_data([copy], "trace_viewer", params)
        ip, _ = r.xspace_to_tool_data([copy], "input_pipeline_analyzer",
                                      params)
    if isinstance(data, bytes):
        data = data.decode()
    verdict = None
    try:
        props = json.loads(ip)[1]["p"]
        verdict = {"conclusion": props.get("input_conclusion", ""),
                   "steptime_ms_average": props.get("steptime_ms_average")}
    except (ValueError, KeyError, IndexError, TypeError):
        pass
    import xprof
    return data, verdict, "xprof %s" % getattr(xprof, "__version__", "?")


def tf2_sanity(json_path):
    evs = fu.load_chrome(json_path)
    threads = {(e.get("pid"), e.get("tid")): e["args"]["name"]
               for e in evs if e.get("ph") == "M"
               and e.get("name") == "thread_name"}
    xs = fu.complete_events(evs)
    steps = sorted((a, b, int(args["step_num"]), (p, t))
                   for n, p, t, a, b, args in xs
                   if n.split(" ")[0] == "train" and "step_num" in args)
    if len(steps) != STEPS:
        sys.exit("%s: expected %d train step markers, found %d"
                 % (json_path, STEPS, len(steps)))
    windows = [(a, b) for a, b, _, _ in steps]
    step_threads = {k for _, _, _, k in steps}
    on_step = [(n, a, b, args) for n, p, t, a, b, args in xs
               if (p, t) in step_threads]
    wait = [(a, b) for n, a, b, _ in on_step if "IteratorGetNext" in n]
    busy = [(a, b) for n, a, b, args in on_step
            if not (n.split(" ")[0] == "train" and "step_num" in args)]
    ops = [(a, b) for n, p, t, a, b, args in xs
           if "is_eager" in args
           and not threads.get((p, t), "").startswith("tf_data")]
    return {
        "steps": [s for _, _, s, _ in steps],
        "mean_ms": sum(b - a for a, b in windows) / len(windows) / 1000.0,
        "input": fu.covered_fraction(windows, wait),
        "python_gap": 1.0 - fu.covered_fraction(windows, busy),
        "ops": fu.covered_fraction(windows, ops),
    }


TF2_WHAT = {
    "input": "input-bound: tf.function train step (MLP 16-16-4) fed by "
             "tf.data range->batch(4)->map(py_function sleeping 40 ms), no "
             "prefetch (inject_prefetch, map fusion, autotune off)",
    "compute": "compute-bound: tf.function train step, MLP 512-2048-2048-4, "
               "batch 64 from cached, prefetched in-memory tf.data, 1 intra-op "
               "thread",
    "host": "host-bound: eager (no tf.function) step of 4 (mul, add) on "
            "8-element tensors + GradientTape + assign_sub, data from a "
            "Python list (no tf.data)",
}


def make_tf2(scenario, versions, runs):
    logdir = os.path.join(WORK, "tf2_%s" % scenario)
    shutil.rmtree(logdir, ignore_errors=True)
    info = run_child(["tf2", scenario, logdir])
    if info["xplane_steps"] != list(range(STEPS)):
        sys.exit("xplane step_num markers: %s" % info["xplane_steps"])
    base = "tf2_%s_bound" % scenario
    xp_out = os.path.join(fu.TESTDATA, base + ".xplane.pb")
    shutil.copyfile(info["xplane"], xp_out)
    xp_size = fu.check_size(xp_out)
    runs[scenario] = info["xplane"]
    ver = "TensorFlow %s, %s" % (info["tf"], versions)

    data, verdict, conv = xprof_convert(xp_out)
    figure = "no Chrome trace: %s" % conv
    js_out = os.path.join(fu.TESTDATA, base + ".trace.json.gz")
    if data:
        fu.write_gzip(js_out, data.encode())
        js_size = fu.check_size(js_out)
        s = tf2_sanity(js_out)
        tfv = ""
        if verdict:
            m = re.search(r"(HIGHLY|MODERATELY|POTENTIALLY|NOT) "
                          r"input-bound because (?:only )?([0-9.]+)%",
                          verdict["conclusion"])
            said = ("%s input-bound, %s%% waiting for input"
                    % (m.group(1), m.group(2)) if m
                    else verdict["conclusion"][:80])
            tfv = ("; xprof input_pipeline_analyzer: %s, step avg %s ms"
                   % (said, verdict["steptime_ms_average"]))
        figure = ("steps train step_num=%s, mean step %.1f ms, "
                  "IteratorGetNext on the step thread %s of step time, "
                  "TF ops (is_eager events, non-tf_data threads) %s, "
                  "step thread uncovered (Python gap) %s%s"
                  % (",".join(map(str, s["steps"])), s["mean_ms"],
                     fu.fmt_pct(s["input"]), fu.fmt_pct(s["ops"]),
                     fu.fmt_pct(s["python_gap"]), tfv))
        fu.readme_row(os.path.basename(js_out),
                      "Chrome trace JSON (gzip) made from %s.xplane.pb by "
                      "xprof's trace_viewer converter. Sanity: %s"
                      % (base, figure),
                      "`python3 %s tf2 %s`; %s; %s" % (SCRIPT, scenario, ver,
                                                       conv))
        print("wrote %s (%d bytes)" % (js_out, js_size))
    elif os.path.exists(js_out):
        os.remove(js_out)
    fu.readme_row(os.path.basename(xp_out),
                  "TF2 XSpace, host plane /host:CPU only (CPU, no device "
                  "plane), %s; 5 steps marked Trace('train', step_num=0..4, "
                  "_r=1). Sanity (from the converted trace): %s"
                  % (TF2_WHAT[scenario], figure),
                  "`python3 %s tf2 %s`; %s" % (SCRIPT, scenario, ver))
    print("wrote %s (%d bytes): %s" % (xp_out, xp_size, figure))


def xprof_overview(xplane):
    """XProf's overview statement on the file, or a note why there is none."""
    try:
        from xprof.convert import raw_to_tool_data as r
    except ImportError as e:
        return "xprof not installed: %s" % e
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(xplane))
        shutil.copyfile(xplane, copy)
        data, _ = r.xspace_to_tool_data([copy], "overview_page",
                                        {"use_saved_result": False})
    if isinstance(data, bytes):
        data = data.decode()
    m = re.search(r'"input_conclusion":"([^"]*)"', data or "")
    return m.group(1) if m else "no input_conclusion"


def make_fit(kind, versions):
    logdir = os.path.join(WORK, "tf2_" + kind)
    shutil.rmtree(logdir, ignore_errors=True)
    info = run_child(["fit", kind, logdir])
    k = FIT_KINDS[kind]
    first, last = k.batches
    want = last - first + 1
    spans = info["profiled_batch_us"]
    if (info["markers"] != 0 or len(info["calls"]) != k.once
            or any(n != want for n in info["calls"].values())
            or len(spans) != (want if kind == "callback" else 0)):
        sys.exit("%s: expected %d calls of the train function and no step "
                 "markers, found %s and %d markers"
                 % (kind, want, info["calls"], info["markers"]))
    base = k.base
    xp_out = os.path.join(fu.TESTDATA, base + ".xplane.pb")
    shutil.copyfile(info["xplane"], xp_out)
    xp_size = fu.check_size(xp_out)
    ver = "TensorFlow %s, Keras %s, %s" % (info["tf"], info["keras"], versions)
    said = xprof_overview(xp_out)
    marked = ("no step markers" if not spans else
              "no TF step markers, but the callback's \"Profiled batch\" span "
              "around each batch, with its step_num (%s us)"
              % ", ".join("%.1f" % us for us in spans))
    what = ("%s on batches of 8 from a "
            "prefetched in-memory tf.data, one intra-op and one inter-op "
            "thread, the profiler started at batch %d and stopped after "
            "batch %d: %s. Sanity: the python "
            "thread calls %s (%s), median %.1f us from one call's "
            "start to the next%s; xprof overview_page: \"%s\""
            % (k.what, first, last, marked,
               ", ".join("%s %dx" % kv for kv in sorted(info["calls"].items())),
               "%d batches" % want if kind not in FIT_SPE else
               "%d calls of %d batches" % (want, FIT_SPE[kind]),
               info["call_to_call_us"],
               "; IteratorGetNextAsOptionalOp::DoCompute %dx" % info["optional_next"]
               if info["optional_next"] else "", said))
    data, _, conv = xprof_convert(xp_out)
    js_out = os.path.join(fu.TESTDATA, base + ".trace.json.gz")
    if data:
        fu.write_gzip(js_out, data.encode())
        js_size = fu.check_size(js_out)
        fu.readme_row(os.path.basename(js_out),
                      "Chrome trace JSON (gzip) made from %s.xplane.pb by "
                      "xprof's trace_viewer converter" % base,
                      "`python3 %s %s`; %s; %s" % (SCRIPT, kind, ver, conv))
        print("wrote %s (%d bytes)" % (js_out, js_size))
    elif os.path.exists(js_out):
        os.remove(js_out)
    fu.readme_row(os.path.basename(xp_out), "TF2 XSpace, host plane only: " + what,
                  "`python3 %s %s`; %s" % (SCRIPT, kind, ver))
    print("wrote %s (%d bytes): %s" % (xp_out, xp_size, what))


def make_logdir(runs, versions):
    """testdata/tf2_logdir/plugins/profile/<run>/<host>.xplane.pb, two runs.

    Not testdata/logdir/: that tree is tools/make_logdir_fixture.py's."""
    root = os.path.join(fu.TESTDATA, "tf2_logdir")
    shutil.rmtree(root, ignore_errors=True)
    fu.readme_drop("tf2_logdir/")
    made = []
    for scenario in ("input", "compute"):
        src = runs[scenario]
        run = os.path.basename(os.path.dirname(src))
        dst_dir = os.path.join(root, "plugins", "profile", run)
        os.makedirs(dst_dir)
        dst = os.path.join(dst_dir, os.path.basename(src))
        shutil.copyfile(src, dst)
        fu.check_size(dst)
        rel = os.path.relpath(dst, fu.TESTDATA)
        made.append(rel)
        fu.readme_row(rel.split("/")[0] + "/.../" + run,
                      "logdir run %s: a copy of tf2_%s_bound.xplane.pb at "
                      "the real path the profiler wrote (%s)"
                      % (run, scenario, rel),
                      "`python3 %s tf2`; %s" % (SCRIPT, versions))
        print("wrote %s" % dst)
    try:
        run_child(["tb", root])
    except SystemExit as e:
        print("no TensorBoard callback events (tensorboard missing?): %s" % e)
        return made
    for ev in glob.glob(os.path.join(root, "*", "events.out.tfevents.*")):
        fu.check_size(ev)
        rel = os.path.relpath(ev, fu.TESTDATA)
        fu.readme_row(rel, "tfevents written by the Keras TensorBoard "
                      "callback (write_graph=False, profile_batch=0) during a "
                      "2-epoch model.fit of Dense(4) on 32 samples: epoch "
                      "scalars only. Sanity: %d TFRecord frames"
                      % tfrecord_count(ev),
                      "`python3 %s tf2`; %s, tensorboard installed"
                      % (SCRIPT, versions))
        print("wrote %s" % ev)
    return made


def make_tf1(versions):
    outdir = os.path.join(WORK, "tf1")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    info = run_child(["tf1", outdir])
    ver = "TensorFlow %s, %s" % (info["tf"], versions)
    how = "`python3 %s tf1`; %s" % (SCRIPT, ver)
    st = info["steps"]
    model = ("tf.compat.v1 graph, MLP 32-32-4, GradientDescent, batch 16 by "
             "feed_dict, RunOptions(FULL_TRACE)")
    for i in (1, 2):
        out = os.path.join(fu.TESTDATA, "tf1_step%d.runmeta.pb" % i)
        shutil.copyfile(os.path.join(outdir, "step%d.runmeta.pb" % i), out)
        size = fu.check_size(out)
        fig = ("%d node_stats, devices %s, wall %d us (max end - min start)"
               % (st[i - 1]["nodes"], ", ".join(st[i - 1]["devices"]),
                  st[i - 1]["wall_us"]))
        fu.readme_row(os.path.basename(out),
                      "RunMetadata.SerializeToString() of traced step %d of "
                      "3 consecutive (%s). Sanity: %s" % (i, model, fig), how)
        print("wrote %s (%d bytes): %s" % (out, size, fig))

    ev = glob.glob(os.path.join(outdir, "events", "events.out.tfevents.*"))
    out = os.path.join(fu.TESTDATA, "tf1_steps.tfevents")
    shutil.copyfile(ev[0], out)
    size = fu.check_size(out)
    recs = tfrecord_count(out)
    fig = ("%d TFRecord frames, Event kinds %s; node_stats per step %s"
           % (recs, info["events"], [s["nodes"] for s in st]))
    fu.readme_row(os.path.basename(out),
                  "tfevents from FileWriter (no graph) with "
                  "add_run_metadata(md, 'step%%d', global_step) for 3 traced "
                  "steps (%s); steps 1-2 are tf1_step1/2.runmeta.pb. "
                  "Sanity: %s" % (model, fig), how)
    print("wrote %s (%d bytes): %s" % (out, size, fig))

    out = os.path.join(fu.TESTDATA, "tf1_timeline.json")
    shutil.copyfile(os.path.join(outdir, "timeline.json"), out)
    size = fu.check_size(out)
    evs = fu.load_chrome(out)
    xs = fu.complete_events(evs)
    pids = {e["args"]["name"] for e in evs if e.get("ph") == "M"
            and e.get("name") == "process_name"}
    span = max(x[4] for x in xs) - min(x[3] for x in xs)
    fig = ("%d X events, processes %s, span %.0f us"
           % (len(xs), sorted(pids), span))
    fu.readme_row(os.path.basename(out),
                  "timeline.Timeline(step_stats).generate_chrome_trace_format()"
                  " of traced step 1 (same RunMetadata as tf1_step1.runmeta.pb)"
                  ". Sanity: %s" % fig, how)
    print("wrote %s (%d bytes): %s" % (out, size, fig))


def covered(spans, lo, hi):
    """The time of [lo, hi) the spans [(start, end)] cover."""
    total, at = 0, lo
    for s, e in sorted((max(s, lo), min(e, hi)) for s, e in spans
                       if s < hi and e > lo):
        if e > at:
            total += e - max(s, at)
            at = e
    return total


def make_tf1_overlap(versions):
    outdir = os.path.join(WORK, "tf1_overlap")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    found = None
    for _ in range(OVERLAP_TRIES):
        info = run_child(["tf1_overlap", outdir])
        for k, run in enumerate(info["runs"]):
            (g0, g1, gt), = run["get_next"]
            inside = covered([(s, e) for s, e, t in run["matmuls"] if t == gt],
                             g0, g1)
            if inside >= 0.3 * (g1 - g0):
                found = k
                break
        if found is not None:
            break
    else:
        sys.exit("tf1_overlap: no MatMul ran inside IteratorGetNext under "
                 "its thread_id in %d x %d runs" % (OVERLAP_TRIES, OVERLAP_RUNS))
    run = info["runs"][found]
    how = "`python3 %s tf1_overlap`; TensorFlow %s, %s" % (SCRIPT, info["tf"],
                                                           versions)
    fig = ("traced run %d of %d; %d node_stats, thread_ids %s; "
           "IteratorGetNext %.1f ms, MatMuls under its thread_id %d for %.1f "
           "ms of it; Session.run %.1f ms"
           % (found + 1, OVERLAP_RUNS, run["nodes"], run["thread_ids"],
              (g1 - g0) / 1e3, gt, inside / 1e3, run["run_ms"]))
    what = ("a Session.run (tf.compat.v1 graph, RunOptions(FULL_TRACE), "
            "after 3 untraced, one inter-op and one intra-op thread) whose "
            "IteratorGetNext waits on a slow input (numpy_function sleeping "
            "30 ms, no prefetch) while a MatMul chain of a 700x700 variable "
            "that needs no input runs, both under one thread_id")
    out = os.path.join(fu.TESTDATA, "tf1_overlap.runmeta.pb")
    shutil.copyfile(os.path.join(outdir, "run%d.runmeta.pb" % found), out)
    fu.check_size(out)
    fu.readme_row(os.path.basename(out), "RunMetadata of %s. Sanity: %s"
                  % (what, fig), how)
    out2 = os.path.join(fu.TESTDATA, "tf1_overlap_timeline.json")
    shutil.copyfile(os.path.join(outdir, "run%d.json" % found), out2)
    fu.check_size(out2)
    fu.readme_row(os.path.basename(out2),
                  "timeline.Timeline(step_stats).generate_chrome_trace_format()"
                  " of tf1_overlap.runmeta.pb (its lanes put the MatMuls "
                  "beside IteratorGetNext)", how)
    print("wrote %s, %s: %s" % (out, out2, fig))


def make_tf1_nostep(versions):
    outdir = os.path.join(WORK, "tf1_nostep")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    info = run_child(["tf1_nostep", outdir])
    if [r[0] for r in info["records"]] != [0, 0]:
        sys.exit("tf1_nostep: records carry steps %s" % info["records"])
    out = os.path.join(fu.TESTDATA, "tf1_nostep.tfevents")
    shutil.copyfile(info["events"], out)
    fu.check_size(out)
    fu.readme_row(os.path.basename(out),
                  "tfevents of tf1_step1/2.runmeta.pb written by "
                  "FileWriter.add_run_metadata(md, 'step%%03d') without "
                  "global_step, as TF's ProfilerHook writes it. Sanity: "
                  "%d TFRecord frames, tagged_run_metadata (step, tag) %s"
                  % (tfrecord_count(out), info["records"]),
                  "`python3 %s tf1_nostep`; TensorFlow %s, %s"
                  % (SCRIPT, info["tf"], versions))
    print("wrote %s: %s" % (out, info["records"]))


def make_tf1_timeline2(versions):
    outdir = os.path.join(WORK, "tf1_timeline2")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    info = run_child(["tf1_timeline2", outdir])
    out = os.path.join(fu.TESTDATA, "tf1_timeline2.json")
    shutil.copyfile(info["timeline"], out)
    fu.check_size(out)
    xs = fu.complete_events(fu.load_chrome(out))
    span = max(x[4] for x in xs) - min(x[3] for x in xs)
    fu.readme_row(os.path.basename(out),
                  "timeline.Timeline(step_stats).generate_chrome_trace_format()"
                  " of tf1_step2.runmeta.pb (tf1_timeline.json is step 1's). "
                  "Sanity: %d X events, span %.0f us" % (len(xs), span),
                  "`python3 %s tf1_timeline2`; TensorFlow %s, %s"
                  % (SCRIPT, info["tf"], versions))
    print("wrote %s: %d X events, span %.0f us" % (out, len(xs), span))


def tfrecord_count(path):
    import struct
    n = 0
    with open(path, "rb") as f:
        while True:
            head = f.read(12)
            if len(head) < 12:
                break
            length = struct.unpack("<Q", head[:8])[0]
            f.seek(length + 4, 1)
            n += 1
    return n


def main(argv):
    if len(argv) > 1 and argv[1] == "--child":
        if argv[2] == "tf2":
            child_tf2(argv[3], argv[4])
        elif argv[2] == "tb":
            child_tb(argv[3])
        elif argv[2] == "fit":
            child_fit(argv[3], argv[4])
        elif argv[2] == "tf1_overlap":
            child_tf1_overlap(argv[3])
        elif argv[2] == "tf1_nostep":
            child_tf1_nostep(argv[3])
        elif argv[2] == "tf1_timeline2":
            child_tf1_timeline2(argv[3])
        else:
            child_tf1(argv[3])
        sys.stdout.flush()
        os._exit(0)
    versions = "Python %s" % platform.python_version()
    what = argv[1] if len(argv) > 1 else "all"
    os.makedirs(WORK, exist_ok=True)
    if what in ("all", "tf2"):
        scenarios = argv[2:] or ["input", "compute", "host"]
        runs = {}
        for sc in scenarios:
            make_tf2(sc, versions, runs)
        if "input" in runs and "compute" in runs:
            make_logdir(runs, versions)
    if what in ("all", "tf1"):
        make_tf1(versions)
    if what in ("all", "tf1", "tf1_nostep"):
        make_tf1_nostep(versions)
    if what in ("all", "tf1", "tf1_timeline2"):
        make_tf1_timeline2(versions)
    if what in ("all", "tf1_overlap"):
        make_tf1_overlap(versions)
    for kind in FIT_KINDS:
        if what in ("all", kind):
            make_fit(kind, versions)


if __name__ == "__main__":
    main(sys.argv)
