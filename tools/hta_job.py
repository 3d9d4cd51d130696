#!/usr/bin/env python3
"""HTA's figures on the synthetic GPU-shaped ranks, for tests/cli/job/hta.sh.

    .venv-oracle/bin/python tools/hta_job.py > tests/cli/job/expect_hta.txt

Runs HolisticTraceAnalysis (0.5.0) on testdata/synth_gpu_rank{0..3}
(tools/make_fixtures_gpu_ranks.py), copied to a temporary folder, and
prints per rank the comm/comp overlap (get_comm_comp_overlap), the kernel
launch delay (get_cuda_kernel_launch_stats: median, p90 as the nearest
rank, index round((n - 1) * 0.9) of the sorted delays, and max) and per
stream the queue length mean and max (get_queue_length_summary). Times
are HTA's microseconds, printed as nanoseconds. HTA is no dependency of
the tool or its tests: the output is committed.
"""

import glob
import os
import shutil
import sys
import tempfile

import hta_compat  # noqa: F401  (before TraceAnalysis: pandas 3)
from hta.trace_analysis import TraceAnalysis

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "testdata")


def main():
    files = sorted(glob.glob(os.path.join(TESTDATA, "synth_gpu_rank*.pt.trace.json.gz")))
    if not files:
        sys.exit("no testdata/synth_gpu_rank*: run tools/make_fixtures_gpu_ranks.py")
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            shutil.copy(f, tmp)
        t = TraceAnalysis(trace_dir=tmp)
        ranks = sorted(t.t.get_all_traces().keys())
        overlap = t.get_comm_comp_overlap(visualize=False).set_index("rank")
        launch = t.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
        queues = t.get_queue_length_summary(ranks=ranks)
    import hta
    print("# tools/hta_job.py: HolisticTraceAnalysis %s on testdata/synth_gpu_rank*"
          % getattr(hta, "__version__", "0.5.0"))
    for r in ranks:
        d = launch[r]["launch_delay"].sort_values().to_numpy()
        p90 = d[int(round((len(d) - 1) * 0.9))]
        print("rank %d overlap_pct %.2f launch_count %d launch_median_ns %d "
              "launch_p90_ns %d launch_max_ns %d"
              % (r, overlap.loc[r, "comp_comm_overlap_pctg"], len(d),
                 round(float(sorted(d)[len(d) // 2] if len(d) % 2 else
                             (d[len(d) // 2 - 1] + d[len(d) // 2]) / 2) * 1000),
                 round(p90 * 1000), round(d.max() * 1000)))
    for (r, stream), row in queues["queue_length"].iterrows():
        print("queue rank %d stream %d mean %.6f max %d" % (r, stream, row["mean"], row["max"]))


if __name__ == "__main__":
    main()
