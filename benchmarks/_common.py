"""What the benchmark scripts share: one fit per subprocess (so that no method's memory hides
another's, and a time limit can stop it), peak-memory readings and the machine's description."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


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


def plot_loglog(rows, path, panel_key, panels, title, label=lambda method, pts: method):
    """One log-log panel of fit time against n per value of row[panel_key], a line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        for method in sorted({r["method"] for r in rows if r[panel_key] == panel}):
            pts = [
                (r["n"], r["time"])
                for r in rows
                if (r[panel_key], r["method"]) == (panel, method) and r["status"] == "ok"
            ]
            if pts:
                ax.loglog(*zip(*pts, strict=True), "o-", label=label(method, pts))
        ax.set_title(title(panel))
        ax.set_xlabel("unlabeled points")
        ax.set_ylabel("fit time (s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


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


def report_child(**values) -> None:
    """The child's answer to run_child."""
    print(json.dumps(values))


def machine() -> str:
    """One line: date, cores, CPU, memory and the versions that matter."""
    import numpy as np
    import sklearn

    import unlabeled

    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    mem_kb = int(Path("/proc/meminfo").read_text().splitlines()[0].split()[1])
    return (
        f"Date: {datetime.date.today()}. Machine: {os.cpu_count()} cores, {cpu}, "
        f"{mem_kb / 2**20:.0f} GB. unlabeled {unlabeled.__version__}, scikit-learn "
        f"{sklearn.__version__}, numpy {np.__version__}."
    )
