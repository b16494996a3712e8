"""The ``reasoning`` output item of OpenAI Responses, for a request that reasons.

Reasoning is on when a request asks for it (``reasoning.effort`` sent, other than
``"none"``) or its model always reasons (``REASONING_MODELS``); an answer to the user's
message (not to tool results, ``reasoning_option``) then opens with a
``reasoning`` item, plain and streamed, as gpt-5 answered (charmbracelet/fantasy
``providertests/testdata/TestOpenAIResponsesCommon/openai-gpt-5/multi_tool_streaming.yaml``
at f6d4d1e, the first interaction): ``{"id": "rs_...", "type": "reasoning", "content": [],
"summary": []}`` at ``output_index`` 0, streamed as one ``response.output_item.added`` and
one ``response.output_item.done`` carrying the same item, before the other items (whose
indexes follow it). The fake thinks nothing, so the item stays empty (no ``summary`` text,
no ``encrypted_content``) and ``reasoning_tokens`` stays 0. A gpt-5 request's echoed
``reasoning`` gets the model's defaults, ``{"context": "current_turn", "effort": "medium",
"summary": null}`` (same record, both interactions), for what was not sent; another
model's stays null where not sent (no record shows its defaults).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fakes.rows import JSONValue
from fakes.wire.base import ReplyPlan

REASONING_OPTION: Final = "reasoning"
REASONING_MODELS: Final = ("gpt-5",)
"""Model names (prefixes, lower case) that reason unasked (the record above; the
o-series reason too, but no record here shows their defaults: send ``reasoning``)."""
REASONING_DEFAULTS: Final[Mapping[str, JSONValue]] = {
    "context": "current_turn",
    "effort": "medium",
    "summary": None,
}
NO_REASONING: Final = "none"


def reasoning_model(model: str) -> bool:
    """A model that reasons unasked (its echoed ``reasoning`` has ``REASONING_DEFAULTS``)."""
    return model.lower().rsplit("/", 1)[-1].startswith(REASONING_MODELS)


def reasoning_on(body: Mapping[str, Any], model: str) -> bool:
    """Whether reasoning is on for a Responses request: ``reasoning.effort`` if sent, else
    its model (what the echoed ``reasoning`` reports)."""
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    if isinstance(effort, str):
        return effort != NO_REASONING
    return reasoning_model(model)


def _answers_the_user(body: Mapping[str, Any]) -> bool:
    raw = body.get("input")
    if isinstance(raw, str):
        return True
    last = raw[-1] if isinstance(raw, list) and raw else None
    return isinstance(last, dict) and last.get("type", "message") == "message"


def reasoning_option(body: Mapping[str, Any], model: str) -> dict[str, object]:
    """The item is given on turns answering the user's message: both recorded answers to
    one have it, and gpt-5's answer to its tool results (``multi_tool_streaming.yaml``'s
    second interaction) has none (``reasoning_tokens`` 0), as Gemini's recorded
    function-response turns report no thoughts."""
    reasons = reasoning_on(body, model) and _answers_the_user(body)
    return {REASONING_OPTION: True} if reasons else {}


def reasoning_item(plan: ReplyPlan) -> dict[str, JSONValue]:
    return {"id": f"rs_{plan.response_id[5:]}", "type": "reasoning", "content": [], "summary": []}


def reasoning_events(plan: ReplyPlan) -> list[tuple[str, dict[str, JSONValue]]]:
    """The item's two stream events (none when the request does not reason)."""
    if plan.options.get(REASONING_OPTION) is not True:
        return []
    return [
        (kind, {"output_index": 0, "item": reasoning_item(plan)})
        for kind in ("response.output_item.added", "response.output_item.done")
    ]
