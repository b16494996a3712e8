"""Run a list of loaded scenarios, one after another, and collect their outcomes.

Each scenario gets its own transcript file when a transcript folder is given; shared
observers (spans, metrics) see every scenario. A scenario that crashes is reported as an
error and the suite goes on: nothing already recorded is lost. A scenario still running
after its wall-clock timeout is cancelled and reported as ``TIMEOUT``; the suite goes on.
The timeout acts at the scenario's next await (a hang, a scripted latency, any provider
call); the loader's limits are what bound the work between two awaits.

With a ``StopRequest`` (``trimscope run`` passes one routed from SIGINT and SIGTERM), a stop
cancels the scenario in flight: its transcript ends with an ``interrupted`` line, its
outcome says ``INTERRUPTED``, and no later scenario starts. The outcomes of the scenarios
that finished are returned as they were.
"""

from __future__ import annotations

import asyncio
import re
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.events import Observer
from harness.interrupt import StopRequest
from harness.scenarios.expect import check
from harness.scenarios.loader import LoadedScenario
from harness.scenarios.report import Outcome
from harness.scenarios.runner import run_scenario
from harness.telemetry.transcript import TranscriptWriter

Progress = Callable[[Outcome], None]
# Far above the slowest library scenario (a few seconds on a busy 2-core machine), far below
# a scripted hang's limit: a stuck scenario fails within minutes, never holds the suite.
DEFAULT_SCENARIO_TIMEOUT_S = 120.0


def select(loaded: Sequence[LoadedScenario], pattern: str | None) -> list[LoadedScenario]:
    """``-k``: keep scenarios whose id, title or tags match the regular expression."""
    if not pattern:
        return list(loaded)
    regex = re.compile(pattern)
    return [
        item
        for item in loaded
        if regex.search(item.scenario.id)
        or regex.search(item.scenario.title)
        or any(regex.search(tag) for tag in item.scenario.tags)
    ]


async def run_one(
    item: LoadedScenario,
    observers: Sequence[Observer],
    transcript_dir: Path | None,
    timeout_s: float | None = DEFAULT_SCENARIO_TIMEOUT_S,
    stop: StopRequest | None = None,
) -> Outcome:
    extra: list[Observer] = list(observers)
    writer = None
    if transcript_dir is not None:
        target = transcript_dir / f"{item.scenario.id}.jsonl"
        target.unlink(missing_ok=True)
        writer = TranscriptWriter(target)
        extra.append(writer)
    started = time.perf_counter()
    timed_out, deadline = None, asyncio.timeout(timeout_s)
    interrupted: str | None = None
    try:
        async with deadline:
            run = await run_scenario(item.scenario, extra)
        failures = tuple(check(run))
        crashed = None
    except TimeoutError:
        run, failures, crashed = None, (), None
        if deadline.expired():
            timed_out = timeout_s
        else:  # a TimeoutError of the scenario's own is a crash like any other
            crashed = traceback.format_exc()
    except Exception:
        run, failures, crashed = None, (), traceback.format_exc()
    except asyncio.CancelledError:
        if stop is None or stop.name is None:
            raise  # not ours: whoever cancelled the suite handles it
        run, failures, crashed, interrupted = None, (), None, stop.name
        if writer is not None:
            writer.mark_interrupted(interrupted)
    finally:
        if writer is not None:
            writer.close()
    duration = time.perf_counter() - started
    return Outcome(
        item.path,
        item.scenario.id,
        item.scenario.title,
        run,
        failures,
        duration,
        crashed,
        timed_out_s=timed_out,
        interrupted=interrupted,
    )


def run_suite(
    loaded: Sequence[LoadedScenario],
    *,
    observers: Sequence[Observer] = (),
    transcript_dir: Path | None = None,
    progress: Progress | None = None,
    timeout_s: float | None = DEFAULT_SCENARIO_TIMEOUT_S,
    stop: StopRequest | None = None,
) -> list[Outcome]:
    """Every scenario in order, or those before a stop and the one it interrupted.
    ``timeout_s``: each scenario's wall-clock bound (``None``: no bound)."""
    stop = stop or StopRequest()

    async def main() -> list[Outcome]:
        loop = asyncio.get_running_loop()
        outcomes: list[Outcome] = []
        for item in loaded:
            if stop.requested:
                break
            # Each scenario is a task of its own, so a stop cancels that scenario and not
            # the suite, which still collects what finished.
            current = asyncio.create_task(run_one(item, observers, transcript_dir, timeout_s, stop))
            with stop.on_request(_canceller(loop, current)):
                outcome = await _settled(current, item, stop)
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
        return outcomes

    return asyncio.run(main())


def _canceller(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Outcome]) -> Callable[[], None]:
    """Cancel ``task`` from a signal handler: through the loop's self-pipe, thread-safe."""

    def cancel() -> None:
        loop.call_soon_threadsafe(task.cancel)

    return cancel


async def _settled(
    current: asyncio.Task[Outcome], item: LoadedScenario, stop: StopRequest
) -> Outcome:
    """The scenario's outcome; an interrupted one when the stop cancelled the task before
    its first step (``run_one`` never ran to catch it)."""
    try:
        return await current
    except asyncio.CancelledError:
        if stop.name is None or not current.cancelled():
            raise
        scenario = item.scenario
        return Outcome(
            item.path, scenario.id, scenario.title, None, (), 0.0, None, interrupted=stop.name
        )
