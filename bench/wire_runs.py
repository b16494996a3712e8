"""The runs ``python -m bench.wire`` reports: the sessions it observes, the memory they
hold when idle (tracemalloc) and the CPU one request costs at a given turn."""

from __future__ import annotations

import cProfile
import gc
import json
import pstats
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO
from typing import Final

from bench.timing import CLOCK, gc_paused
from harness.providers.clients.openai_chat import build_chat_request
from harness.providers.plumbing.base import ProviderRequest
from harness.runtime import ChatMessage, ToolCall
from harness.runtime.messages import native_tool_call_row, native_tool_result_row
from harness.wire import (
    DecodedAnswer,
    DecodedRequest,
    ObserverConfig,
    WireExchange,
    WireObserver,
)
from harness.wire.decode import decode_answer, decode_request

SIZES: Final = (1_000, 10_000, 100_000)
TOOL_SIZES: Final = (1_000,)
"""The tool-heavy session is information: measured at the smallest size only (its JSON
rows make it ten times slower to observe under tracemalloc)."""
CHAT_TURNS: Final = 10
TOOL_TURNS: Final = 25
COST_TURNS: Final = (20, 1_000)
COST_ROUNDS: Final = 15
SHORT_REPEATS: Final = 20
"""Calls at the short turn per round (one such call is well under a millisecond)."""
HEADER: Final = "x-trimscope-session"
PATH: Final = "/v1/chat/completions"

_SYSTEM: Final = ChatMessage("system", "You are a helpful assistant. Answer briefly. " * 8)
_USER: Final = "Could you look at this for me and tell me what you think? " * 3
_ANSWER: Final = "Here is what I found, with the details you asked for. " * 5
_RESULT: Final = "result line: value, value, value, value, value. " * 6


# ------------------------------------------------------------------------------- sessions


def chat_rows(session: int, turns: int) -> list[ChatMessage]:
    """A system prompt, then ``turns`` pairs of a user row and an assistant reply."""
    rows = [_SYSTEM]
    for turn in range(turns):
        rows.append(ChatMessage("user", f"{session}.{turn} {_USER}"))
        rows.append(ChatMessage("assistant", f"{session}.{turn} {_ANSWER}"))
    return rows


def tool_rows(session: int, turns: int) -> list[ChatMessage]:
    """A system prompt, then per turn: a user row, a native tool call, its result, a reply."""
    rows = [_SYSTEM]
    for turn in range(turns):
        call_id = f"call_{session}_{turn}"
        rows.append(ChatMessage("user", f"{session}.{turn} {_USER}"))
        rows.append(native_tool_call_row(None, [ToolCall(call_id, "lookup", '{"q":"x"}')]))
        rows.append(native_tool_result_row(call_id, _RESULT))
        rows.append(ChatMessage("assistant", f"{session}.{turn} {_ANSWER}"))
    return rows


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    rows: Callable[[int, int], list[ChatMessage]]
    turns: int

    def describe(self) -> str:
        return f"{self.name}: {self.turns} turns, {len(self.rows(0, self.turns))} rows"


CHAT: Final = Shape("chat", chat_rows, CHAT_TURNS)
TOOLS: Final = Shape("tool round every turn", tool_rows, TOOL_TURNS)


def _exchange(name: str, body: bytes = b"", answer: bytes = b"") -> WireExchange:
    return WireExchange(
        wire="openai_chat",
        method="POST",
        path=PATH,
        request_headers={HEADER: name},
        request_body=body,
        status=200,
        response_body=answer,
    )


def _observer() -> WireObserver:
    return WireObserver(ObserverConfig(clock=lambda: 0.0))  # nothing expires mid-run


# --------------------------------------------------------------------------------- memory


@dataclass(frozen=True, slots=True)
class MemoryRun:
    shape: str
    sessions: int
    per_session: float
    """Bytes ``tracemalloc`` sees held per idle session."""
    seconds: float
    """CPU time of the run (``time.process_time``), tracemalloc's own cost included."""


def idle_memory(shape: Shape, sessions: int, *, every_turn: bool = False) -> MemoryRun:
    """Bytes held per idle session once ``sessions`` sessions of ``shape`` were observed:
    each its last call (or, ``every_turn``, each call of its conversation in turn).

    For the last call alone, the earlier turns' rows are built once and shared by every
    session; the last turn's rows are each session's own, so the observer's index (by the
    keys of the last request row and the answer) holds one entry a session, as in real
    traffic. What a session holds is its rows' prints, whatever their text: sharing rows
    only spares the run building 100,000 conversations under tracemalloc."""
    began = time.process_time()
    observer = _observer()
    shared = shape.rows(-1, shape.turns)
    per_turn = len(shape.rows(-1, 1)) - 1
    with gc_paused():  # no collection mid-loop: 100,000 sessions' objects, scanned again and again
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        for session in range(sessions):
            exchange = _exchange(f"session-{session}")
            if every_turn:
                rows = shape.rows(session, shape.turns)
                for end in _call_ends(rows):
                    request = DecodedRequest(model="m", rows=tuple(rows[:end]))
                    observer.observe_decoded(exchange, request, DecodedAnswer(rows=(rows[end],)))
            else:
                last = shape.rows(session, 1)[1:]
                rows = [*shared[:-per_turn], *last]
                request = DecodedRequest(model="m", rows=tuple(rows[:-1]))
                observer.observe_decoded(exchange, request, DecodedAnswer(rows=(rows[-1],)))
            del rows, exchange, request
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
    if observer.session_count != sessions:
        raise RuntimeError(f"{observer.session_count} sessions open, {sessions} observed")
    return MemoryRun(shape.name, sessions, held / sessions, time.process_time() - began)


def _call_ends(rows: Sequence[ChatMessage]) -> list[int]:
    """Where each call's request ends: before every assistant row (its answer)."""
    return [i for i, row in enumerate(rows) if row.role == "assistant"]


# ----------------------------------------------------------------------------------- cost


@dataclass(frozen=True, slots=True)
class CostRun:
    turns: int
    rows: int
    body_bytes: int
    observe_ns: float
    decoded_ns: float
    floor_ns: float
    """Medians, CPU time per request."""

    @property
    def per_row(self) -> float:
        return self.observe_ns / self.rows

    @property
    def per_kib(self) -> float:
        return self.observe_ns / (self.body_bytes / 1024)


@dataclass(frozen=True, slots=True)
class _Bodies:
    """A session at ``turns``: the previous call decoded (to prime the observer with), and
    this call's request and answer bytes."""

    turns: int
    previous: DecodedRequest
    previous_answer: DecodedAnswer
    request: bytes
    answer: bytes


def _body(rows: Sequence[ChatMessage]) -> bytes:
    payload = build_chat_request(ProviderRequest(model="m", messages=rows))
    return json.dumps(payload, separators=(",", ":")).encode()


def _answer(text: str) -> bytes:
    message = {"role": "assistant", "content": text}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return json.dumps({"object": "chat.completion", "choices": [choice]}).encode()


def bodies(turns: int) -> _Bodies:
    rows = chat_rows(0, turns)  # the last row is this call's answer
    previous = rows[:-3]  # the request before: one turn (a user row, a reply) shorter
    return _Bodies(
        turns,
        DecodedRequest(model="m", rows=tuple(previous)),
        DecodedAnswer(rows=(rows[-3],)),
        _body(rows[:-1]),
        _answer(rows[-1].content),
    )


def cost(turns: Sequence[int], rounds: int) -> list[CostRun]:
    """CPU per request at each of ``turns``, interleaved round by round; in each sample a
    fresh session is primed with the previous call (untimed), then the call is timed."""
    prepared = [bodies(t) for t in turns]
    samples: dict[tuple[int, str], list[int]] = {}
    observer, count = _observer(), 0
    with gc_paused():
        for _ in range(rounds):
            for body in prepared:
                repeats = SHORT_REPEATS if body.turns < max(turns) else 1
                for _ in range(repeats):
                    count += 1
                    for kind in ("observe", "decoded", "floor"):
                        elapsed = _sample(observer, body, kind, f"cost-{count}-{kind}")
                        samples.setdefault((body.turns, kind), []).append(elapsed)
    out = []
    for body in prepared:
        rows = len(decode_request("openai_chat", PATH, body.request).rows)

        def median(kind: str, turns: int = body.turns) -> float:
            return float(statistics.median(samples[turns, kind]))

        out.append(
            CostRun(
                body.turns,
                rows,
                len(body.request),
                median("observe"),
                median("decoded"),
                median("floor"),
            )
        )
    return out


def _sample(observer: WireObserver, body: _Bodies, kind: str, name: str) -> int:
    exchange = _exchange(name, body.request, body.answer)
    if kind == "floor":
        start = CLOCK()
        json.loads(body.request)
        return CLOCK() - start
    observer.observe_decoded(exchange, body.previous, body.previous_answer)
    if kind == "observe":
        start = CLOCK()
        found = observer.observe(exchange)
        elapsed = CLOCK() - start
    else:  # decoded before the clock, fresh rows each time (no measurement remembered)
        request = decode_request("openai_chat", PATH, body.request)
        answer = decode_answer("openai_chat", 200, body.answer, streamed=False)
        start = CLOCK()
        found = observer.observe_decoded(exchange, request, answer)
        elapsed = CLOCK() - start
    if found:
        raise RuntimeError(f"a plain continuation gave findings: {found}")
    return elapsed


def profile(turns: int, calls: int, top: int = 12) -> str:
    """cProfile of ``calls`` observed requests at ``turns``: the top functions by own time."""
    body = bodies(turns)
    observer = _observer()
    profiler = cProfile.Profile()
    for call in range(calls):
        exchange = _exchange(f"profile-{call}", body.request, body.answer)
        observer.observe_decoded(exchange, body.previous, body.previous_answer)
        profiler.enable()
        observer.observe(exchange)
        profiler.disable()
    out = StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()
