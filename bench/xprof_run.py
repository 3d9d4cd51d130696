#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""XProf (TensorBoard Profiler) answering "what limits my throughput?".

    python3 bench/xprof_run.py FILE.xplane.pb

Runs XProf's own converters, as TensorBoard's Profile tab does, on a fresh
copy of FILE in a temporary folder (XProf caches what it converts next to
the file, so a second run on the same path would not redo the work):
overview_page (step time, the input-bound verdict, recommendations) and
input_pipeline_analyzer. Prints the verdict line. Needs `pip install xprof`.
"""
import os
import shutil
import sys
import tempfile

from xprof.convert import raw_to_tool_data


def main(src):
    tmp = tempfile.mkdtemp(prefix="tpa_xprof_")
    try:
        path = os.path.join(tmp, os.path.basename(src))
        shutil.copyfile(src, path)
        overview, _ = raw_to_tool_data.xspace_to_tool_data([path], "overview_page", {})
        pipeline, _ = raw_to_tool_data.xspace_to_tool_data([path], "input_pipeline_analyzer", {})
        if not overview or not pipeline:
            sys.exit("xprof_run.py: XProf returned nothing")
        text = overview.decode() if isinstance(overview, bytes) else overview
        start = text.find('"input_conclusion":"')
        if start >= 0:
            start += len('"input_conclusion":"')
            print(text[start:text.find('"', start)])
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: xprof_run.py FILE.xplane.pb")
    main(sys.argv[1])
