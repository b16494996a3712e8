"""Rejecting what the real APIs reject, with their error bodies (``fakes.catalogue.rejections``
holds the rules' facts and sources).

Checked before anything else of a generation request (the APIs validate a request before
they look at its size): OpenAI Responses and Chat Completions number ranges, a Responses
``reasoning`` item sent without the item that followed it, Chat Completions
``web_search_options`` on a model that does not search, Anthropic's ``temperature`` range.
A number of the wrong type is left to the wire's own decoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakes.catalogue.model import WireName
from fakes.catalogue.rejections import (
    ANTHROPIC_TEMPERATURE,
    ANTHROPIC_TEMPERATURE_RANGE,
    CHAT_BOUNDS,
    OPENAI_ABOVE,
    OPENAI_BELOW,
    REASONING_WITHOUT_FOLLOWER,
    RESPONSES_BOUNDS,
    WEB_SEARCH_UNSUPPORTED,
    Bound,
    Rejection,
)
from fakes.rows import JSONValue
from fakes.wire.anthropic_shape import anthropic_error
from fakes.wire.base import WireError

OPENAI_CHAT_PROVIDERS = frozenset({"openai", "azure"})
SEARCH_MODEL_MARK = "search"
"""OpenAI's models that take ``web_search_options`` are its search models
(``gpt-4o-search-preview``, ``gpt-4o-mini-search-preview``): named so."""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _openai_body(rule: Rejection, **fields: str) -> JSONValue:
    return {
        "error": {
            "message": rule.message.format(**fields),
            "type": rule.type,
            "param": None if rule.param is None else rule.param.format(**fields),
            "code": None if rule.code is None else rule.code.format(**fields),
        }
    }


def _out_of_bound(body: Mapping[str, Any], bound: Bound) -> WireError | None:
    value = body.get(bound.param)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if bound.low is not None and value < bound.low:
        rule, limit = OPENAI_BELOW, bound.low
    elif bound.high is not None and value > bound.high:
        rule, limit = OPENAI_ABOVE, bound.high
    else:
        return None
    kind = "integer" if bound.integer else "decimal"
    fields = {"param": bound.param, "kind": kind, "bound": _number(limit)}
    answer = _openai_body(rule, value=_number(value), **fields)
    return WireError(rule.status, answer, detail=f"{bound.param} out of range")


def _is_output(item: Any) -> bool:
    """An item the API gave: a call or other output item, or an assistant message that
    still carries its ``id`` (the record's refused history had dropped it)."""
    if not isinstance(item, dict) or item.get("type") in ("reasoning", "function_call_output"):
        return False
    if item.get("type", "message") != "message":
        return True
    return item.get("role") == "assistant" and isinstance(item.get("id"), str)


def _reasoning_follower(body: Mapping[str, Any]) -> WireError | None:
    """A ``reasoning`` item must come with the output item the API gave after it."""
    items = body.get("input")
    if not isinstance(items, list):
        return None
    for n, item in enumerate(items):
        if not isinstance(item, dict) or item.get("type") != "reasoning":
            continue
        if _is_output(items[n + 1] if n + 1 < len(items) else None):
            continue
        rule = REASONING_WITHOUT_FOLLOWER
        fields = {"id": str(item.get("id", ""))}
        return WireError(rule.status, _openai_body(rule, **fields), detail="reasoning pairing")
    return None


def _web_search(body: Mapping[str, Any], model: str) -> WireError | None:
    if body.get("web_search_options") is None or SEARCH_MODEL_MARK in model:
        return None
    rule = WEB_SEARCH_UNSUPPORTED
    return WireError(rule.status, _openai_body(rule), detail="web_search_options")


def _anthropic_temperature(body: Mapping[str, Any]) -> WireError | None:
    bound, rule = ANTHROPIC_TEMPERATURE, ANTHROPIC_TEMPERATURE_RANGE
    value = body.get(bound.param)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if (bound.low is None or value >= bound.low) and (bound.high is None or value <= bound.high):
        return None
    answer = anthropic_error(rule.type, rule.message)
    return WireError(rule.status, answer, detail="temperature out of range")


def _first(*found: WireError | None) -> WireError | None:
    return next((error for error in found if error is not None), None)


def rejection(provider: str, wire: WireName, body: Any, model: str) -> WireError | None:
    """The real API's rejection of ``body`` (sent to ``provider`` for ``model``), or
    ``None``. Chat Completions' rules are OpenAI's and Azure's only: compatible servers
    bound their numbers differently."""
    if not isinstance(body, dict):
        return None
    if wire == "openai_responses":
        bounds = (_out_of_bound(body, b) for b in RESPONSES_BOUNDS)
        return _first(*bounds, _reasoning_follower(body))
    if wire == "openai_chat" and provider in OPENAI_CHAT_PROVIDERS:
        return _first(*(_out_of_bound(body, b) for b in CHAT_BOUNDS), _web_search(body, model))
    if wire == "anthropic":
        return _anthropic_temperature(body)
    return None


def check_request(provider: str, wire: WireName, body: Any, path_model: str | None) -> None:
    """Raise the real API's ``WireError`` for ``body``; the model is the path's (Gemini,
    Bedrock) or the body's."""
    named = body.get("model") if isinstance(body, dict) else None
    model = path_model or (named if isinstance(named, str) else "")
    refused = rejection(provider, wire, body, model)
    if refused is not None:
        raise refused
