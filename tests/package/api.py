# SPDX-License-Identifier: MIT
"""The installed tfprof_analyze module on testdata: analyze() equals the
CLI's JSON report, diff() and check() run, errors carry the exit status and
the tool's message; with --pandas, to_dataframe() is steps x buckets.
Usage: python api.py TESTDATA [--pandas]  (run by tests/package/run.sh)"""
import json
import os
import subprocess
import sys

import tfprof_analyze as tpa

os.chdir(sys.argv[1])
fixture, other = "torch_input_bound.trace.json.gz", "torch_compute_bound.trace.json.gz"
exe = tpa.executable()
assert os.path.dirname(exe) == os.path.dirname(sys.executable), (exe, sys.executable)

report = tpa.analyze(fixture)
cli = json.loads(subprocess.run([exe, "--format", "json", fixture], check=True,
                                stdout=subprocess.PIPE).stdout)
assert report == cli, "analyze() differs from the CLI's JSON report"
assert report["summary"]["verdict"] == "input-bound"
assert tpa.version() == tpa.__version__ == report["tool"]["version"]

opts = tpa.analyze(fixture, warmup=1, set={"gap.min": "20us"}, step_marker=None)
assert opts["thresholds"]["gap_min_ns"] == 20000 and opts["summary"]["excluded_steps"] >= 1

d = tpa.diff(fixture, other)
assert d["schema"].startswith("tfprof-analyze/diff/"), d["schema"]

assert tpa.check(other, baseline=fixture, max_regression="5%")        # faster: passes
tripped = tpa.check(fixture, baseline=other, max_regression="5%")
assert not tripped and tripped.exit_code == 1, tripped

for call, code, words in [(lambda: tpa.analyze("no-such-file.json"), 3, "no-such-file.json"),
                          (lambda: tpa.analyze(fixture, warmup="x"), 2, "--warmup"),
                          (lambda: tpa.analyze(fixture, rules="README.md"), 4, "README.md")]:
    try:
        call()
    except tpa.TfprofError as e:
        assert e.exit_code == code and words in e.message, (e.exit_code, e.message)
    else:
        raise AssertionError(f"no TfprofError (exit {code} expected)")

if "--pandas" in sys.argv:
    df = tpa.to_dataframe(report)
    steps = report["steps"]
    buckets = list(steps[0]["bucket_ns"])
    assert list(df.index) == [s["number"] for s in steps], df.index
    assert list(df.columns[:len(buckets)]) == buckets, df.columns
    assert df.loc[steps[0]["number"], "input"] == steps[0]["bucket_ns"]["input"]
    frac = tpa.to_dataframe(report, values="frac")
    assert abs(frac[buckets].sum(axis=1) - 1).max() < 1e-3, frac
    print(f"to_dataframe: {df.shape[0]} steps x {len(buckets)} buckets")
print("api: ok")
