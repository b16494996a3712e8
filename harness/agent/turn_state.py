"""What one turn of the tool loop carries from step to step.

Kept by the driver that runs the turn (not by the loop), so its error paths still see the
working history and the rows the turn recorded."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.runtime import ChatMessage, ConversationMessage, ResolvedContextLimits


@dataclass(slots=True)
class TurnState:
    """The working history of one turn and what the turn recorded."""

    working: list[ChatMessage]
    crumb_present: bool
    recorded: list[ConversationMessage] = field(default_factory=list)
    iterations: int = 0
    last_trim_key: tuple[str, str | None, int] | None = None
    final_text: str | None = None
    hit_iteration_limit: bool = False
    final_limits: ResolvedContextLimits | None = None
    """The limits of the route that served the turn's last successful call (``None``
    until one is served): the gateway's ``done`` frame reports these (spec 7)."""
