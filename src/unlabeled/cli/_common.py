"""What the command's modules share: the exit statuses, the one-line error, progress display."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

FORMATS = ("csv", "svmlight", "npz")
EXIT_USAGE = 2
EXIT_FAILURE = 1


class CLIError(Exception):
    """A failure to report as one line on stderr; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = EXIT_FAILURE):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------- progress
class Progress:
    """Progress on stderr for long steps (a tqdm spinner with the elapsed time), and notes;
    both silenced by ``--quiet``."""

    def __init__(self, quiet: bool):
        self.quiet = bool(quiet)

    def note(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    @contextmanager
    def step(self, desc: str):
        if self.quiet:
            yield
            return
        tqdm = None
        if sys.stderr.isatty():
            try:
                from tqdm import tqdm  # type: ignore[no-redef]
            except ImportError:  # a core dependency; without it, plain lines
                pass
        if tqdm is None:  # a log file or a pipe: one line per finished step, no spinner
            t0 = time.perf_counter()
            yield
            self.note(f"{desc} [{time.perf_counter() - t0:.1f}s]")
            return
        bar = tqdm(total=None, desc=desc, bar_format="{desc} [{elapsed}]", file=sys.stderr)
        stop = threading.Event()

        def tick():  # the engine releases the GIL while it solves, so this keeps ticking
            while not stop.wait(0.25):
                bar.refresh()

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        ok = False
        try:
            yield
            ok = True
        finally:
            stop.set()
            ticker.join()
            bar.leave = ok  # a failed step leaves only the error line
            bar.close()


def one_line(text, limit: int = 400) -> str:
    """A message on one line, cut to ``limit`` characters (some parsers quote whole lines)."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
