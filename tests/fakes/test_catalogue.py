"""Every catalogue row, over a real HTTP connection: status, headers and body as catalogued.

One loopback server per provider serves all of that provider's rows (``reset`` switches
the variant between tests). The request is sized so the heuristic count is known without
asking the fake: one user row of ``k`` ASCII bytes costs ``ceil(k/4) + 4``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes import OVERFLOWS, FakeProvider, FakeScript, OverflowEntry
from fakes.scripting.templates import render
from tests.fakes.conftest import MODEL, WINDOW, Pool
from tests.fakes.wire_requests import (
    path_for,
    reported_input_tokens,
    sse_events,
    text_for_tokens,
    user_request,
)


def _sizes(entry: OverflowEntry) -> tuple[int, int | None]:
    """(input tokens, max output tokens) that trigger ``entry`` and nothing earlier."""
    if entry.trigger == "input_plus_output":
        return 900, 300
    return 1200, None


def _numbers(fake: FakeProvider, entry: OverflowEntry, index: int) -> dict[str, object]:
    tokens, completion = _sizes(entry)
    trigger = tokens + (completion or 0) if entry.trigger == "input_plus_output" else tokens
    uid, request_id = fake.ids(index)
    return {
        "window": WINDOW,
        "input": tokens,
        "messages": tokens,
        "tools": 0,
        "completion": completion or 0,
        "requested": tokens + (completion or 0),
        "excess": trigger - WINDOW,
        "model": MODEL,
        "request_id": request_id,
        "uuid": uid,
    }


def _send(
    fake: FakeProvider,
    base: str,
    entry: OverflowEntry,
    *,
    stream: bool = False,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    tokens, completion = _sizes(entry)
    body = user_request(
        entry.wire, MODEL, text_for_tokens(tokens), max_tokens=completion, stream=stream
    )
    url = base + path_for(fake.profile, entry.wire, MODEL)
    return httpx.post(url, json=body, headers=headers, timeout=10.0)


def _check_error(entry: OverflowEntry, response: httpx.Response, numbers: dict[str, Any]) -> None:
    assert response.status_code == entry.status
    for name, value in entry.headers.items():
        assert response.headers[name] == value.format_map(numbers)
    if entry.body is None:
        assert response.content == b""
    else:
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == render(entry.body, numbers)


@pytest.mark.parametrize("entry", OVERFLOWS, ids=lambda e: f"{e.provider}-{e.wire}-{e.variant}")
def test_catalogue_row_answers_an_over_window_request(entry: OverflowEntry, pool: Pool) -> None:
    fake, base = pool(entry.provider)
    fake.reset(variant=entry.variant, script=FakeScript())
    beta = {"anthropic-beta": "model-context-window-exceeded-2025-08-26"}
    response = _send(
        fake, base, entry, headers=beta if entry.variant == "context_window_stop" else None
    )
    numbers = _numbers(fake, entry, 0)
    tokens, _ = _sizes(entry)
    if entry.delivery == "error":
        _check_error(entry, response, numbers)
        assert fake.log.last().outcome == "overflow"
    elif entry.delivery == "truncate":
        assert response.status_code == 200
        assert reported_input_tokens(entry.wire, response.json()) == WINDOW < tokens
        assert fake.log.last().outcome == "truncated"
    elif entry.delivery == "silent":
        assert response.status_code == 200
        assert reported_input_tokens(entry.wire, response.json()) == tokens > WINDOW
    else:  # "stop": generation cut at the window, not an error
        body = response.json()
        assert response.status_code == 200
        assert body["stop_reason"] == "model_context_window_exceeded"
        assert body["usage"]["output_tokens"] == WINDOW - tokens
    assert fake.log.last().tokens is not None
    assert fake.log.last().tokens.total == tokens  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "entry",
    [e for e in OVERFLOWS if e.stream_event is not None],
    ids=lambda e: f"{e.provider}-{e.wire}-{e.variant}",
)
def test_streaming_overflow_arrives_in_stream_after_a_200(entry: OverflowEntry, pool: Pool) -> None:
    fake, base = pool(entry.provider)
    fake.reset(variant=entry.variant, script=FakeScript())
    response = _send(fake, base, entry, stream=True)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    name, data = sse_events(response.text)[-1]
    assert name == "error"
    assert data == render(entry.stream_event, _numbers(fake, entry, 0))


def test_anthropic_default_answers_input_plus_max_tokens_with_its_own_variant(pool: Pool) -> None:
    _, base = pool("anthropic")
    body = user_request("anthropic", MODEL, text_for_tokens(900), max_tokens=300)
    response = httpx.post(base + "/v1/messages", json=body, timeout=10.0)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "input length and `max_tokens` exceed context limit: 900 + 300 > 1000, "
        "decrease input length or `max_tokens` and try again"
    )


def test_request_exactly_at_the_window_is_answered_normally(pool: Pool) -> None:
    _, base = pool("openai")
    body = user_request("openai_chat", MODEL, text_for_tokens(WINDOW))
    response = httpx.post(base + "/v1/chat/completions", json=body, timeout=10.0)
    assert response.status_code == 200
    assert response.json()["usage"]["prompt_tokens"] == WINDOW
