#!/bin/sh
# SPDX-License-Identifier: MIT
# oracle_venv.sh - make the Python venv the oracle scripts run in
# (tools/tf_overview.py, tools/tb_plugin_steps.py, tools/hta_breakdown.py).
# Run by hand only: neither the build, the tests nor CI need Python.
#
#   tools/oracle_venv.sh [DIR]      # DIR defaults to .venv-oracle/ in the repo root
#
# Idempotent: an existing venv is kept; pip installs only what is missing or
# at another version. The versions are the ones the committed figures
# (tests/corpus/expect_tf_overview.txt, expect_tf2.txt's kineto rows,
# expect_hta.txt) were made with:
#   tensorboard-plugin-profile  TF profiler protos (xprof.protobuf)
#   torch-tb-profiler           PyTorch's TensorBoard plugin (needs no torch)
#   HolisticTraceAnalysis       HTA (needs no torch), and pandas
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/.venv-oracle}

[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet tensorboard-plugin-profile==2.24.2 \
        torch-tb-profiler==0.4.3 HolisticTraceAnalysis==0.5.0 pandas==3.1.1
# fail here, not in the scripts, when an import is broken
"$venv/bin/python" -c '
import sys
import xprof.protobuf.input_pipeline_pb2, torch_tb_profiler, hta.trace_analysis, pandas
print("oracle venv ready:", sys.prefix)
'
