"""A fake that answers from recorded exchanges (``trimscope fake serve --replay DIR``).

A request is answered by the recorded exchange with the same **key**: its method, its
path, its query parameters (those the record redacted, API keys, left out on both sides)
and its body read as JSON with object keys sorted and no insignificant whitespace (a body
that is not JSON: its bytes). Headers are not part of the key (keys, user agents and
tracing ids differ from run to run). Several records with one key are served in recorded
order, the last one again once they run out (a retry recorded as 429 then 200 replays
the same way).

The answer is the recorded status, headers and body bytes as they travelled, in the
recorded pieces (a stream stays a stream; a gzip body stays gzip, with its
``content-encoding``); ``content-length``, ``transfer-encoding`` and the connection
headers are the server's own again.

A request no record has gets a 404 whose JSON body names the closest record (the same
method and path first, then the fewest differing body fields) with its source
(``file:line``) and where the bodies differ, so a changed prompt or a drifting field is
found at once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

REDACTED = "[redacted]"
MAX_DIFFERENCES_SHOWN = 8
_SERVER_OWN = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "date", "server"}
)


@dataclass(frozen=True, slots=True)
class Recorded:
    """One recorded exchange: the request's method, path, query and body, and the answer
    as it travelled. ``source`` says where it was read (``file:line``)."""

    method: str
    path: str
    query: str
    body: bytes
    status: int
    headers: tuple[tuple[str, str], ...]
    chunks: tuple[bytes, ...]
    streamed: bool
    source: str


def _parsed(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body.decode("utf-8", "replace")


def _canonical(body: bytes) -> str:
    value = _parsed(body)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _redacted_names(query: str) -> frozenset[str]:
    return frozenset(k for k, v in parse_qsl(query, keep_blank_values=True) if v == REDACTED)


def _query(query: str, left_out: frozenset[str]) -> tuple[tuple[str, str], ...]:
    pairs = parse_qsl(query, keep_blank_values=True)
    return tuple(sorted((k, v) for k, v in pairs if k not in left_out))


def differences(recorded: Any, sent: Any, where: str = "body") -> list[str]:
    """The JSON paths where two bodies differ (at most ``MAX_DIFFERENCES_SHOWN`` + 1)."""
    if isinstance(recorded, dict) and isinstance(sent, dict):
        found: list[str] = []
        for key in sorted(set(recorded) | set(sent), key=str):
            if key not in sent:
                found.append(f"{where}.{key} (recorded, not sent)")
            elif key not in recorded:
                found.append(f"{where}.{key} (sent, not recorded)")
            else:
                found += differences(recorded[key], sent[key], f"{where}.{key}")
            if len(found) > MAX_DIFFERENCES_SHOWN:
                break
        return found
    if isinstance(recorded, list) and isinstance(sent, list):
        found = []
        if len(recorded) != len(sent):
            found.append(f"{where} ({len(recorded)} items recorded, {len(sent)} sent)")
        for n, (a, b) in enumerate(zip(recorded, sent, strict=False)):
            found += differences(a, b, f"{where}[{n}]")
            if len(found) > MAX_DIFFERENCES_SHOWN:
                break
        return found
    return [] if recorded == sent else [where]


class Replay:
    """The records by key, and which record of each key comes next. Thread-safe."""

    def __init__(self, records: Iterable[Recorded]) -> None:
        self.records: tuple[Recorded, ...] = tuple(records)
        self._left_out = frozenset().union(*(_redacted_names(r.query) for r in self.records))
        self._by_key: dict[tuple[object, ...], list[Recorded]] = {}
        for record in self.records:
            self._by_key.setdefault(
                self._key(record.method, record.path, record.query, record.body), []
            ).append(record)
        self._served: dict[tuple[object, ...], int] = {}
        self._lock = threading.Lock()

    def _key(self, method: str, path: str, query: str, body: bytes) -> tuple[object, ...]:
        return (method.upper(), path, _query(query, self._left_out), _canonical(body))

    def match(self, method: str, path: str, query: str, body: bytes) -> Recorded | None:
        key = self._key(method, path, query, body)
        with self._lock:
            candidates = self._by_key.get(key)
            if not candidates:
                return None
            n = self._served.get(key, 0)
            self._served[key] = n + 1
        return candidates[min(n, len(candidates) - 1)]

    def closest(self, method: str, path: str, body: bytes) -> tuple[Recorded, list[str]] | None:
        """The record nearest the request, and where their bodies differ."""
        sent = _parsed(body)
        best: tuple[tuple[int, int, int], Recorded, list[str]] | None = None
        for record in self.records:
            found = differences(_parsed(record.body), sent)
            score = (record.method.upper() != method.upper(), record.path != path, len(found))
            if best is None or score < best[0]:
                best = (score, record, found)
        return (best[1], best[2]) if best else None


def no_match_body(replay: Replay, method: str, path: str, body: bytes) -> dict[str, Any]:
    """The 404's body: what was asked, and the closest record with where it differs."""
    message = f"no recorded exchange matches {method} {path}"
    near = replay.closest(method, path, body)
    if near is None:
        return {"error": {"type": "no_recorded_exchange", "message": message, "closest": None}}
    record, found = near
    if record.path != path:
        found.insert(0, f"path ({record.path} recorded)")
    if record.method.upper() != method.upper():
        found.insert(0, f"method ({record.method} recorded)")
    shown = found[:MAX_DIFFERENCES_SHOWN]
    where = ", ".join(shown) + (", ..." if len(found) > len(shown) else "")
    message += f"; closest: {record.source}, differs at: {where or 'the query'}"
    closest: dict[str, Any] = {"source": record.source, "method": record.method}
    closest.update(path=record.path, differences=shown)
    return {"error": {"type": "no_recorded_exchange", "message": message, "closest": closest}}


async def _pieces(chunks: Sequence[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _answer(record: Recorded) -> Response:
    headers = {k: v for k, v in record.headers if k.lower() not in _SERVER_OWN}
    if record.streamed:
        return StreamingResponse(_pieces(record.chunks), record.status, headers)
    return Response(b"".join(record.chunks), record.status, headers)


def build_replay_app(replay: Replay) -> Starlette:
    """Every path and method: the matching record's answer, or the closest-match 404."""

    async def handle(request: Request) -> Response:
        body = await request.body()
        method, path, query = request.method, request.url.path, request.url.query
        record = replay.match(method, path, query, body)
        if record is None:
            return JSONResponse(no_match_body(replay, method, path, body), 404)
        return _answer(record)

    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    app = Starlette(routes=[Route("/{path:path}", handle, methods=methods)])
    app.state.replay = replay
    return app
