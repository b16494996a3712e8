"""Run a list of loaded scenarios, one after another, and collect their outcomes.

Each scenario gets its own transcript file when a transcript folder is given; shared
observers (spans, metrics) see every scenario. A scenario that crashes is reported as an
error and the suite goes on: nothing already recorded is lost.
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
    item: LoadedScenario, observers: Sequence[Observer], transcript_dir: Path | None
) -> Outcome:
    extra: list[Observer] = list(observers)
    writer = None
    if transcript_dir is not None:
        target = transcript_dir / f"{item.scenario.id}.jsonl"
        target.unlink(missing_ok=True)
        writer = TranscriptWriter(target)
        extra.append(writer)
    started = time.perf_counter()
    try:
        run = await run_scenario(item.scenario, extra)
        failures = tuple(check(run))
        crashed = None
    except Exception:
        run, failures, crashed = None, (), traceback.format_exc()
    finally:
        if writer is not None:
            writer.close()
    duration = time.perf_counter() - started
    return Outcome(
        item.path, item.scenario.id, item.scenario.title, run, failures, duration, crashed
    )


def run_suite(
    loaded: Sequence[LoadedScenario],
    *,
    observers: Sequence[Observer] = (),
    transcript_dir: Path | None = None,
    progress: Progress | None = None,
) -> list[Outcome]:
    async def main() -> list[Outcome]:
        outcomes = []
        for item in loaded:
            outcome = await run_one(item, observers, transcript_dir)
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
        return outcomes

    return asyncio.run(main())
