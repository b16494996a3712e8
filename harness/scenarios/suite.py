"""Run a list of loaded scenarios, one after another, and collect their outcomes.

Each scenario gets its own transcript file when a transcript folder is given; shared
observers (spans, metrics) see every scenario. A scenario that crashes is reported as an
error and the suite goes on: nothing already recorded is lost. A scenario still running
after its wall-clock timeout is cancelled and reported as ``TIMEOUT``; the suite goes on.
The timeout acts at the scenario's next await (a hang, a scripted latency, any provider
call); the loader's limits are what bound the work between two awaits.
"""

from __future__ import annotations

import asyncio
import re
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.events import Observer
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
        timed_out,
    )


def run_suite(
    loaded: Sequence[LoadedScenario],
    *,
    observers: Sequence[Observer] = (),
    transcript_dir: Path | None = None,
    progress: Progress | None = None,
    timeout_s: float | None = DEFAULT_SCENARIO_TIMEOUT_S,
) -> list[Outcome]:
    """``timeout_s``: each scenario's wall-clock bound (``None``: no bound)."""

    async def main() -> list[Outcome]:
        outcomes = []
        for item in loaded:
            outcome = await run_one(item, observers, transcript_dir, timeout_s)
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
        return outcomes

    return asyncio.run(main())
