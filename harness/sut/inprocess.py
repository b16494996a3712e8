"""The in-process reference on the same scenario: the rows of each request its fake got.

A protocol run compares the runtime's requests with these, one by one (how many are
identical is reported beside the verdicts; for ``trimscope sut reference`` all are).
"""

from __future__ import annotations

import contextlib

from fakes.rows import Row
from harness.agent import DEFAULT_SENDER, open_session
from harness.scenarios.environment import build_environment
from harness.scenarios.schema import Scenario
from harness.sut.drive import user_texts


async def reference_requests(scenario: Scenario) -> list[tuple[Row, ...]]:
    """Every generation request of the scenario's single fake, in order, as its rows."""
    env = build_environment(scenario)
    driver = open_session(env.session_spec())
    try:
        for text in user_texts(scenario.conversation):
            # A failed turn is part of the scenario, as in `run`: the next one still runs.
            with contextlib.suppress(Exception):
                await driver.send(text, sender=DEFAULT_SENDER)
    finally:
        await env.aclose()
    fake = next(iter(env.fakes.values()))
    return [exchange.rows for exchange in fake.log.calls()]
