"""OpenAI ``POST /v1/responses/compact``, simulated.

From openai-python ``src/openai/types/responses/``: the request is
``response_compact_params.py`` (``model``, ``input``, ``instructions``;
``previous_response_id`` is resolved from the fake's stored responses as ``/v1/responses``
resolves it, ``fakes.simulations.responses_store``); the answer is
``compacted_response.py``: ``{"id", "object": "response.compaction", "created_at", "output",
"usage"}``, where ``output`` is every user message of the input followed by one
``compaction`` item (``response_compaction_item.py``); the messages as items of their own
(``_user_messages``). The item is the fakes' opaque
encoding (``fakes.simulations.responses_context``), so a later ``/v1/responses`` request
that sends it back reads its summary. Usage: the input counted as the fake counts it, the
summary as output.
Behind a gateway that does not honour provider-side context management
(``ProviderSide.handling`` ``ignore`` or ``reject``) the route does not exist: 404.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fakes.engine import FakeProvider
from fakes.profiles import Endpoint
from fakes.rows import JSONValue
from fakes.simulations.responses_context import COMPACTION_SUMMARY, Compacted
from fakes.wire.base import RequestContext

COMPACTED_OBJECT = "response.compaction"
NO_COMPACT_ROUTE = "Invalid URL (POST /v1/responses/compact)"
"""OpenAI's 404 for a path it does not serve: ``{"error": {"message": "Invalid URL (POST
/v1/chat/completions)", "type": "invalid_request_error"}}`` as quoted in
swordintent/chatgpt-web-api#11 and corca-ai/EVAL#46, here for this path."""


def _user_messages(items: list[Any], uid: str) -> list[JSONValue]:
    """The input's user messages as output items: each with an id and ``status:
    "completed"``, a string ``content`` as one ``input_text`` part (pydantic/pydantic-ai
    ``tests/models/cassettes/test_openai_responses/
    test_openai_responses_compact_with_instructions.yaml`` at 4fda389: ``"Hello!"`` came
    back as ``[{"text": "Hello!", "type": "input_text"}]``)."""
    users = [
        item
        for item in items
        if isinstance(item, dict)
        and item.get("type", "message") == "message"
        and item.get("role") == "user"
    ]
    return [
        {
            "content": (
                [{"text": item["content"], "type": "input_text"}]
                if isinstance(item.get("content"), str)
                else item.get("content")
            ),
            "id": f"msg_{uid}_{n}",
            "role": "user",
            "status": "completed",
            "type": "message",
        }
        for n, item in enumerate(users)
    ]


def compact_response(fake: FakeProvider, _: Endpoint, request: Any) -> tuple[int, JSONValue]:
    """The ``responses_compact`` endpoint: validate as ``/v1/responses`` does, then answer
    the compacted window."""
    wire = fake.wire("openai_responses")
    if fake.provider_side.handling != "honour":
        # a gateway without provider-side context management has no such route either
        return 404, wire.error(404, "not_found", NO_COMPACT_ROUTE)
    ctx = RequestContext(request.path_model, request.headers, fake.profile.enforce_pairing)
    decoded = fake.decode(wire, request.body, ctx)
    if decoded.request is None:
        assert decoded.rejection is not None
        return decoded.rejection.status, decoded.rejection.body
    # the input as resolved: a ``previous_response_id``'s stored items come first
    raw: Any = decoded.resolved.get("input")  # a dict: it decoded
    items: list[Any] = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw)
    summary = COMPACTION_SUMMARY.format(items=len(items))
    input_tokens = fake.count(decoded.request).total
    output_tokens = fake.counter.count_text(summary)
    # an id from the request, not a call number: compacting is not a generation call, so
    # it must not move the script on
    uid = hashlib.sha256(request.body).hexdigest()[:24]
    item = Compacted(f"cmp_{uid}", summary, len(items), input_tokens, output_tokens).item()
    return 200, {
        "id": f"resp_{uid}",
        "object": COMPACTED_OBJECT,
        "created_at": int(fake.clock()),
        "output": [*_user_messages(items, uid), item],
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }
