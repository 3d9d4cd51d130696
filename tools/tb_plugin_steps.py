#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-step figures of PyTorch's own TensorBoard plugin for a Kineto trace.

Prints, for each file, what torch-tb-profiler's overview shows: each step's
time and its breakdown (Kernel, Memcpy, Memset, Communication, Runtime,
DataLoader, CpuOp, Other), then the `steps=` and `times=` fields of a
tests/corpus/expect_tf2.txt kineto row: DataLoader % and step time in ms,
and the other buckets both tools define alike: kernel= (Kernel + Memset:
our compute), memcpy= (our transfer), runtime= (Runtime: our launch, setup
and host wait), host= (Runtime + CpuOp + Other: all our host time, host
waits and idle; the two split it in another order, Python above CPU ops).

Its step windows and priority order match ours on a single GPU: a step runs
from its ProfilerStep#N start (pushed back to the end of the previous step's
device work) to the later of its end and the end of the kernels it launched;
kernel > memcpy > memset > runtime > DataLoader > CPU op > other. Its
DataLoader share is then our input bucket, so the corpus test compares them.

Needs `pip install torch-tb-profiler` (0.4.3 used); never a dependency of
the tool or its tests.  Usage: tools/tb_plugin_steps.py TRACE.json.gz...
"""
import sys

from torch_tb_profiler.profiler.data import RunProfileData

ROLES = ['Kernel', 'Memcpy', 'Memset', 'Comm', 'Runtime', 'DataLoader', 'CpuOp', 'Other']


def main(paths):
    for path in paths:
        try:
            data = RunProfileData.parse('worker0', None, path, None)
        except Exception as e:  # e.g. the torch 1.8 bare-array traces
            print('%s: torch-tb-profiler cannot read it: %r' % (path, e))
            continue
        data = data[0] if isinstance(data, tuple) else data
        data.process()
        data.analyze()
        print(path)
        loader, times = [], []
        fields = {'kernel': [], 'memcpy': [], 'runtime': [], 'host': []}
        for name, c in zip(data.steps_names, data.steps_costs):
            total = c.costs[-1]
            shares = ' '.join('%s %.1f%%' % (r, 100.0 * v / total)
                              for r, v in zip(ROLES, c.costs[:-1]) if v)
            print('  step %s %.3f ms  %s' % (name, total / 1000.0, shares))
            loader.append('%.1f' % (100.0 * c.costs[ROLES.index('DataLoader')] / total))
            times.append('%.3f' % (total / 1000.0))
            share = dict((r, 100.0 * v / total) for r, v in zip(ROLES, c.costs[:-1]))
            fields['kernel'].append('%.1f' % (share['Kernel'] + share['Memset']))
            fields['memcpy'].append('%.1f' % share['Memcpy'])
            fields['runtime'].append('%.1f' % share['Runtime'])
            fields['host'].append('%.1f' % (share['Runtime'] + share['CpuOp'] + share['Other']))
        c = data.avg_costs
        print('  average DataLoader %.1f%%' % (100.0 * c.costs[ROLES.index('DataLoader')]
                                               / c.costs[-1]))
        print('  steps=%s times=%s %s' % (','.join(loader), ','.join(times),
                                         ' '.join('%s=%s' % (k, ','.join(v))
                                                  for k, v in fields.items())))


if __name__ == '__main__':
    main(sys.argv[1:])
