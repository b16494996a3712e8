"""Cross-references inside a scenario, checked after its parts validated: routes and
model switches name defined providers; each step suits the driver. Every problem keeps
its own location, so the loader can report it at its line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.scenarios.vocabulary import Loc

if TYPE_CHECKING:
    from harness.scenarios.schema import ConversationStep, RouteSpec, RoutesSpec


def driver_problems(driver: str, step: ConversationStep, loc: Loc) -> list[tuple[Loc, str]]:
    """Only the structured Agent can switch, seed or clear; only a channel has senders."""
    problems: list[tuple[Loc, str]] = []
    if driver != "agent":
        for key in ("switch_model", "seed", "clear_history"):
            if getattr(step, key) is not None:
                problems.append(
                    ((*loc, key), f"expected a user step (driver {driver}), found {key}")
                )
    if step.sender is not None and driver != "channel":
        problems.append(
            ((*loc, "sender"), f"expected no sender with driver {driver}, found {step.sender!r}")
        )
    return problems


def named_routes(routes: RoutesSpec | None) -> list[tuple[Loc, RouteSpec]]:
    if routes is None:
        return []
    named: list[tuple[Loc, RouteSpec]] = [(("routes", "default"), routes.default)]
    named += [(("routes", "model_routes", n), r) for n, r in routes.model_routes.items()]
    if routes.vision is not None:
        named.append((("routes", "vision"), routes.vision))
    return named


def all_steps(steps: list[ConversationStep], loc: Loc) -> list[tuple[Loc, ConversationStep]]:
    """Every step with its location, those inside ``repeat`` included."""
    found: list[tuple[Loc, ConversationStep]] = []
    for index, step in enumerate(steps):
        found.append(((*loc, index), step))
        if step.repeat is not None:
            found += all_steps(step.repeat.steps, (*loc, index, "repeat", "steps"))
    return found
