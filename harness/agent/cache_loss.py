"""Cache loss: what a trim costs the provider's prompt cache.

Providers cache the prefix of what was sent; a trim rewrites the front of the history, so
the next request shares less of it. For each trim, the loss is the estimated tokens of
the route's last *successful* request (the prefix a provider could have cached: a refused
request caches nothing) that the trimmed history no longer starts with:
``estimate(last) - estimate(common leading rows of last and trimmed)``. Tool schemas come
first in both and cancel out. Nothing sent yet on the route: nothing to lose (0).

Between turns only what that needs is kept of a request, not its rows: an idle session
would otherwise keep a rendered copy of its last request alive (3× its history's text,
issue 16); within a turn the rows are held and the keys made at its end (``Sent``). Kept:
the request's estimate, and 8 bytes a row (``RowKeys``, ``hash((role, content))``):
equal rows have equal keys, so the common leading rows are found on the keys, and those
rows being equal row for row, ``estimate(last[:kept])`` is ``estimate(trimmed[:kept])``.
Two different rows with the same 64-bit keyed hash at the same place would count as
shared: a chance of about 2⁻⁶⁴ per row compared.

It is a property of the history, not of a provider: the fakes' reported cache reads show
what a given provider actually kept (its minimum lengths, lifetimes, breakpoints).

The bookkeeping is the session's seam (``CacheLossBookkeeping``, given to the session as a
factory, ``SessionSpec.cache_loss``): ``SentRequests`` measures, the default
(``MEASURE_CACHE_LOSS``); ``NoCacheLossBookkeeping`` keeps nothing and measures nothing, so
trims carry no cache loss (``bench load``'s caching-off run).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Final, Protocol

from harness.runtime import ChatMessage, estimate_history_tokens

_CONTENT, _ROLE = attrgetter("content"), attrgetter("role")


@dataclass(frozen=True, slots=True)
class RowKeys:
    """Each row of a request as 8 bytes: ``hash((role, content))``, equal for equal rows.
    Hashing a row costs little: its strings remember their own hashes, so the tuple's
    hash only combines them (rows are mostly the objects the previous call sent)."""

    hashes: array[int]

    @classmethod
    def of(cls, rows: Sequence[ChatMessage]) -> RowKeys:
        pairs = zip(map(_ROLE, rows), map(_CONTENT, rows), strict=False)  # same length
        return cls(array("q", list(map(hash, pairs))))  # from a list: faster to fill

    def __len__(self) -> int:
        return len(self.hashes)

    def starts(self, other: RowKeys) -> bool:
        """Whether these rows start with ``other``'s."""
        return self.hashes[: len(other.hashes)] == other.hashes

    def shared(self, other: RowKeys) -> int:
        """How many leading rows these and ``other``'s share."""
        if self.starts(other) or other.starts(self):  # the usual case: one extends the other
            return min(len(self), len(other))
        pairs = zip(self.hashes, other.hashes, strict=False)
        return next(i for i, (mine, theirs) in enumerate(pairs) if mine != theirs)


@dataclass(eq=False, slots=True)
class Sent:
    """What the cache loss needs of one request: its estimate, and its rows' keys. The
    keys are made when first needed (a trim, or the end of the turn: ``settle``), not per
    call: a turn makes several calls, each extending the last, and only the last
    successful one's keys are ever read. Until then the request's rows are held (a
    tuple of the row objects the request already holds, no copy of their text)."""

    tokens: int
    """``estimate_history_tokens`` of the request."""
    _rows: tuple[ChatMessage, ...] | None
    _keys: RowKeys | None = None

    @classmethod
    def of(cls, rows: Sequence[ChatMessage], tokens: int | None = None) -> Sent:
        """The request ``rows``; ``tokens`` is their estimate when the caller has it (the
        loop's capacity check measured exactly these rows just before), so per call no
        pass over the rows is left but the tuple's copy of their references (measured in
        docs/decisions.md)."""
        estimate = estimate_history_tokens(rows) if tokens is None else tokens
        return cls(estimate, tuple(rows))

    @property
    def keys(self) -> RowKeys:
        if self._keys is None:
            self._keys = RowKeys.of(self._rows or ())  # rows are set until keys are
            self._rows = None
        return self._keys

    def settle(self) -> None:
        """Keys made now, rows let go."""
        self.keys  # noqa: B018 -- the property makes them

    def lost(self, trimmed: Sequence[ChatMessage]) -> int:
        """Tokens of this request that ``trimmed`` no longer starts with."""
        kept = self.keys.shared(RowKeys.of(trimmed[: len(self.keys)]))
        if kept == len(self.keys):
            return 0
        return self.tokens - estimate_history_tokens(trimmed[:kept])


class CacheLossBookkeeping(Protocol):
    """What a session keeps of its requests to measure its trims' cache loss: told when
    a request starts and when it succeeds, settled at the end of each turn, asked at each
    trim."""

    def started(
        self, route: str, rows: Sequence[ChatMessage], tokens: int | None = None
    ) -> None: ...

    def succeeded(self, route: str) -> None: ...

    def settle(self) -> None: ...

    def loss(self, route: str, trimmed: Sequence[ChatMessage]) -> int | None:
        """Tokens of the route's last successful request that ``trimmed`` no longer
        starts with; ``None``: not measured."""
        ...


BookkeepingFactory = Callable[[], CacheLossBookkeeping]
"""Makes one session's bookkeeping (a channel makes one per turn, as it makes its events'
stamper)."""


@dataclass(slots=True)
class SentRequests:
    """Per route: the request in flight, and the last one that succeeded (as ``Sent``;
    taken when a request starts, so not even a refused request's rows are kept)."""

    _pending: dict[str, Sent] = field(default_factory=dict)
    _sent: dict[str, Sent] = field(default_factory=dict)

    def started(self, route: str, rows: Sequence[ChatMessage], tokens: int | None = None) -> None:
        """``tokens``: ``estimate_history_tokens(rows)``, when the caller already has it."""
        self._pending[route] = Sent.of(rows, tokens)

    def settle(self) -> None:
        """At the end of a turn: the last successful requests keep their keys, not their
        rows (an idle session holds 8 bytes a row of them), and a request still pending
        was refused or abandoned: it can no longer succeed."""
        self._pending.clear()
        for sent in self._sent.values():
            sent.settle()

    def succeeded(self, route: str) -> None:
        sent = self._pending.pop(route, None)
        if sent is not None:
            self._sent[route] = sent

    def loss(self, route: str, trimmed: Sequence[ChatMessage]) -> int:
        last = self._sent.get(route)
        return 0 if last is None else last.lost(trimmed)


class NoCacheLossBookkeeping:
    """Keeps nothing and measures nothing: trims carry no cache loss (``None``)."""

    __slots__ = ()

    def started(self, route: str, rows: Sequence[ChatMessage], tokens: int | None = None) -> None:
        pass

    def succeeded(self, route: str) -> None:
        pass

    def settle(self) -> None:
        pass

    def loss(self, route: str, trimmed: Sequence[ChatMessage]) -> int | None:
        return None


MEASURE_CACHE_LOSS: Final[BookkeepingFactory] = SentRequests
"""The default bookkeeping of every session: each trim's cache loss measured."""
