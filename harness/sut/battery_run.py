"""The portable battery run one scenario at a time, as ``pytest --trimscope-sut "CMD"``
runs it (``harness.pytest_plugin``, ``docs/sut-protocol.md``, "In pytest").

The runtime process is started at the first scenario and serves every one after it
(started again after a fault, as in ``trimscope run --sut``): a loop of its own, in a
thread, keeps the process, the fake host and their transports alive between scenarios,
which the caller asks for one at a time from its own thread. ``close`` leaves nothing
behind (``bye``, then the process group stopped and reaped, the fake host stopped).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from harness.scenarios.loader import LoadedScenario, load_all
from harness.sut.portable import not_portable
from harness.sut.settings import DEFAULT_OP_TIMEOUT_S
from harness.sut.suite import SutOutcome, SutSuite
from harness.sut.worker import Worker

THREAD_NAME: Final = "trimscope-sut"
CLOSE_TIMEOUT_S: Final = 30.0
"""Bounds the end: the runtime's ``bye`` grace, then its process group's signals."""


def portable_battery(paths: Sequence[Path]) -> list[LoadedScenario]:
    """The portable scenarios under ``paths`` (``ScenarioError`` when a file is invalid)."""
    return [item for item in load_all(paths) if not_portable(item.scenario) is None]


class BatteryRun:
    """One runtime under test for a whole session of scenarios, on a loop of its own."""

    def __init__(self, argv: list[str], scenario_timeout_s: float) -> None:
        self.suite = SutSuite(argv, scenario_timeout_s=scenario_timeout_s, references=None)
        self._worker = Worker(argv, DEFAULT_OP_TIMEOUT_S)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._keys = itertools.count()

    def _started(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=loop.run_forever, name=THREAD_NAME, daemon=True)
            self._thread.start()
            self._loop = loop
            asyncio.run_coroutine_threadsafe(self.suite.host.start(), loop).result()
        return self._loop

    def run(self, item: LoadedScenario) -> SutOutcome:
        """The scenario's verdict (bounded by the suite's scenario timeout)."""
        coroutine = self.suite.run_one(item, next(self._keys), self._worker)
        return asyncio.run_coroutine_threadsafe(coroutine, self._started()).result()

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None:
            return

        async def stop() -> None:
            try:
                await self._worker.close()
            finally:
                await self.suite.host.stop()

        try:
            asyncio.run_coroutine_threadsafe(stop(), loop).result(CLOSE_TIMEOUT_S)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(CLOSE_TIMEOUT_S)
            loop.close()


def failure_text(outcome: SutOutcome, loaded: LoadedScenario) -> str:
    """What a failed scenario shows: each violated invariant, or the fault."""
    where = f"scenario {outcome.scenario_id} ({loaded.path}:{loaded.id_line})"
    if outcome.verdict != "FAIL":
        return f"{where}: {outcome.verdict}: {outcome.detail}"
    lines = [f"{where}: {len(outcome.violations)} invariant violation(s)"]
    lines += [
        f"  {v.invariant}" + (f" (call {v.call})" if v.call else "") + f": {v.detail}"
        for v in outcome.violations
    ]
    return "\n".join(lines)
