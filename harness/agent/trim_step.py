"""The one place a trim is applied and announced (habit 2).

Every trim of a history, whatever its trigger, goes through ``apply_chat_trim`` (the
tool loop's budget trims and the legacy outer recovery) or ``apply_conversation_trim``
(the Agent's turn limit): each inserts the breadcrumb and emits exactly one
``HistoryTrimmed`` with the full accounting. (The reference copied this step to three call
sites and they drifted.)
"""

from __future__ import annotations

from harness.agent.announce import Announcer
from harness.agent.routes import Route
from harness.events import TrimTrigger
from harness.runtime import (
    ChatMessage,
    ConversationMessage,
    TrimResult,
    TurnCountTrimResult,
    insert_breadcrumb_deduped,
    insert_conversation_breadcrumb,
)


def apply_chat_trim(
    announcer: Announcer | None,
    result: TrimResult,
    crumb_present: bool,
    *,
    trigger: TrimTrigger,
    budget_tokens: int,
    route: Route | None,
    model: str | None,
) -> list[ChatMessage]:
    """Insert the breadcrumb (deduplicated by the owner flag) and announce the trim.

    Call only when ``result.trimmed``; the owner sets its flag to ``True`` afterwards.
    ``announcer=None`` is the legacy interactive path: breadcrumb, but logs only.
    """
    rows = insert_breadcrumb_deduped(result.history, crumb_present)
    if announcer is not None:
        announcer.history_trimmed(
            result,
            trigger=trigger,
            budget_tokens=budget_tokens,
            route=route,
            model=model,
            full_context=False,
            cache_loss=announcer.sent.loss(route.provider, rows) if route else None,
        )
    return rows


def apply_conversation_trim(
    announcer: Announcer, result: TurnCountTrimResult[ConversationMessage]
) -> list[ConversationMessage]:
    """The Agent's turn-limit trim: re-insert exactly one breadcrumb and announce it."""
    rows = insert_conversation_breadcrumb(result.history)
    announcer.history_trimmed(
        result,
        trigger=TrimTrigger.TURN_LIMIT,
        budget_tokens=None,
        route=None,
        model=None,
        full_context=True,
    )
    return rows
