"""The SSE decoder: the subset of server-sent events LLM providers use."""

from collections.abc import AsyncIterator

import pytest

from harness.providers.plumbing.sse import SseDecoder, SseEvent, iter_sse


def _decode(lines: list[str]) -> list[SseEvent]:
    decoder = SseDecoder()
    events = [e for line in lines if (e := decoder.feed(line)) is not None]
    tail = decoder.flush()
    return [*events, tail] if tail else events


def test_event_name_and_data() -> None:
    assert _decode(["event: ping", "data: {}", ""]) == [SseEvent("ping", "{}")]


def test_multi_line_data_joins_with_newlines_and_comments_are_ignored() -> None:
    assert _decode([": keep-alive", "data: a", "data:b", ""]) == [SseEvent(None, "a\nb")]


def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert _decode(["", "event: x", "", ""]) == []


def test_a_final_event_without_its_blank_line_is_still_dispatched() -> None:
    assert _decode(["data: last"]) == [SseEvent(None, "last")]


@pytest.mark.anyio
async def test_iter_sse_strips_crlf() -> None:
    async def lines() -> AsyncIterator[str]:
        for line in ["event: e\r\n", "data: 1\r\n", "\r\n", "data: 2"]:
            yield line

    assert [e async for e in iter_sse(lines())] == [SseEvent("e", "1"), SseEvent(None, "2")]
