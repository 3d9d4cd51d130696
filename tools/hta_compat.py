# SPDX-License-Identifier: MIT
"""HolisticTraceAnalysis 0.5.0 under pandas 3, for tools/hta_breakdown.py
and tools/hta_job.py: import this before TraceAnalysis.

HTA downcasts the trace's `correlation` column to the smallest integer type
that holds its ids (int16 for a short trace), then writes row indexes into
it to link launches and kernels; pandas 3 refuses a row index past that
type's range ("int16" overflow), so HTA fails on any trace of more than
32,767 events that has correlation ids. The column is widened to int64
before HTA's transform_correlation_to_index(); its figures are unchanged.
"""
import hta.common.trace as _trace

_transform = _trace.transform_correlation_to_index


def _wide_correlation(df, *args, **kwargs):
    if "correlation" in df.columns:
        df["correlation"] = df["correlation"].astype("int64")
    return _transform(df, *args, **kwargs)


_trace.transform_correlation_to_index = _wide_correlation
