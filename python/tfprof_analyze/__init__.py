# SPDX-License-Identifier: MIT
"""tfprof-analyze from Python: run the command-line tool and get its report.

Every function runs the ``tfprof-analyze`` executable that the same wheel
installed (or the one named by $TFPROF_ANALYZE, or the first on PATH) and
returns what it wrote; nothing is computed here. A failure raises
TfprofError with the tool's exit status and its message.

    >>> import tfprof_analyze as tpa
    >>> report = tpa.analyze("trace.json.gz", warmup=2)
    >>> report["summary"]["verdict"]
    'input-bound'
    >>> tpa.to_dataframe(report)            # needs pandas: steps x buckets

Options are the command line's long options with '_' for '-':
``step_marker="Iteration"``, ``rules_replace=True``, ``set={"gap.min": "20us"}``
or ``set=["gap.min=20us"]``. True adds the flag, False and None leave it out,
a list repeats the option.
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig

__all__ = ["TfprofError", "CheckResult", "analyze", "diff", "check", "to_dataframe",
           "executable", "version"]

EXE_NAME = "tfprof-analyze"


class TfprofError(Exception):
    """tfprof-analyze failed. ``exit_code``: 2 usage, 3 bad input, 4 bad rules,
    5 output or internal error (see its man page); ``message``: what it printed
    on stderr; ``argv``: the command that was run."""

    def __init__(self, exit_code, message, argv):
        self.exit_code = exit_code
        self.message = message
        self.argv = argv
        super().__init__(f"{EXE_NAME} exited with status {exit_code}: {message}")


class CheckResult:
    """What ``check`` found: ``passed`` (exit 0) or not (exit 1, a gate
    tripped), ``exit_code``, ``output`` (the report on stdout) and ``stderr``.
    True when the check passed."""

    def __init__(self, exit_code, output, stderr):
        self.exit_code = exit_code
        self.passed = exit_code == 0
        self.output = output
        self.stderr = stderr

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"CheckResult(passed={self.passed}, exit_code={self.exit_code})"


def executable():
    """The path of the tfprof-analyze executable this module runs."""
    env = os.environ.get("TFPROF_ANALYZE")
    if env:
        return env
    # The wheel puts it in the scripts directory of the environment it is
    # installed in; look there first, so an activated venv is not needed.
    names = [EXE_NAME + (".exe" if os.name == "nt" else "")]
    dirs = [sysconfig.get_path("scripts")]
    if sys.version_info >= (3, 10):
        dirs.append(sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user")))
    for d in dirs:
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    p = shutil.which(EXE_NAME)
    if p is None:
        raise FileNotFoundError(
            f"{EXE_NAME} is not installed here: pip install tfprof-analyze, "
            f"apt-get install ./tfprof-analyze_*.deb, or set $TFPROF_ANALYZE")
    return p


def _path_arg(p):
    p = os.fspath(p)
    # A file named like an option would be read as one.
    return "./" + p if p.startswith("-") and p != "-" else p


def _option_args(options):
    argv = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, dict):
            for k, v in value.items():
                argv += [flag, f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            for v in value:
                argv += [flag, str(v)]
        else:
            argv += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return argv


def _run(args, ok=(0,)):
    argv = [executable()] + args
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL)
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode not in ok:
        message = stderr.strip() or f"no message (exit status {proc.returncode})"
        if "error while loading shared libraries" in stderr:
            # The wheel links the system's libraries rather than bundling them.
            message += (" (the wheel needs the system's yajl, zlib and protobuf-c: on"
                        " Debian/Ubuntu apt-get install libyajl2 zlib1g libprotobuf-c1)")
        raise TfprofError(proc.returncode, message, argv)
    return proc.returncode, proc.stdout.decode("utf-8"), stderr


def _json_only(options):
    fmt = options.pop("format", "json")
    if fmt != "json":
        raise ValueError(f"format={fmt!r}: the Python API reads the JSON report only")
    return ["--format", "json"]


def analyze(path, **options):
    """Analyze one trace (or a list of traces, or a TensorBoard logdir) and
    return the JSON report as a dict (doc/report-json.md). With
    ``fail_on_severity`` the tool's exit 1 is not an error: the report is
    returned all the same."""
    paths = [path] if isinstance(path, (str, bytes, os.PathLike)) else list(path)
    args = ["analyze"] + _json_only(options) + _option_args(options)
    _, out, _ = _run(args + [_path_arg(p) for p in paths], ok=(0, 1))
    return json.loads(out)


def diff(a, b, **options):
    """Compare two runs (traces or JSON reports) and return the JSON diff as a dict."""
    args = ["diff"] + _json_only(options) + _option_args(options)
    _, out, _ = _run(args + [_path_arg(a), _path_arg(b)])
    return json.loads(out)


def check(new, baseline=None, **options):
    """The CI gate: ``check(new, baseline, max_regression="5%", fail_on=...,
    fail_if=...)``. Returns a CheckResult (true when no gate tripped); a
    tripped gate is a result, not an exception."""
    if baseline is not None:
        options["baseline"] = baseline
    code, out, err = _run(["check"] + _option_args(options) + [_path_arg(new)], ok=(0, 1))
    return CheckResult(code, out, err)


def version():
    """The tool's version, e.g. '0.1.0'."""
    _, out, _ = _run(["--version"])
    return out.split()[-1]


def to_dataframe(report, values="ns"):
    """A pandas DataFrame of a report's steps: one row per step (index
    'step', the step number), one column per time bucket (compute,
    transfer_h2d, ..., idle) in ns, or as fractions of the step with
    values="frac"; the columns step_time_ns, excluded and class follow."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("to_dataframe needs pandas: pip install pandas") from e
    key = {"ns": "bucket_ns", "frac": "bucket_frac"}[values]
    steps = report.get("steps", [])
    buckets = list(steps[0][key]) if steps else []
    rows = [[s[key][b] for b in buckets] + [s["step_time_ns"], s["excluded"], s["class"]]
            for s in steps]
    df = pd.DataFrame(rows, columns=buckets + ["step_time_ns", "excluded", "class"],
                      index=pd.Index([s["number"] for s in steps], name="step"))
    df.columns.name = "bucket"
    return df


try:
    from importlib.metadata import version as _dist_version, PackageNotFoundError
    try:
        __version__ = _dist_version("tfprof-analyze")
    except PackageNotFoundError:
        __version__ = "unknown"
except ImportError:
    __version__ = "unknown"
