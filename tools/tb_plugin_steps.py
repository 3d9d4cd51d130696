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
waits and idle; the two split it in another order, Python above CPU ops),
cpuop= (CpuOp: on a CPU-only trace, our compute).

Its step windows and priority order match ours on a single GPU: a step runs
from its ProfilerStep#N start (pushed back to the end of the previous step's
device work) to the later of its end and the end of the kernels it launched;
kernel > memcpy > memset > runtime > DataLoader > CPU op > other. Its
DataLoader share is then our input bucket, so the corpus test compares them.

torch 2.x writes the DataLoader's spans as `user_annotation` events, which
torch-tb-profiler 0.4.3 (made for torch 1.x, where they were `cpu_op`)
leaves out: its DataLoader share would be 0. Such a trace is read from a
copy in a temporary folder whose DataLoader spans are `cpu_op` again.

Needs `pip install torch-tb-profiler` (0.4.3 used); never a dependency of
the tool or its tests.  Usage: tools/tb_plugin_steps.py TRACE.json.gz...
"""
import gzip
import json
import os
import sys
import tempfile

from torch_tb_profiler.profiler.data import RunProfileData

ROLES = ['Kernel', 'Memcpy', 'Memset', 'Comm', 'Runtime', 'DataLoader', 'CpuOp', 'Other']


def loader_as_cpu_op(path, tmp):
    """The path to read: `path`, or a copy in `tmp` whose user_annotation
    DataLoader spans are cpu_op (see above)."""
    opener = gzip.open if path.endswith('.gz') else open
    try:
        with opener(path, 'rt') as f:
            trace = json.load(f)
    except (OSError, ValueError):
        return path
    events = trace.get('traceEvents', []) if isinstance(trace, dict) else []
    moved = 0
    for e in events:
        if (isinstance(e, dict) and e.get('cat') == 'user_annotation' and
                str(e.get('name', '')).startswith('enumerate(DataLoader)')):
            e['cat'] = 'cpu_op'
            moved += 1
    if moved == 0:
        return path
    copy = os.path.join(tmp, os.path.basename(path).replace('.gz', ''))
    with open(copy, 'w') as f:
        json.dump(trace, f)
    return copy


def main(paths):
    tmp = tempfile.TemporaryDirectory(prefix='tpa_tb_')
    for path in paths:
        try:
            data = RunProfileData.parse('worker0', None, loader_as_cpu_op(path, tmp.name),
                                        None)
        except Exception as e:  # e.g. the torch 1.8 bare-array traces
            print('%s: torch-tb-profiler cannot read it: %r' % (path, e))
            continue
        data = data[0] if isinstance(data, tuple) else data
        data.process()
        data.analyze()
        print(path)
        loader, times = [], []
        fields = {'kernel': [], 'memcpy': [], 'runtime': [], 'host': [], 'cpuop': []}
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
            fields['cpuop'].append('%.1f' % share['CpuOp'])
        c = data.avg_costs
        print('  average DataLoader %.1f%%' % (100.0 * c.costs[ROLES.index('DataLoader')]
                                               / c.costs[-1]))
        print('  steps=%s times=%s %s' % (','.join(loader), ','.join(times),
                                         ' '.join('%s=%s' % (k, ','.join(v))
                                                  for k, v in fields.items())))


if __name__ == '__main__':
    main(sys.argv[1:])
