"""A driver's turn, bracketed: ``TurnStarted`` on entry, ``TurnFinished`` on every exit, with
what the turn reports (``TurnTally``) filled in as it runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from harness.agent.announce import Announcer
from harness.agent.routes import Route
from harness.events import TurnOutcome


@dataclass(slots=True)
class TurnTally:
    """What a turn's ``TurnFinished`` reports; the driver fills it in as the turn runs."""

    outcome: TurnOutcome = TurnOutcome.OK
    iterations: int = 0
    error_type: str | None = None


@asynccontextmanager
async def announced_turn(
    announcer: Announcer,
    agent_name: str,
    route: Route,
    model: str | None,
    text: str,
    *,
    provider_kind: str | None = None,
) -> AsyncIterator[TurnTally]:
    """``TurnStarted`` on entry, ``TurnFinished`` on every exit (success, error, cancel):
    every driver's turn is bracketed the same way, so spans and turn counts see them all.
    ``provider_kind``: the route's client kind (``LoopConfig.provider_kind``)."""
    announcer.turn_started(agent_name, route, model, text, provider_kind)
    tally = TurnTally()
    try:
        yield tally
    except asyncio.CancelledError:
        tally.outcome, tally.error_type = TurnOutcome.CANCELLED, "CancelledError"
        raise
    except Exception as exc:
        tally.outcome, tally.error_type = TurnOutcome.ERROR, type(exc).__name__
        raise
    finally:
        announcer.sent.settle()  # the turn's requests as keys: an idle session holds no rows
        announcer.turn_finished(tally.outcome, tally.iterations, tally.error_type)
