"""Cache loss: what a trim costs the provider's prompt cache.

Providers cache the prefix of what was sent; a trim rewrites the front of the history, so
the next request shares less of it. For each trim, the loss is the estimated tokens of
the route's last *successful* request (the prefix a provider could have cached: a refused
request caches nothing) that the trimmed history no longer starts with:
``estimate(last) - estimate(common leading rows of last and trimmed)``. Tool schemas come
first in both and cancel out. Nothing sent yet on the route: nothing to lose (0).

It is a property of the history, not of a provider: the fakes' reported cache reads show
what a given provider actually kept (its minimum lengths, lifetimes, breakpoints).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.runtime import ChatMessage, estimate_history_tokens


def common_prefix_length(a: Sequence[ChatMessage], b: Sequence[ChatMessage]) -> int:
    """How many leading rows ``a`` and ``b`` share (rows re-rendered equal count)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x is not y and x != y:
            break
        n += 1
    return n


def lost_prefix_tokens(last: Sequence[ChatMessage], trimmed: Sequence[ChatMessage]) -> int:
    kept = common_prefix_length(last, trimmed)
    if kept == len(last):
        return 0
    return estimate_history_tokens(list(last)) - estimate_history_tokens(list(last[:kept]))


@dataclass(slots=True)
class SentRequests:
    """Per route: the rows of the request in flight, and of the last one that succeeded."""

    _pending: dict[str, tuple[ChatMessage, ...]] = field(default_factory=dict)
    _sent: dict[str, tuple[ChatMessage, ...]] = field(default_factory=dict)

    def started(self, route: str, rows: Sequence[ChatMessage]) -> None:
        self._pending[route] = tuple(rows)

    def succeeded(self, route: str) -> None:
        rows = self._pending.pop(route, None)
        if rows is not None:
            self._sent[route] = rows

    def loss(self, route: str, trimmed: Sequence[ChatMessage]) -> int:
        last = self._sent.get(route)
        return lost_prefix_tokens(last, trimmed) if last else 0
