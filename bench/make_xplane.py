#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Record a real TF2 profile (XSpace) of STEPS training steps, for bench/run.sh.

    python3 bench/make_xplane.py STEPS OUT.xplane.pb

A small Keras MLP (8 dense layers) trained on CPU by a @tf.function step, fed
by tf.data (batch, parallel map, prefetch), every step inside
tf.profiler.experimental.Trace('train', step_num=i, _r=1) as the TF docs
say. About 15 kB of XSpace per step on TF 2.21 (2000 steps: 29 MB, 0.9 M
events). Needs tensorflow (tensorflow-cpu): a benchmark peer input only,
never a dependency of the tool.
"""
import glob
import os
import shutil
import sys
import tempfile


def main(steps, out):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    x = np.random.rand(4096, 64).astype("float32")
    y = np.random.randint(0, 10, 4096)
    ds = (tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(32)
          .map(lambda a, b: (a * 2.0, b), num_parallel_calls=2).prefetch(2))
    model = tf.keras.Sequential(
        [tf.keras.Input((64,))]
        + [tf.keras.layers.Dense(64, activation="relu") for _ in range(8)]
        + [tf.keras.layers.Dense(10)])
    opt = tf.keras.optimizers.SGD(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(a, b):
        with tf.GradientTape() as tape:
            loss = loss_fn(b, model(a, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    it = iter(ds)
    for _ in range(3):          # trace and warm up outside the profile
        train_step(*next(it))
    logdir = tempfile.mkdtemp(prefix="tpa_xplane_")
    tf.profiler.experimental.start(logdir)
    for i in range(steps):
        with tf.profiler.experimental.Trace("train", step_num=i, _r=1):
            train_step(*next(it))
    tf.profiler.experimental.stop()
    found = glob.glob(os.path.join(logdir, "plugins/profile/*/*.xplane.pb"))
    if len(found) != 1:
        sys.exit("make_xplane.py: expected one .xplane.pb under %s, found %d" % (logdir, len(found)))
    shutil.copyfile(found[0], out)
    shutil.rmtree(logdir)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make_xplane.py STEPS OUT.xplane.pb")
    main(int(sys.argv[1]), sys.argv[2])
