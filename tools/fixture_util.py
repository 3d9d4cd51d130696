"""Shared helpers for the fixture scripts (make_fixtures_tf.py, make_fixtures_torch.py).

Plain Python only (json, gzip): the sanity figures computed here are what the
analysis tests assert against, so they must not depend on TensorFlow or PyTorch.
"""

import gzip
import json
import os
import re
import sys

MAX_BYTES = 64 * 1024

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(REPO, "testdata")


def write_gzip(path, data):
    """Deterministic gzip: no file name, mtime 0."""
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                 compresslevel=9, mtime=0) as gz:
            gz.write(data)


def check_size(path):
    size = os.path.getsize(path)
    if size >= MAX_BYTES:
        sys.exit("%s is %d bytes (>= %d): cut steps or ops"
            % (path, size, MAX_BYTES))
    return size


def load_chrome_doc(path):
    """Load a Chrome trace (plain or gzip) as its top-level object: a bare
    array becomes {"traceEvents": [...]}."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    return doc if isinstance(doc, dict) else {"traceEvents": doc}


def load_chrome(path):
    """Load a Chrome trace (plain or gzip) and return its list of events."""
    return load_chrome_doc(path).get("traceEvents", [])


def complete_events(events):
    """X events as (name, pid, tid, start_us, end_us, args)."""
    out = []
    for e in events:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        ts = float(e["ts"])
        out.append((e.get("name", ""), e.get("pid"), e.get("tid"),
              ts, ts + float(e["dur"]), e.get("args") or {}))
    return out


def union_len(intervals, lo, hi):
    """Length of the union of intervals clipped to [lo, hi]."""
    clipped = sorted((max(a, lo), min(b, hi)) for a, b in intervals
            if b > lo and a < hi)
    total = 0.0
    cur_a = cur_b = None
    for a, b in clipped:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        elif b > cur_b:
            cur_b = b
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def covered_fraction(steps, intervals):
    """Sum over steps of union(intervals within step) / sum of step time."""
    num = 0.0
    den = 0.0
    for lo, hi in steps:
        num += union_len(intervals, lo, hi)
        den += hi - lo
    return num / den if den > 0 else 0.0


def readme_row(fname, what, how):
    """Append (or replace) the row for fname in testdata/README.md."""
    path = os.path.join(TESTDATA, "README.md")
    with open(path) as f:
        lines = f.read().splitlines()
    row = "| %s | %s | %s |" % (fname, what.replace("|", "\\|"),
                  how.replace("|", "\\|"))
    key = "| %s |" % fname
    for i, line in enumerate(lines):
        if line.startswith(key):
            lines[i] = row
            break
    else:
        lines.append(row)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def fmt_pct(x):
    return "%.1f%%" % (100.0 * x)


STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")


def readme_drop(prefix):
    """Remove the rows of testdata/README.md whose file cell starts with prefix."""
    path = os.path.join(TESTDATA, "README.md")
    with open(path) as f:
        lines = f.read().splitlines()
    keep = [ln for ln in lines if not ln.startswith("| " + prefix)]
    with open(path, "w") as f:
        f.write("\n".join(keep) + "\n")
