"""Which counter stood behind the endpoint's token figures (issue 25).

A trimscope fake names the counter it used on every answer, in words (``COUNTER_HEADER``,
worded by ``fakes.counter_label``: ``o200k_base (exact)``, ``heuristic (estimate: ...)``),
so the report says what the fake counted with, not what it was asked for. A real endpoint
names none: its figures are its own tokenizer's. The header's name is written here and in
``fakes.counting.counters`` (this package probes real endpoints and never imports the
fakes); a test keeps the two equal.
"""

from __future__ import annotations

from typing import Final

import httpx

COUNTER_HEADER: Final = "x-trimscope-fake-counter"
ENDPOINT_OWN: Final = "the endpoint's own (no counter header: not a trimscope fake)"
MAX_LABEL: Final = 120
"""Characters of a header's value kept (a fake's label is shorter)."""
MAX_LABELS: Final = 4
"""Distinct labels kept (one fake uses one counter; an endpoint sending more is not one)."""


class CountersSeen:
    """An ``httpx`` response hook keeping the counter labels the endpoint's answers gave."""

    def __init__(self) -> None:
        self.labels: set[str] = set()

    async def __call__(self, response: httpx.Response) -> None:
        value = response.headers.get(COUNTER_HEADER)
        if value is not None and len(self.labels) < MAX_LABELS:
            self.labels.add("".join(c for c in value[:MAX_LABEL] if c.isprintable()))

    @property
    def label(self) -> str:
        """The fake's own words for its counter, or ``ENDPOINT_OWN``."""
        return "; ".join(sorted(self.labels)) or ENDPOINT_OWN
