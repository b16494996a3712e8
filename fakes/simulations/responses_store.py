"""OpenAI Responses conversation state: ``store``, ``previous_response_id``, and the
stored responses that ``GET`` / ``DELETE /v1/responses/{id}`` reach.

As the real API does (OpenAI API reference, "Create a model response": ``store``
defaults to ``true``; "Conversation state" guide: ``previous_response_id`` continues from
a stored response, whose ``instructions`` are not carried over):

- a ``200`` answer to a request with ``store`` not ``false`` is kept: the whole input it
  answered (its own chain included) and the response object it returned;
- ``previous_response_id`` names a kept response: its input and output items go before
  this request's ``input``, so the fake counts and answers the whole conversation; an
  unknown id, or one answered with ``store: false``, is the real 400
  ``previous_response_not_found`` (``fakes.wire.openai_responses``);
- kept objects are shared, not copied (a fresh answer's, which nothing changes once it is
  sent: the edits of ``fakes.simulations.provider_side`` copy what they change);
- the store is an LRU of at most ``STORED_RESPONSES_LIMIT`` responses (a lookup, a chain
  or a ``GET`` counts as a use): a long-running fake stays bounded, and a chain that
  reaches an evicted response fails as an expired one would.

The response object echoes ``store``, ``previous_response_id`` and the request's other
settings (``fakes.simulations.responses_echo``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from fakes.rows import JSONValue
from fakes.serving.answer import Answer
from fakes.simulations.responses_echo import echo
from fakes.wire.common import Invalid
from fakes.wire.openai_responses import previous_response_not_found

STORED_RESPONSES_LIMIT = 256
DELETED_OBJECT = "response"
# Not found in the recorded exchanges; the wording is inferred from OpenAI's other
# not-found answers ("Previous response with id '...' not found.", "Invalid URL (...)").
NOT_FOUND_MESSAGE = "Response with id '{id}' not found."


@dataclass(frozen=True, slots=True)
class StoredResponse:
    input: tuple[JSONValue, ...]
    response: dict[str, JSONValue]


def _items(raw: Any) -> list[Any]:
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    return list(raw) if isinstance(raw, list) else []


def store_flag(body: Mapping[str, Any]) -> bool:
    value = body.get("store")
    if value is None:
        return True
    if not isinstance(value, bool):
        raise Invalid(f"Invalid type for 'store': expected a boolean, but got {value!r} instead.")
    return value


class ResponseStore:
    """The fake's kept responses, least recently used first; thread-safe."""

    def __init__(self, limit: int = STORED_RESPONSES_LIMIT) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.limit = limit
        self._kept: OrderedDict[str, StoredResponse] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def ids(self) -> tuple[str, ...]:
        """The kept ids, least recently used first."""
        with self._lock:
            return tuple(self._kept)

    def get(self, response_id: str) -> StoredResponse | None:
        with self._lock:
            found = self._kept.get(response_id)
            if found is not None:
                self._kept.move_to_end(response_id)
            return found

    def put(self, response_id: str, stored: StoredResponse) -> None:
        with self._lock:
            self._kept[response_id] = stored
            self._kept.move_to_end(response_id)
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)

    def delete(self, response_id: str) -> bool:
        with self._lock:
            return self._kept.pop(response_id, None) is not None

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    # -- the engine's two hooks ---------------------------------------------------------

    def resolve(self, body: Any) -> Any:
        """The body with the named previous response's items before its ``input``
        (``previous_response_id`` removed); other bodies unchanged."""
        if not isinstance(body, dict):
            return body
        store_flag(body)
        previous = body.get("previous_response_id")
        if previous is None:
            return body
        found = self.get(str(previous))
        if found is None:
            raise previous_response_not_found(str(previous))
        output = found.response.get("output")
        chain = [*found.input, *(output if isinstance(output, list) else [])]
        rest = {k: v for k, v in body.items() if k != "previous_response_id"}
        return {**rest, "input": chain + _items(body.get("input"))}

    def keep(self, sent: Any, resolved: Any, status: int, response: Any) -> None:
        """Keep a successful answer's response object (``response``: the body, or the
        ``response.completed`` event's response) unless ``store`` is ``false``."""
        if status != HTTPStatus.OK or not isinstance(sent, dict) or not isinstance(response, dict):
            return
        if not store_flag(sent) or not isinstance(response.get("id"), str):
            return
        items = tuple(_items(resolved.get("input") if isinstance(resolved, dict) else None))
        self.put(response["id"], StoredResponse(items, response))


def _responses(answer: Answer) -> tuple[list[dict[str, JSONValue]], Any]:
    """The answer's response objects (the body, or each event's ``response``) and the
    final one (the body, or ``response.completed``'s)."""
    if answer.events is None:
        body = answer.body
        return ([body], body) if isinstance(body, dict) and "output" in body else ([], None)
    found: list[dict[str, JSONValue]] = []
    final: Any = None
    for event in answer.events:
        data = event.data
        if isinstance(data, dict) and isinstance(data.get("response"), dict):
            found.append(data["response"])  # type: ignore[arg-type]
            final = data["response"] if data.get("type") == "response.completed" else final
    return found, final


def settle(store: ResponseStore, sent: Any, resolved: Any, answer: Answer) -> Answer:
    """Echo the request's settings into the answer's response objects
    (``fakes.simulations.responses_echo``) and keep the response."""
    if answer.status != HTTPStatus.OK:
        return answer
    found, final = _responses(answer)
    body = sent if isinstance(sent, dict) else {}
    for response in found:
        echo(body, response, store=store_flag(body), streamed=answer.events is not None)
    store.keep(sent, resolved, answer.status, final)
    return answer
