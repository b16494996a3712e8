"""Telling sessions apart: which open session a request continues, or a new one.

In order: the session header (``ObserverConfig.session_header``) names it; else a
provider hint does (``previous_response_id`` continues the session whose last answer had
that id; ``conversation``, ``prompt_cache_key``, ``metadata.user_id``, ``user`` and any
other hint name it ``hint:<name>:<value>``); else the request continues the open session
whose history it carries on most (``history.overlap``: the whole history extended, or the
suffix a trim kept), ties to the most recently seen; else it opens ``s1``, ``s2``, ...
in order of opening. Sessions idle for ``idle_s`` expire; past ``max_sessions`` the least
recently seen goes first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Final

from harness.wire.history import index_keys, overlap
from harness.wire.infer import Memory
from harness.wire.prints import RowPrint, keys_of, leading_system

HINT_ORDER: Final = ("conversation", "prompt_cache_key", "metadata.user_id", "user")
"""Hints that name a session, strongest first; other hints follow in name order."""
PREVIOUS_RESPONSE_ID: Final = "previous_response_id"
RECENT_SCAN: Final = 64
"""Sessions scanned, most recent first, when the index names none by the request's rows
(a request may still carry one on, e.g. after an edit of its last row)."""


@dataclass(slots=True)
class Session:
    """One open session: its name, calls so far, when it was last seen, its memory, the
    keys it is indexed under and the id of its last answer."""

    name: str
    calls: int = 0
    seen_at: float = 0.0
    memory: Memory = field(default_factory=Memory)
    indexed: tuple[int, ...] = ()
    response_id: str | None = None


class SessionTable:
    """The open sessions, least recently seen first, and two indexes: by the keys of the
    rows any continuation of a session's history carries (``history.index_keys``: one
    or two a session; a key most often names one session, a set only when several share
    it), and by the id of each session's last answer."""

    def __init__(self, idle_s: float, max_sessions: int) -> None:
        self._idle_s = idle_s
        self._max = max(1, max_sessions)
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._by_key: dict[int, str | set[str]] = {}
        self._by_response: dict[str, str] = {}
        self._opened = 0

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, name: str) -> Session | None:
        return self._sessions.get(name)

    def expire(self, now: float) -> None:
        """Drop the sessions idle for longer than ``idle_s`` at ``now``."""
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.seen_at <= self._idle_s:
                break
            self._drop(oldest.name)

    def pick(
        self,
        header: str | None,
        hints: Mapping[str, str],
        prints: Sequence[RowPrint],
        now: float,
    ) -> Session:
        """The session this request belongs to (opened if new), marked seen at ``now``."""
        name = header or self._hinted(hints) or self._continued(prints)
        session = self._sessions.get(name) if name else None
        if session is None:
            session = self._open(name or self._new_name())
        self._sessions.move_to_end(session.name)
        session.seen_at = now
        return session

    def update(self, session: Session, memory: Memory, response_id: str | None) -> None:
        """Store the session's new memory, reindexed; remember its answer's id."""
        session.memory = memory
        self._unindex(session)
        session.indexed = index_keys(memory.before) if memory.before else ()
        for key in session.indexed:
            named = self._by_key.get(key)
            if named is None:
                self._by_key[key] = session.name
            elif isinstance(named, str):
                self._by_key[key] = {named, session.name}
            else:
                named.add(session.name)
        if response_id is not None:
            if session.response_id is not None:
                self._by_response.pop(session.response_id, None)
            session.response_id = response_id
            self._by_response[response_id] = session.name

    def _hinted(self, hints: Mapping[str, str]) -> str | None:
        previous = hints.get(PREVIOUS_RESPONSE_ID)
        if previous is not None and previous in self._by_response:
            return self._by_response[previous]
        others = sorted(name for name in hints if name not in HINT_ORDER)
        for hint in (*HINT_ORDER, *others):
            value = hints.get(hint)
            if value:
                return f"hint:{hint}:{value}"
        return None

    def _continued(self, prints: Sequence[RowPrint]) -> str | None:
        """The open session this request carries on most: among those the index names
        by the request's rows, else among the most recently seen; equal system rows break
        a tie, then the most recent."""
        named: set[str] = set()
        for row in prints:
            found = self._by_key.get(row.key)
            if found is not None:
                named.update((found,) if isinstance(found, str) else found)
        if not named:
            named = {s.name for s in islice(reversed(self._sessions.values()), RECENT_SCAN)}
        system = keys_of(prints[: leading_system(prints)])
        best, best_score = None, (0, 0, 0.0)
        for name in named:
            session = self._sessions[name]
            before = session.memory.before
            if before is None:
                continue
            kept = overlap(before, prints)
            same_system = keys_of(before.request[: leading_system(before.request)]) == system
            score = (kept, int(same_system), session.seen_at)
            if kept and score > best_score:
                best, best_score = name, score
        return best

    def _open(self, name: str) -> Session:
        while len(self._sessions) >= self._max:
            self._drop(next(iter(self._sessions)))
        session = Session(name)
        self._sessions[name] = session
        return session

    def _new_name(self) -> str:
        while True:
            self._opened += 1
            name = f"s{self._opened}"
            if name not in self._sessions:
                return name

    def _drop(self, name: str) -> None:
        session = self._sessions.pop(name)
        self._unindex(session)
        if session.response_id is not None:
            self._by_response.pop(session.response_id, None)

    def _unindex(self, session: Session) -> None:
        for key in session.indexed:
            named = self._by_key.get(key)
            if named == session.name:
                del self._by_key[key]
            elif isinstance(named, set):
                named.discard(session.name)
                if len(named) == 1:
                    self._by_key[key] = named.pop()
        session.indexed = ()
