#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TF's own analysis of every TF2 profile session in the corpus, as figures.

For each directory under CORPUS holding `<host>.input_pipeline.pb` (written
by the TF2 profiler beside the trace), decodes TF's InputPipelineAnalysisResult
with the protos of `tensorboard-plugin-profile` / `xprof` (never a dependency
of the tool or its tests) and prints one line:

    tf2 SESSION STEPS STEP_MS INPUT% LAUNCH% HOST% COMPUTE% VERDICT

SESSION is the directory relative to CORPUS. From step_details, each step a
PerGenericStepDetails, summed over the steps (the corpus sessions hold one):
STEP_MS the mean step time; INPUT% = (host_wait_input + host_to_device) /
step time, XProf's input_percent; LAUNCH% = host_prepare / step time, its
"Kernel Launch"; HOST% = (host_prepare + host_compute + host_compile +
unknown_time + output) / step time, the host side of the step ("All Others"
is unknown_time: Python among it); COMPUTE% = device_compute / step time.
VERDICT is the word of XProf's input statement (HIGHLY, MODERATELY,
POTENTIALLY, NOT), from the BottleneckAnalysis it recommends.

tests/corpus/expect_tf_overview.txt holds the output (header lines kept).
Usage: tools/tf_overview.py CORPUS > tests/corpus/expect_tf_overview.txt
Made with tensorboard-plugin-profile 2.24.2 (xprof.protobuf), protobuf from
its requirements, Python 3.11.
"""
import glob
import os
import re
import sys

from xprof.protobuf import input_pipeline_pb2


def session_line(root, path):
    r = input_pipeline_pb2.InputPipelineAnalysisResult()
    with open(path, 'rb') as f:
        r.ParseFromString(f.read())
    keys = ('step_time_ms', 'host_wait_input_ms', 'host_to_device_ms', 'host_prepare_ms',
            'host_compute_ms', 'host_compile_ms', 'unknown_time_ms', 'output_ms',
            'device_compute_ms')
    tot = dict((k, 0.0) for k in keys)
    steps = 0
    for any_step in r.step_details:
        d = input_pipeline_pb2.PerGenericStepDetails()
        any_step.Unpack(d)
        for k in keys:
            tot[k] += getattr(d, k)
        steps += 1
    ba = input_pipeline_pb2.BottleneckAnalysis()
    r.recommendation.bottleneck_analysis.Unpack(ba)
    m = re.search(r'is (HIGHLY|MODERATELY|POTENTIALLY|NOT) input-bound', ba.input_statement)
    t = tot['step_time_ms'] or 1.0
    pct = lambda *ks: 100.0 * sum(tot[k] for k in ks) / t
    return 'tf2 %s %d %.3f %.1f %.1f %.1f %.1f %s' % (
        os.path.relpath(os.path.dirname(path), root), steps, tot['step_time_ms'] / max(steps, 1),
        pct('host_wait_input_ms', 'host_to_device_ms'), pct('host_prepare_ms'),
        pct('host_prepare_ms', 'host_compute_ms', 'host_compile_ms', 'unknown_time_ms',
            'output_ms'),
        pct('device_compute_ms'), m.group(1) if m else '-')


def main(root):
    for path in sorted(glob.glob(os.path.join(root, 'tf2-profiler-*', '**',
                                              '*.input_pipeline.pb'), recursive=True)):
        print(session_line(root, path))


if __name__ == '__main__':
    main(sys.argv[1])
