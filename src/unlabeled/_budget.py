"""The dense-memory budget: an allocation the library makes in one piece (a Gram matrix, a
batch's kernel) is refused, before it is made, over the budget (``set_config``) or over the
memory this process may still allocate."""

from __future__ import annotations

from ._config import dense_budget
from .exceptions import MemoryBudgetError


def _available_bytes() -> float:
    """The memory this process may still allocate: the smallest of the memory the OS reports
    available, the room left under an address-space limit (``ulimit -v``: there a native
    allocation that fails aborts the process, Clarabel's included) and the room left in a
    cgroup v2 memory limit (a container's); inf when none is known."""
    limits = [float("inf")]
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    limits.append(float(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limits.append(float(soft) - _status_bytes("VmSize:"))
    except (ImportError, OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            cap = fh.read().strip()
        if cap != "max":
            with open("/sys/fs/cgroup/memory.current") as fh:
                limits.append(float(cap) - float(fh.read()))
    except (OSError, ValueError):
        pass
    return max(0.0, min(limits))


def _status_bytes(key: str) -> float:
    """A size from /proc/self/status (``VmSize:``, in kB there); 0 when unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key):
                    return float(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def check_dense_budget(n_bytes: float, what: str, fix: str, budget: float | None = None) -> None:
    """Refuse an allocation of ``n_bytes`` over :func:`dense_budget` or the memory available.

    ``what`` says what would be allocated (``"RampPU(inner_solver='qp') builds a 5000 x 5000
    Gram matrix"``), ``fix`` what to do instead; both go into the :class:`MemoryBudgetError`.
    ``budget`` replaces :func:`dense_budget` for a method with its own (``inf``: the memory
    available only)."""
    budget, avail = dense_budget() if budget is None else budget, _available_bytes()
    if n_bytes <= budget and n_bytes <= avail:
        return
    limit = (
        f"over the budget of {budget / 2**30:.3g} GB (unlabeled.set_config(max_dense_bytes=...) "
        "or UNLABELED_MAX_DENSE_BYTES)"
        if n_bytes > budget
        else f"over the {avail / 2**30:.3g} GB of memory available"
    )
    raise MemoryBudgetError(f"{what}: about {n_bytes / 2**30:.3g} GB, {limit}; {fix}")
