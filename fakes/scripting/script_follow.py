"""Scripts that follow the conversation: which step answers a call, from what it asks.

A script whose steps say which request they answer (``when``, a
``fakes.scripting.script.StepCondition``) is read per request, once it is decoded:

1. the first step with ``when`` not yet used whose every condition holds answers it, and
   is used up (two steps with the same condition answer two such calls, in order);
2. otherwise the steps without ``when`` answer, in order, the calls no ``when`` step took;
   after them, ``default``.

So a call the script did not plan for (a summariser's request, a retry after a rate limit,
an overflow retry of the same turn) takes its own step, or a step of the order, without
moving the ``when`` steps planned for later turns. A script without ``when`` steps is not
read here: call ``i`` gets ``steps[i]`` (``FakeScript.behaviour_for``), as it always did.

User turns are counted over the fake's life (``reset`` starts over): the distinct user
messages seen as the newest user message of a request, in order of first sight. Trimming
the history does not renumber them (the newest message is never the trimmed one); a user
message that holds a ``contains`` text of the script is a side request, not a turn.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from fakes.rows import CanonicalRequest, Row, ToolSchema
from fakes.scripting.script import FakeBehaviour, FakeScript, StepCondition


@dataclass(frozen=True, slots=True)
class Seen:
    """What a condition reads from one request."""

    user_turn: int | None
    texts: tuple[str, ...]
    retry: bool


def _newest_user(rows: tuple[Row, ...]) -> str | None:
    return next((row.content for row in reversed(rows) if row.role == "user"), None)


def holds(condition: StepCondition, seen: Seen) -> bool:
    if condition.user_turn is not None and condition.user_turn != seen.user_turn:
        return False
    if condition.contains is not None and not any(condition.contains in t for t in seen.texts):
        return False
    return condition.retry is None or condition.retry == seen.retry


class ScriptCursor:
    """One fake's place in a conversation-following script; thread-safe."""

    def __init__(self, script: FakeScript) -> None:
        self.script = script
        self._side_texts = tuple(
            s.when.contains for s in script.steps if s.when is not None and s.when.contains
        )
        self._conditional = [n for n, s in enumerate(script.steps) if s.when is not None]
        self._ordered = [s for s in script.steps if s.when is None]
        self._used: set[int] = set()
        self._fell_through = 0
        self._turns: dict[str, int] = {}
        self._previous: tuple[tuple[Row, ...], tuple[ToolSchema, ...]] | None = None
        self._lock = threading.Lock()

    def _see(self, request: CanonicalRequest | None) -> Seen | None:
        if request is None:
            self._previous = None
            return None
        newest = _newest_user(request.rows)
        turn = None
        if newest is not None and not any(text in newest for text in self._side_texts):
            turn = self._turns.setdefault(newest, len(self._turns) + 1)
        systems = tuple(row.content for row in request.rows if row.role == "system")
        signature = (request.rows, request.tools)
        retry = signature == self._previous
        self._previous = signature
        texts = (newest, *systems) if newest is not None else systems
        return Seen(turn, texts, retry)

    def choose(self, request: CanonicalRequest | None) -> FakeBehaviour:
        """The step that answers this request (``None``: it did not decode)."""
        with self._lock:
            seen = self._see(request)
            for n in self._conditional:
                when = self.script.steps[n].when
                if n in self._used or when is None or seen is None:
                    continue
                if holds(when, seen):
                    self._used.add(n)
                    return self.script.steps[n]
            k, self._fell_through = self._fell_through, self._fell_through + 1
        return self._ordered[k] if k < len(self._ordered) else self.script.default
