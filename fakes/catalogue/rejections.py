"""Requests the real APIs reject, as data: each rule's status and error body, with the
record or public thread it was copied from (``source``) and what of it is inferred.

The fakes never read the records themselves: the facts a rule needs (status, ``type``,
``code``, ``param``, the message's wording) are copied here. ``fakes.serving.request_checks``
applies the rules.

OpenAI's range messages share one form for every bounded number
(``Invalid '<param>': decimal below minimum value. Expected a value >= <min>, but got <v>
instead.``, ``integer`` for integers, ``above maximum`` / ``<=`` for the other end, with
``code`` ``decimal_below_min_value`` & co.): the form is quoted for ``max_output_tokens``
on Responses (wm94i/Work-Review#41: ``Invalid 'max_output_tokens': integer below minimum
value. Expected a value >=16, but got 5 instead.``, through a relay that dropped ``code``
and ``param``); the ranges are the API reference's (openai-python
``src/openai/types/responses/response_create_params.py``: ``temperature`` "between 0 and
2", ``top_p``, ``top_logprobs`` "between 0 and 20").
"""

from __future__ import annotations

from dataclasses import dataclass

from fakes.catalogue.model import WireName


@dataclass(frozen=True, slots=True)
class Bound:
    """A number the API bounds: ``param`` must lie in ``[low, high]`` (``None``: open)."""

    param: str
    low: float | None
    high: float | None
    integer: bool = False


@dataclass(frozen=True, slots=True)
class Rejection:
    """One real rejection: its status and body fields; ``message`` is a ``str.format``
    template; ``inferred`` says which of its parts no source showed."""

    wire: WireName
    name: str
    status: int
    type: str
    code: str | None
    param: str | None
    message: str
    source: str
    inferred: str = ""


RESPONSES_MIN_OUTPUT_TOKENS = 16
RESPONSES_BOUNDS: tuple[Bound, ...] = (
    Bound("temperature", 0, 2),
    Bound("top_p", 0, 1),
    Bound("top_logprobs", 0, 20, integer=True),
    Bound("max_output_tokens", RESPONSES_MIN_OUTPUT_TOKENS, None, integer=True),
)
CHAT_BOUNDS: tuple[Bound, ...] = (
    Bound("temperature", 0, 2),
    Bound("top_p", 0, 1),
    Bound("frequency_penalty", -2, 2),
    Bound("presence_penalty", -2, 2),
    Bound("n", 1, None, integer=True),
)
ANTHROPIC_TEMPERATURE = Bound("temperature", 0, 1)

OPENAI_BELOW = Rejection(
    "openai_responses",
    "below_min",
    400,
    "invalid_request_error",
    "{kind}_below_min_value",
    "{param}",
    "Invalid '{param}': {kind} below minimum value. Expected a value >= {bound}, "
    "but got {value} instead.",
    "wm94i/Work-Review#41 (the message's form, for max_output_tokens on Responses)",
    inferred="code and param (the relay dropped them): named after the message",
)
OPENAI_ABOVE = Rejection(
    "openai_responses",
    "above_max",
    400,
    "invalid_request_error",
    "{kind}_above_max_value",
    "{param}",
    "Invalid '{param}': {kind} above maximum value. Expected a value <= {bound}, "
    "but got {value} instead.",
    "wm94i/Work-Review#41 (the form of the minimum's message)",
    inferred="the maximum's wording mirrors the minimum's; code and param as OPENAI_BELOW",
)
REASONING_WITHOUT_FOLLOWER = Rejection(
    "openai_responses",
    "reasoning_without_following_item",
    400,
    "invalid_request_error",
    None,
    "input",
    "Item '{id}' of type 'reasoning' was provided without its required following item.",
    "pydantic/pydantic-ai:tests/models/cassettes/test_openai_responses/"
    "test_openai_responses_thinking_with_modified_history.yaml at 4fda389 (interaction 1)",
    inferred=(
        "which items count as the required follower: the record shows an assistant "
        "message without its id refused; the fake accepts any output item the API gave "
        "(one with an id: a message, a function call...)"
    ),
)
WEB_SEARCH_UNSUPPORTED = Rejection(
    "openai_chat",
    "web_search_options_unsupported",
    400,
    "invalid_request_error",
    None,
    "web_search_options",
    "Web search options not supported with this model.",
    "pydantic/pydantic-ai:tests/models/cassettes/test_openai/"
    "test_openai_web_search_tool_model_not_supported.yaml at 4fda389 (gpt-4o)",
    inferred="which models support it: those named '*search*' (OpenAI's search models)",
)
ANTHROPIC_TEMPERATURE_RANGE = Rejection(
    "anthropic",
    "temperature_range",
    400,
    "invalid_request_error",
    None,
    None,
    "temperature: range: -1 or 0..1",
    "anthropics/anthropic-sdk-python#893 (the body for a temperature over 1; -1 was "
    "accepted then, and is refused with a 400 invalid_request_error since, per the "
    "maintainers' comment of 2026-08-05)",
    inferred="the wording for -1 and below 0 (the thread gives none): the same body",
)

REJECTIONS: tuple[Rejection, ...] = (
    OPENAI_BELOW,
    OPENAI_ABOVE,
    REASONING_WITHOUT_FOLLOWER,
    WEB_SEARCH_UNSUPPORTED,
    ANTHROPIC_TEMPERATURE_RANGE,
)
