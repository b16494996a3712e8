"""The copy of a body the proxy keeps for the observer and the record, bounded.

The client gets every byte; the copy keeps at most ``limit`` of them (the first ones, in
the chunks they arrived in) and counts them all. A body cut by the limit is not JSON any
more, so the observer reports the exchange unobservable rather than guessing.
"""

from __future__ import annotations

import zlib
from typing import Final

STREAM_TYPES: Final = (
    "text/event-stream",
    "application/x-ndjson",
    "application/jsonl",
    "application/json-seq",
    "application/vnd.amazon.eventstream",
)
"""Answer media types that are streams (SSE, NDJSON, Bedrock's event stream)."""
ZLIB_ENCODINGS: Final = frozenset({"gzip", "x-gzip", "deflate"})


class BoundedCopy:
    """The first ``limit`` bytes of a body, chunk by chunk, and the count of all of them."""

    __slots__ = ("_kept", "chunks", "limit", "total")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[bytes] = []
        self.total = 0
        self._kept = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - self._kept
        if room <= 0 or not chunk:
            return
        piece = chunk if len(chunk) <= room else chunk[:room]
        self.chunks.append(piece)
        self._kept += len(piece)

    @property
    def truncated(self) -> bool:
        return self.total > self._kept

    def body(self) -> bytes:
        return b"".join(self.chunks)


def is_stream(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media in STREAM_TYPES


def decoded(body: bytes, content_encoding: str, limit: int) -> bytes | None:
    """``body`` without its gzip or deflate encoding, at most ``limit`` bytes of it (a
    small body can inflate to gigabytes); ``None`` when it cannot be decoded here (another
    encoding, corrupt, or larger than ``limit``). No encoding: the body itself."""
    encoding = content_encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ZLIB_ENCODINGS:
        return None
    inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 32)  # gzip or zlib header
    try:
        out = inflater.decompress(body, limit)
    except zlib.error:
        return None
    if inflater.unconsumed_tail:
        return None
    return out


__all__ = ["STREAM_TYPES", "BoundedCopy", "decoded", "is_stream"]
