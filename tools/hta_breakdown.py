#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HTA's temporal breakdown of Kineto traces, over the steps our report keeps.

Holistic Trace Analysis (`pip install HolisticTraceAnalysis`, never a
dependency of the tool or its tests) splits a rank's GPU time into idle,
compute and non-compute (get_temporal_breakdown: every event on a GPU stream
is a "kernel"; communication and memory kernels, memcpy and memset, are
non-compute; idle is the time inside the window that no kernel covers). Its
own window runs from the first kernel to the last, without the trace's last
iteration. To compare over the same steps, this script takes HTA's parsed
trace, HTA's kernel classification (hta.utils.utils.get_kernel_type) and
its interval merge, and measures the three inside the kept step windows of
our JSON report (`tfprof-analyze --format json`), which it runs. HTA shifts
timestamps to the trace's first event (its 'end' column is left
unshifted, so ends are taken as ts + dur); the shift is found from the
first ProfilerStep#N event, in HTA's frame and in the file.

Prints, per trace that HTA reads and that has GPU work and step markers:

    hta FILE STEPS IDLE% COMPUTE% NONCOMPUTE%

FILE relative to CORPUS; STEPS the step numbers measured, comma-separated:
the steps our report keeps that HTA keeps too (it drops the last one). tests/corpus/expect_hta.txt holds the output.
Usage: tools/hta_breakdown.py TFPROF CORPUS FILE...
Made with HolisticTraceAnalysis 0.5.0, Python 3.11.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

import hta_compat  # noqa: F401  (before TraceAnalysis: pandas 3)
from hta.trace_analysis import TraceAnalysis
from hta.utils.utils import get_kernel_type, merge_kernel_intervals


def raw_first_step_us(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        doc = json.load(f)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    steps = [float(e['ts']) for e in events
             if str(e.get('name', '')).startswith('ProfilerStep#') and e.get('ph') == 'X'
             and e.get('cat') in ('user_annotation', 'cpu_op', 'Operator')]
    return min(steps) if steps else None


def covered(iv, s, e):
    return sum(max(0.0, min(b, e) - max(a, s)) for a, b in iv)


def breakdown(tfprof, path):
    report = json.loads(subprocess.run([tfprof, '--format', 'json', path], check=True,
                                       capture_output=True).stdout)
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(path, d)
        ta = TraceAnalysis(trace_dir=d)
    sym = ta.t.symbol_table.get_sym_table()
    (df,) = ta.t.traces.values()
    # the steps both keep: HTA drops the trace's last iteration
    hta_steps = set(int(i) for i in df['iteration'].unique() if i >= 0)
    windows = [(st['start_ns'] / 1000.0, st['end_ns'] / 1000.0) for st in report['steps']
               if not st['excluded'] and st['number'] in hta_steps]
    names = df['name'].map(lambda i: sym[i])
    steps = df[names.str.startswith('ProfilerStep#') & df['stream'].eq(-1)]
    raw = raw_first_step_us(path)
    if steps.empty or raw is None or not windows:
        return None
    shift = raw - float(steps['ts'].min())
    gpu = df[df['stream'].ne(-1)].copy()
    gpu = gpu[~names[gpu.index].str.startswith('ProfilerStep#')]
    if gpu.empty:
        return None
    # HTA shifts ts but not its 'end' column: end from ts + dur
    gpu['end'] = gpu['ts'] + gpu['dur']
    busy = merge_kernel_intervals(gpu.copy())
    comp = gpu[gpu['name'].map(lambda i: get_kernel_type(sym[i]) == 'COMPUTATION')]
    comp = merge_kernel_intervals(comp.copy()) if not comp.empty else comp
    busy_iv = [(a + shift, b + shift) for a, b in zip(busy['ts'], busy['end'])]
    comp_iv = [(a + shift, b + shift) for a, b in zip(comp['ts'], comp['end'])] if len(comp) else []
    total = sum(e - s for s, e in windows)
    b = sum(covered(busy_iv, s, e) for s, e in windows)
    c = sum(covered(comp_iv, s, e) for s, e in windows)
    used = ','.join(str(st['number']) for st in report['steps']
                    if not st['excluded'] and st['number'] in hta_steps)
    return used, 100.0 * (total - b) / total, 100.0 * c / total, 100.0 * (b - c) / total


def main(tfprof, root, paths):
    for path in paths:
        rel = os.path.relpath(path, root)
        try:
            r = breakdown(tfprof, path)
        except Exception as e:  # HTA cannot read some traces
            print('# %s: HTA fails: %s' % (rel, str(e).splitlines()[0][:100] if str(e) else
                                           type(e).__name__))
            continue
        if r is None:
            print('# %s: no GPU work or no step markers' % rel)
            continue
        print('hta %s %s %.2f %.2f %.2f' % ((rel,) + r))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
