"""Cache loss: what a trim costs the provider's prompt cache.

Providers cache the prefix of what was sent; a trim rewrites the front of the history, so
the next request shares less of it. For each trim, the loss is the estimated tokens of
the route's last *successful* request (the prefix a provider could have cached: a refused
request caches nothing) that the trimmed history no longer starts with:
``estimate(last) - estimate(common leading rows of last and trimmed)``. Tool schemas come
first in both and cancel out. Nothing sent yet on the route: nothing to lose (0).

Only what that needs is kept of a request, not its rows: an idle session would otherwise
keep a rendered copy of its last request alive (3× its history's text, issue 16). Kept:
the request's estimate, and 9 bytes a row (``RowKeys``: its content's hash, its role):
equal rows have equal keys, so the common leading rows are found on the keys, and those
rows being equal row for row, ``estimate(last[:kept])`` is ``estimate(trimmed[:kept])``.
Two different contents with the same 64-bit keyed hash at the same place would count as
shared: a chance of about 2⁻⁶⁴ per row compared.

It is a property of the history, not of a provider: the fakes' reported cache reads show
what a given provider actually kept (its minimum lengths, lifetimes, breakpoints).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter

from harness.runtime import ChatMessage, estimate_history_tokens
from harness.runtime.estimate import current_turn_start, row_costs

_CONTENT, _ROLE = attrgetter("content"), attrgetter("role")
_ROLE_CODES = {"system": 0, "user": 1, "assistant": 2, "tool": 3}  # spec 1's four roles
_OTHER_ROLE = 255


@dataclass(frozen=True, slots=True)
class RowKeys:
    """What identifies each row of a request, compactly: its content's hash (a string
    remembers its hash, so a row sent again is not hashed again) and a byte for its role.
    Equal rows have equal keys; a row of another role hashes its role in."""

    hashes: array[int]
    roles: bytes

    @classmethod
    def of(cls, rows: Sequence[ChatMessage]) -> RowKeys:
        hashes = array("q", list(map(hash, map(_CONTENT, rows))))  # a list fills it faster
        try:
            roles = bytes(map(_ROLE_CODES.__getitem__, map(_ROLE, rows)))
        except KeyError:  # a role outside the four: its name goes into the row's hash
            roles = bytes(map(_ROLE_CODES.get, map(_ROLE, rows), repeat(_OTHER_ROLE)))
            for index in [i for i, code in enumerate(roles) if code == _OTHER_ROLE]:
                hashes[index] = hash((rows[index].role, rows[index].content))
        return cls(hashes, roles)

    def __len__(self) -> int:
        return len(self.roles)

    def starts(self, other: RowKeys) -> bool:
        """Whether these rows start with ``other``'s."""
        n = len(other)
        return self.roles[:n] == other.roles and self.hashes[:n] == other.hashes

    def shared(self, other: RowKeys) -> int:
        """How many leading rows these and ``other``'s share."""
        if self.starts(other) or other.starts(self):  # the usual case: one extends the other
            return min(len(self), len(other))
        pairs = zip(self.hashes, self.roles, other.hashes, other.roles, strict=False)
        return next(i for i, (h, r, g, s) in enumerate(pairs) if h != g or r != s)


def _tokens(rows: Sequence[ChatMessage], older: bool) -> int:
    """Every row priced as an older row, or as a row of the current turn."""
    return sum(row_costs(rows, len(rows) if older else 0))


@dataclass(frozen=True, slots=True)
class Sent:
    """What the cache loss needs of one request: its estimate and its rows' keys."""

    tokens: int
    """``estimate_history_tokens`` of the request."""
    older_tokens: int
    """Every row priced as an older row: unlike ``tokens`` a plain sum over rows, so a
    request that extends the previous one adds only its new rows' costs."""
    keys: RowKeys

    @classmethod
    def of(cls, rows: Sequence[ChatMessage], previous: Sent | None = None) -> Sent:
        """The request ``rows``. With ``previous`` (an earlier request of the route), its
        sum is reused when ``rows`` starts with its rows: per call, the keys' C-level
        passes and the new rows' costs, not a second estimate of the whole history
        (measured in docs/decisions.md)."""
        keys = RowKeys.of(rows)
        start, older = 0, 0
        if previous is not None and keys.starts(previous.keys):
            start, older = len(previous.keys), previous.older_tokens
        older += _tokens(rows[start:], older=True)
        # The estimate prices the current turn's rows (from its anchor) as current rows.
        tail = rows[current_turn_start(rows) :]
        tokens = older - _tokens(tail, older=True) + _tokens(tail, older=False)
        return cls(tokens, older, keys)

    def lost(self, trimmed: Sequence[ChatMessage]) -> int:
        """Tokens of this request that ``trimmed`` no longer starts with."""
        kept = self.keys.shared(RowKeys.of(trimmed[: len(self.keys)]))
        if kept == len(self.keys):
            return 0
        return self.tokens - estimate_history_tokens(trimmed[:kept])


@dataclass(slots=True)
class SentRequests:
    """Per route: the request in flight, and the last one that succeeded (as ``Sent``;
    taken when a request starts, so not even a refused request's rows are kept)."""

    _pending: dict[str, Sent] = field(default_factory=dict)
    _sent: dict[str, Sent] = field(default_factory=dict)

    def started(self, route: str, rows: Sequence[ChatMessage]) -> None:
        previous = self._pending.get(route) or self._sent.get(route)
        self._pending[route] = Sent.of(rows, previous)

    def succeeded(self, route: str) -> None:
        sent = self._pending.pop(route, None)
        if sent is not None:
            self._sent[route] = sent

    def loss(self, route: str, trimmed: Sequence[ChatMessage]) -> int:
        last = self._sent.get(route)
        return 0 if last is None else last.lost(trimmed)
