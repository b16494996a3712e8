"""OpenAI Responses on the provider's side: ``truncation`` and compaction, simulated.

From the public SDK types (openai-python ``src/openai/types/responses/``:
``response_create_params.py``, ``response_compaction_item.py``, ``compacted_response.py``):

- ``truncation``: ``"disabled"`` (the default) fails a request over the window with a 400;
  ``"auto"`` drops items "from the beginning of the conversation" until it fits (the API
  reference, platform.openai.com/docs/api-reference/responses, ``truncation``; the same
  words in openai-python's ``response_create_params.py``). The fake drops the oldest item
  first, the first one too (a first item over the window alone is dropped, not refused),
  a call together with its output, and never the newest item; ``instructions`` are no
  item and stay. The response says nothing of what went (only usage shows it).
- ``context_management: [{"type": "compaction", "compact_threshold": N}]``: a request over
  ``N`` input tokens is compacted before it is answered; the output then starts with a
  ``compaction`` item (``id``, ``encrypted_content``), and the items before the newest
  user message are read as that summary. Streamed, the item is output item 0 of the event
  stream (``fakes.simulations.provider_side``).
- A ``compaction`` item sent back in ``input`` is read as its summary: the opaque content
  is the fake's own encoding (``fake-compaction:`` + base64 JSON), not OpenAI's. One
  OpenAI encrypted (a recorded session) is a 400, or, with the fake option
  ``foreign_history: opaque``, read as ``FOREIGN_SUMMARY`` (counted as that text).
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakes.rows import JSONValue
from fakes.wire.common import Invalid

TRUNCATIONS = ("auto", "disabled")
COMPACTION_PREFIX = "fake-compaction:"
COMPACTION_SUMMARY = "[summary of {items} earlier items]"
FOREIGN_SUMMARY = "[summary of earlier items, encrypted by the provider]"
MIN_COMPACT_THRESHOLD = 1

Counter = Callable[[dict[str, Any]], int]


@dataclass(frozen=True, slots=True)
class Truncated:
    items_dropped: int
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True, slots=True)
class Compacted:
    item_id: str
    summary: str
    items: int
    tokens_before: int
    tokens_after: int

    def item(self) -> JSONValue:
        return {"id": self.item_id, "type": "compaction", "encrypted_content": encode(self.summary)}


@dataclass(frozen=True, slots=True)
class Outcome:
    body: dict[str, Any]
    truncated: Truncated | None = None
    compacted: Compacted | None = None


def encode(summary: str) -> str:
    payload = json.dumps({"summary": summary}).encode("utf-8")
    return COMPACTION_PREFIX + base64.b64encode(payload).decode("ascii")


def decode_item(item: dict[str, Any], where: str, opaque: bool = False) -> str:
    """The summary an opaque compaction item carries. A foreign one (not the fake's
    encoding) is a 400 as OpenAI rejects content it did not encrypt, or, ``opaque``, read
    as ``FOREIGN_SUMMARY`` (the fake cannot read what OpenAI encrypted)."""
    content = item.get("encrypted_content")
    if opaque and isinstance(content, str) and not content.startswith(COMPACTION_PREFIX):
        return FOREIGN_SUMMARY
    if not isinstance(content, str) or not content.startswith(COMPACTION_PREFIX):
        raise Invalid(f"{where}.encrypted_content: invalid encrypted content")
    try:
        payload = json.loads(base64.b64decode(content[len(COMPACTION_PREFIX) :], validate=True))
    except (binascii.Error, ValueError) as error:
        raise Invalid(f"{where}.encrypted_content: invalid encrypted content") from error
    return str(payload.get("summary", "")) if isinstance(payload, dict) else ""


def _items(body: dict[str, Any]) -> list[Any] | None:
    raw = body.get("input")
    return raw if isinstance(raw, list) else None


def read_compactions(body: dict[str, Any], opaque: bool = False) -> dict[str, Any]:
    """Compaction items in ``input`` become the summary they carry (a developer message);
    ``opaque``: one the fake did not make is accepted (``decode_item``)."""
    items = _items(body)
    if items is None or not any(
        isinstance(i, dict) and i.get("type") == "compaction" for i in items
    ):
        return body
    out: list[Any] = []
    for n, item in enumerate(items):
        if isinstance(item, dict) and item.get("type") == "compaction":
            text = decode_item(item, f"input[{n}]", opaque)
            out.append({"type": "message", "role": "developer", "content": text})
        else:
            out.append(item)
    return {**body, "input": out}


def truncation_of(body: dict[str, Any]) -> str:
    value = body.get("truncation")
    if value is None:
        return "disabled"
    if value not in TRUNCATIONS:
        raise Invalid(
            f"truncation: Invalid value: '{value}'. Supported values are: 'auto' and 'disabled'."
        )
    return str(value)


def compact_threshold(body: dict[str, Any]) -> int | None:
    """The threshold of an in-request ``compaction`` entry, or ``None``."""
    entries = body.get("context_management")
    if entries is None:
        return None
    if not isinstance(entries, list):
        raise Invalid("context_management: Input should be a valid list")
    threshold: int | None = None
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("type") != "compaction":
            raise Invalid(f"context_management[{n}].type: Invalid value. Supported: 'compaction'.")
        value = entry.get("compact_threshold")
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < MIN_COMPACT_THRESHOLD
        ):
            raise Invalid(f"context_management[{n}].compact_threshold: expected a positive integer")
        threshold = value if isinstance(value, int) else threshold
    return threshold


def _drop_one(items: list[Any]) -> int:
    """Drop the oldest item (never the newest); a call goes with its output. Returns how
    many items went (0 when nothing can)."""
    if len(items) <= 1:
        return 0
    item = items.pop(0)
    call_id = item.get("call_id") if isinstance(item, dict) else None
    if call_id is None:
        return 1
    partners = [i for i in items if isinstance(i, dict) and i.get("call_id") == call_id]
    for partner in partners:
        items.remove(partner)
    return 1 + len(partners)


def truncate(body: dict[str, Any], count: Counter, window: int) -> Outcome:
    """``truncation: "auto"``: drop the oldest items until the input fits the window."""
    before = count(body)
    items = _items(body)
    if before <= window or items is None:
        return Outcome(body)
    edited = copy.deepcopy(body)
    kept: list[Any] = edited["input"]
    dropped = 0
    while count(edited) > window:
        went = _drop_one(kept)
        if went == 0:
            break
        dropped += went
    return Outcome(edited, Truncated(dropped, before, count(edited)))


def _with_calls(items: list[Any], start: int) -> int:
    """``start`` moved back to the call of any output kept from it on (again for the
    outputs that brings in: parallel calls), so a summary never takes a call whose output
    stays (the API's own pairing would refuse what is left)."""

    def call_id(item: Any, kind: str) -> Any:
        return item.get("call_id") if isinstance(item, dict) and item.get("type") == kind else None

    while True:
        kept = {call_id(i, "function_call_output") for i in items[start:]} - {None}
        calls = [
            n for n, item in enumerate(items[:start]) if call_id(item, "function_call") in kept
        ]
        if not calls:
            return start
        start = calls[0]


def compact(body: dict[str, Any], count: Counter, threshold: int) -> Outcome:
    """Items before the newest user message are summarised when the input is over
    ``threshold`` (with no user message, all but the newest item); a call whose output is
    kept is kept with it."""
    before = count(body)
    items = _items(body)
    if before <= threshold or items is None:
        return Outcome(body)
    users = [n for n, i in enumerate(items) if isinstance(i, dict) and i.get("role") == "user"]
    last = _with_calls(items, users[-1] if users else len(items) - 1)
    if last == 0:
        return Outcome(body)
    summary = COMPACTION_SUMMARY.format(items=last)
    edited = {
        **body,
        "input": [{"type": "message", "role": "developer", "content": summary}, *items[last:]],
    }
    # Deterministic per compacted input, so a scenario's expectations can name it.
    item_id = "cmp_" + hashlib.sha256(json.dumps(items[:last]).encode()).hexdigest()[:24]
    return Outcome(edited, compacted=Compacted(item_id, summary, last, before, count(edited)))
