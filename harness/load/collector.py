"""The garbage collector while a load run's sessions run.

Each provider call allocates and drops many small containers (request dicts, rows,
events, httpx's own objects). CPython starts a young-generation collection every
``gc.get_threshold()[0]`` (700) net new containers, and a full one walks every object the
process holds, including all it held before the run. During a run the collector's first
threshold is raised to ``RUN_GC_THRESHOLD`` and what existed before is frozen
(``gc.freeze``) so collections walk only what the run made; both are restored when the
outermost run ends. Measured on the built-in load workload (``gc.callbacks``, one run of
1,980 calls): the collector's time per call fell from 0.053 to 0.027 ms, about 2% of the
harness's CPU per call; the one full collection of a run (~35 ms) is gone. Cycles are
still collected (docs/decisions.md, "Load-harness overhead per call").
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

RUN_GC_THRESHOLD: Final = 5_000
"""Net new containers between young collections during a run (CPython's default: 700)."""

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None


@contextmanager
def run_collector() -> Iterator[None]:
    """Collector settings for a run; nested or concurrent runs share the outermost one's."""
    global _depth, _saved  # noqa: PLW0603 - process-wide like the collector itself
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(max(RUN_GC_THRESHOLD, _saved[0]), *_saved[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                gc.unfreeze()
                _saved = None
