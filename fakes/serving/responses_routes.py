"""``GET`` and ``DELETE /v1/responses/{response_id}``: the fake's stored responses
(``fakes.simulations.responses_store``).

``GET`` answers the response object as it was returned (the body, or the
``response.completed`` event's response when it was streamed). ``DELETE`` answers
``{"id", "object": "response", "deleted": true}`` (OpenAI API reference, "Delete a model
response"). An id the store does not have (unknown, deleted, evicted, or answered with
``store: false``) is a 404 with OpenAI's error envelope (``type``
``invalid_request_error``, ``param`` and ``code`` null); the message's wording is inferred
(``fakes.simulations.responses_store.NOT_FOUND_MESSAGE``).
"""

from __future__ import annotations

from typing import Any

from fakes.engine import FakeProvider
from fakes.profiles import Endpoint
from fakes.rows import JSONValue
from fakes.simulations.responses_store import DELETED_OBJECT, NOT_FOUND_MESSAGE
from fakes.wire.common import openai_error_body


def _not_found(response_id: str) -> tuple[int, JSONValue]:
    message = NOT_FOUND_MESSAGE.format(id=response_id)
    return 404, openai_error_body(message, "invalid_request_error", None, None)


def get_response(fake: FakeProvider, _: Endpoint, request: Any) -> tuple[int, JSONValue]:
    response_id = str(request.params.get("response_id", ""))
    found = fake.responses.get(response_id)
    if found is None:
        return _not_found(response_id)
    return 200, found.response


def delete_response(fake: FakeProvider, _: Endpoint, request: Any) -> tuple[int, JSONValue]:
    response_id = str(request.params.get("response_id", ""))
    if not fake.responses.delete(response_id):
        return _not_found(response_id)
    return 200, {"id": response_id, "object": DELETED_OBJECT, "deleted": True}
