"""Server-sent events, decoded line by line (the subset LLM providers use).

``event:`` names the event, ``data:`` lines accumulate (joined by newlines), a blank line
dispatches, ``:`` starts a comment. A final event without its blank line is still
dispatched when the stream ends: some servers omit it, and a *dropped* stream is detected
by the caller from the missing terminal event, not here.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str | None
    data: str


class SseDecoder:
    def __init__(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, line: str) -> SseEvent | None:
        """One line without its terminator; returns an event when the line completes one."""
        if not line:
            return self.flush()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        return None

    def flush(self) -> SseEvent | None:
        event = SseEvent(self._event, "\n".join(self._data)) if self._data else None
        self._event, self._data = None, []
        return event


async def iter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SseEvent]:
    decoder = SseDecoder()
    async for line in lines:
        event = decoder.feed(line.rstrip("\r\n"))
        if event is not None:
            yield event
    tail = decoder.flush()
    if tail is not None:
        yield tail
