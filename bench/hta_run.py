#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hta_run.py - Holistic Trace Analysis on one Kineto trace (to_kineto.py):
load it (HTA's parser, pandas) and compute the temporal breakdown and the
idle time breakdown, the HTA features closest to what tfprof-analyze
reports. Prints "load_s analyze_s" on stdout.

Usage: hta_run.py TRACE_DIR   (the folder holds one rank's *.json.gz)
"""
import sys
import time

from hta.trace_analysis import TraceAnalysis


def main():
    t0 = time.monotonic()
    analyzer = TraceAnalysis(trace_dir=sys.argv[1])
    t1 = time.monotonic()
    analyzer.get_temporal_breakdown(visualize=False)
    analyzer.get_idle_time_breakdown(visualize=False)
    t2 = time.monotonic()
    print("%.3f %.3f" % (t1 - t0, t2 - t1))


if __name__ == "__main__":
    main()
