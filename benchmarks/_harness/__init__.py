"""The one harness of the benchmark scripts: every script imports it (``import _harness as
bench``) and no other benchmark code. Run a script from the project root, ``python
benchmarks/NAME.py``: Python then has ``benchmarks/`` on its path, and the data sets of
``../shared/data`` are found where the library's loaders look for them.

- One command line: :func:`parser` gives each script its docstring as ``--help``, ``--quick``
  (a smoke run of a few seconds that exercises the real code path; ``tests/test_benchmarks.py``
  runs it for every script) and ``--out`` (the results folder); scripts that measure in child
  processes get ``--time-limit`` and the hidden ``--child`` through which a script calls
  itself; scripts whose results file is named on the command line get ``--name``, and
  :func:`parse` still reads their older ``--out NAME`` and ``--out FILE.md``.
- A child process per measurement: :func:`run_child` runs ``python script --child ...`` under a
  time limit and reads the JSON line the child prints with :func:`report_child`;
  :func:`measure_in_child` adds the rule "a method that failed at a smaller size is not tried
  on larger ones", and :func:`measure_fit` is the child's side: time and peak memory of one fit
  (:func:`measure`), or the reason it was refused.
- Peak memory: :func:`measure` resets the kernel's high-water mark before the fit, so the peak
  is the fit's own.
- One Markdown/PNG writer: :func:`header` (title, the exact command, the machine),
  :func:`write_markdown` (``<name>.md``, ``<name>-quick.md`` for ``--quick``, also printed),
  :func:`plot_panels` (log-log panels of fit time against n, one line per method) and
  :func:`save_figure`. Every file written is announced as ``written: PATH`` on stderr.
- What a run may lack: :func:`shared_data` loads the shared data sets or, when they are not
  there, ends the run with the reason (:func:`skip_run`: in a ``--quick`` run a results file
  that says so, exit status 0); :func:`pyplot` is None without matplotlib (the plots are
  skipped with a printed reason).

Beside this module: :mod:`_harness.clsst` (the CLSST experiments' data, draws and methods),
:mod:`_harness.pae` (the PAE experiments' baselines and run records; needs torch) and
:mod:`_harness.internals` (the library's private names that some benchmarks reach for, imported
there and nowhere else in ``benchmarks/``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = "benchmarks/results"


# ---------------------------------------------------------------------- the command line
def parser(
    doc: str,
    *,
    child_nargs: int | None = None,
    time_limit: float | None = None,
    quick: str = "a smoke run: small sizes only",
    limit_aliases: tuple[str, ...] = (),
    name: str | None = None,
) -> argparse.ArgumentParser:
    """The parser every script starts from: its docstring as help, ``--quick`` and ``--out``;
    with ``child_nargs``, the hidden ``--child`` (the arguments of one measurement) and, with
    ``time_limit``, ``--time-limit`` (seconds per child, that default; ``limit_aliases`` are
    older names of the option that still work). With ``name`` (its default; "" for a default
    the script decides), ``--name``: the stem of the results files (see :func:`parse`)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    if child_nargs is not None:
        ap.add_argument("--child", nargs=child_nargs, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help=quick.replace("%", "%%"))
    if time_limit is not None:
        ap.add_argument(
            "--time-limit",
            *limit_aliases,
            type=float,
            default=time_limit,
            help=f"seconds per fit ({time_limit:g})",
        )
    ap.add_argument("--out", default=RESULTS, help=f"folder for the results ({RESULTS})")
    if name is not None:
        ap.add_argument(
            "--name",
            default=name,
            help=f"stem of the results files ({name or 'see above'}); the older --out NAME "
            "(a bare name that is no folder) and --out FILE.md still work",
        )
    return ap


def parse(ap: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """``ap.parse_args``, reading the older forms of ``--out`` of the scripts with ``--name``:
    ``--out FILE.md`` (that file) and ``--out NAME``, a bare name that is no existing folder
    (``<RESULTS>/NAME.md``), as the results files of earlier runs quote them."""
    args = ap.parse_args(argv)
    out = Path(args.out)
    if getattr(args, "name", None) is not None and args.out != RESULTS:
        if out.suffix == ".md":
            args.out, args.name = str(out.parent), out.stem
        elif len(out.parts) == 1 and not out.is_dir():
            args.out, args.name = RESULTS, out.name
    return args


def command() -> str:
    """The command line that is running, as the results files quote it."""
    return " ".join(["python", "benchmarks/" + Path(sys.argv[0]).name, *sys.argv[1:]])


def paper_tables(path) -> dict[str, list[list[str]]]:
    """A file of numbers printed in a paper: ``[section]`` lines, then rows of words (a name and
    its numbers); ``#`` lines are comments. Returns {section: [row as a list of words]}."""
    out: dict[str, list[list[str]]] = {}
    key = None
    for line in Path(path).read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            key = line.strip().strip("[]")
            out[key] = []
        else:
            out[key].append(line.split())
    return out


# ---------------------------------------------------------------------- measurements
def rss_mb(field: str = "VmHWM") -> float:
    """The process's current (VmRSS) or peak (VmHWM) resident memory in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(fn):
    """Run fn(); return its result, the seconds it took and the growth of peak RSS in MB.

    The kernel's high-water mark is reset first (Linux: "5" to /proc/self/clear_refs), so the
    peak is that of fn alone, not of the data generation before it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass  # elsewhere the peak may include what ran before fn
    before = rss_mb("VmRSS")
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, rss_mb("VmHWM") - before


def run_child(script: str, args: list[str], limit: float) -> dict:
    """Run ``python script --child args...`` and parse the JSON of its last stdout line."""
    cmd = [sys.executable, script, "--child", *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"status": f"> {limit:.0f} s"}
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines() or [f"exit code {out.returncode}"]
        return {"status": "error: " + lines[-1][:100]}
    return {"status": "ok", **json.loads(out.stdout.strip().splitlines()[-1])}


def measure_in_child(script: str, args: list[str], limit: float, dead: set, key) -> dict:
    """:func:`run_child`, unless ``key`` (a method) already failed at a smaller size; a refusal
    (the child's :func:`report_fit` caught a MemoryError) or a failure marks ``key`` dead."""
    if key in dead:
        return {"status": "not run (failed at a smaller n)"}
    res = run_child(script, args, limit)
    if "refused" in res:
        res = {"status": "refused: " + res["refused"]}
    if res["status"] != "ok":
        dead.add(key)
    return res


def report_child(**values) -> None:
    """The child's answer to run_child."""
    print(json.dumps(values))


def measure_fit(fit, repeat_below: float = 0.0):
    """In a child: :func:`measure` ``fit()``; return its result and ``{"time", "peak_mb"}``
    for :func:`report_child`, or None after reporting a refusal when ``fit`` raised a
    MemoryError (a method's own memory-budget check). A fit faster than ``repeat_below``
    seconds runs five times and reports the median time: one run of a sub-second fit varies
    by tens of percent on a shared machine."""
    try:
        result, elapsed, peak = measure(fit)
    except MemoryError as exc:
        report_child(refused=str(exc).split(":")[0])
        return None
    if elapsed < repeat_below:
        times = [elapsed] + [measure(fit)[1] for _ in range(4)]
        elapsed = statistics.median(times)
    return result, {"time": elapsed, "peak_mb": peak}


# ---------------------------------------------------------------------- the results
def _cpuinfo(key: str) -> str | None:
    path = Path("/proc/cpuinfo")
    lines = path.read_text().splitlines() if path.exists() else []
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(key)), None)


def cpu_model() -> str:
    """lscpu's model name (from /proc/cpuinfo)."""
    return _cpuinfo("model name") or platform.processor()


def cpu_vectors() -> str:
    """Whether the CPU has AVX2 and AVX-512 (lscpu's flags avx2, avx512f): NumPy's exp, and so
    any kernel product that uses it, runs several times faster with AVX-512."""
    flags = set((_cpuinfo("flags") or "").split())
    return ", ".join(f"{f} {'yes' if f in flags else 'no'}" for f in ("avx2", "avx512f"))


def machine() -> str:
    """One line: date, cores, CPU, memory and the versions that matter."""
    import numpy as np
    import sklearn

    import unlabeled

    cpu = f"{cpu_model()} ({cpu_vectors()})"
    mem_kb = int(Path("/proc/meminfo").read_text().splitlines()[0].split()[1])
    # a run that emulates a CPU without AVX-512 says so (NumPy's and OpenBLAS's dispatch)
    for var in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE"):
        if os.environ.get(var):
            cpu += f", {var}={os.environ[var]}"
    return (
        f"Date: {datetime.date.today()}. Machine: {os.cpu_count()} cores, {cpu}, "
        f"{mem_kb / 2**20:.0f} GB. unlabeled {unlabeled.__version__}, scikit-learn "
        f"{sklearn.__version__}, numpy {np.__version__}."
    )


def header(title: str, note: str = "") -> list[str]:
    """The first lines of every results file: the title, the exact command (with ``note``,
    e.g. the time limit) and the machine."""
    note = f" ({note})" if note else ""
    return [f"# {title}", "", f"Command: `{command()}`{note}. {machine()}", ""]


def output(args, name: str, suffix: str = ".md") -> Path:
    """``<out>/<name>.md``, ``<name>-quick.md`` for ``--quick``; the folder is made."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    return out / f"{name}{'-quick' if getattr(args, 'quick', False) else ''}{suffix}"


def written(path) -> None:
    """Announce a file the run wrote (``tests/test_benchmarks.py`` checks every one)."""
    print(f"written: {path}", file=sys.stderr, flush=True)


def write_markdown(args, name: str, lines: list[str]) -> Path:
    """Write the lines to :func:`output` and print them."""
    path = output(args, name)
    text = "\n".join(lines).rstrip("\n") + "\n"
    path.write_text(text)
    print(text)
    written(path)
    return path


def skip(what: str, why: str) -> None:
    """Say that a part of the run is left out, and why."""
    print(f"skipped: {what} ({why})", file=sys.stderr, flush=True)


def skip_run(args, name: str, title: str, why: str) -> None:
    """End a run that cannot be made here (missing data or package). A ``--quick`` run writes
    ``<name>-quick.md`` with the reason and returns (the smoke test passes where the shared
    data are absent); a full run stops with the reason and exit status 1."""
    if not getattr(args, "quick", False):
        raise SystemExit(f"{Path(sys.argv[0]).name}: not run: {why}")
    skip(title, why)
    write_markdown(args, name, [*header(title), f"**Skipped**: {why.rstrip('.')}."])


def shared_data(args, name: str, title: str, load):
    """``load()``, a loader of the shared data sets (``../shared/data``, or the folder its
    environment variable names), or None after :func:`skip_run` when they are not there."""
    try:
        return load()
    except FileNotFoundError as exc:
        skip_run(args, name, title, f"the shared data are not here: {exc}")
        return None


def table_rows(rows, keys, cells, n_cells: int) -> list[str]:
    """Markdown table rows: the columns ``keys`` of each row (``n`` with thousands separators),
    then ``cells(row, find)``, a list of ``n_cells`` strings, where ``find(method)`` is the row
    of that method measured at the same ``keys`` ({} when there is none), for ratios; a row that
    did not run shows its status in the first cell and leaves the others empty."""

    def at(r):
        return tuple(r[k] for k in keys if k != "method")

    by = {(at(r), r["method"]): r for r in rows}
    out = []
    for r in rows:
        head = "| " + " | ".join(f"{r[k]:,}" if k == "n" else str(r[k]) for k in keys) + " |"
        if r["status"] != "ok":
            out.append(f"{head} {r['status']} |" + " |" * (n_cells - 1))
            continue
        found = cells(r, lambda method, r=r: by.get((at(r), method), {}))
        out.append(f"{head} " + " | ".join(found) + " |")
    return out


def time_ratio(row: dict, ref: dict, fmt: str = "{:.2f}") -> str:
    """``row``'s fit time over ``ref``'s, formatted, or "" when ``ref`` did not run."""
    return fmt.format(row["time"] / ref["time"]) if ref.get("status") == "ok" else ""


def pyplot():
    """matplotlib.pyplot without a display, or None (and a printed reason) without
    matplotlib: the tables are the results, the plots only show them."""
    try:
        import matplotlib
    except ImportError:
        skip("the plots", "matplotlib is not installed")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path, dpi: int = 110) -> None:
    """Lay out, write and close a matplotlib figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    written(path)


def plot_panels(
    rows,
    path,
    panel,
    panels,
    title,
    *,
    label=lambda method, pts: method,
    ys=(("time", "fit time (s)", "loglog"),),
    xlabel="unlabeled points",
    method_key="method",
    decorate=None,
    x="n",
):
    """One column of panels per value of ``panel(row)`` (a key or a function of the row), one
    row of panels per ``ys`` entry (row key, axis label, "loglog", "semilogx" or "plot"), a
    line per method against ``row[x]``; only rows with status "ok", and in each panel row only
    the rows that have its key. ``decorate(ax, panel)`` may add to each panel of the first
    row. Nothing without matplotlib (see :func:`pyplot`)."""
    plt = pyplot()
    if plt is None:
        return
    key = panel if callable(panel) else (lambda r: r[panel])
    fig, axes = plt.subplots(
        len(ys), len(panels), figsize=(5.5 * len(panels), 4.2 * len(ys)), squeeze=False
    )
    methods = sorted({r[method_key] for r in rows if r["status"] == "ok"})  # a colour each
    for col, value in enumerate(panels):
        mine = [r for r in rows if key(r) == value and r["status"] == "ok"]
        for method in sorted({r[method_key] for r in mine}):
            for row, (y, _, scale) in enumerate(ys):
                xy = [(r[x], r[y]) for r in mine if r[method_key] == method and y in r]
                if xy:
                    draw = getattr(axes[row, col], scale)
                    colour = f"C{methods.index(method) % 10}"
                    draw(*zip(*xy, strict=True), "o-", color=colour, label=label(method, xy))
        axes[0, col].set_title(title(value))
        for row, (_, ylabel, _) in enumerate(ys):
            ax = axes[row, col]
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=8)
        if decorate is not None:
            decorate(axes[0, col], value)
    save_figure(fig, path)


# ---------------------------------------------------------------------- clustering
def matched_accuracy(pred, truth) -> float:
    """Accuracy of cluster labels under the best one-to-one matching of clusters to classes
    (Hungarian)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    pred = np.unique(pred, return_inverse=True)[1]
    truth = np.unique(truth, return_inverse=True)[1]
    table = np.zeros((pred.max() + 1, truth.max() + 1))
    np.add.at(table, (pred, truth), 1)
    rows, cols = linear_sum_assignment(-table)
    return float(table[rows, cols].sum() / truth.size)
