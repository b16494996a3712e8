"""A request as a chain of prefixes at block boundaries (see ``fakes.simulations.caching``).

Boundary 0 is the tool schemas alone, boundary ``k`` the schemas and the first ``k`` rows.
Each boundary has a digest (a hash chain over the blocks: equal digests mean equal
prefixes) and a token count (the fake's own counter). Every cached call of a load run
pays for this chain, so it is built with as little Python per row as it can be: row
costs are looked up by plain tuples (hashed and compared in C; the content's hash, cached
on the string, is reused by the digest), and each boundary is a named tuple.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Final, NamedTuple

from fakes.counting.counters import TokenCounter
from fakes.rows import CanonicalRequest, Row


class Prefix(NamedTuple):
    """A boundary of a request: its digest chain value and cumulative tokens. A named
    tuple, not a dataclass: a request makes one per row, and a tuple is built in C."""

    boundary: int
    digest: int
    tokens: int


ROW_COST_CACHE_ENTRIES: Final = 65_536


class RowCosts:
    """Token counts of rows already seen, by ``(counter, role, content)``: a conversation
    re-sends its rows on every call, and counting them again would double the fake's
    work. Bounded: emptied when ``limit`` rows are held (the rows are kept as keys, so
    the bound is the fake's memory for it; a load fake sizes it to its sessions at once)."""

    def __init__(self, limit: int = ROW_COST_CACHE_ENTRIES) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self.limit = limit
        self._costs: dict[tuple[str, str, str], int] = {}

    def __len__(self) -> int:
        return len(self._costs)

    def of(self, counter: TokenCounter, rows: Sequence[Row]) -> list[int]:
        """Each row's cost, in order (one method call per request, not per row)."""
        name, table, out = counter.name, self._costs, []
        for row in rows:
            key = (name, row.role, row.content)
            cost = table.get(key)
            if cost is None:
                if len(table) >= self.limit:
                    table.clear()
                cost = table[key] = counter.count_rows((row,))
            out.append(cost)
        return out


_row_costs = RowCosts()
"""The default cache of ``prefixes`` (a store may bring its own, ``PrefixStore.row_costs``)."""


def counted_rows(counter: TokenCounter, rows: Sequence[Row], costs: RowCosts | None) -> int:
    """``counter.count_rows(rows)``, made of the cached row costs where the counter allows
    it (``TokenCounter.request_priming``): the fake counts each request whole, then its
    prefix chain needs each row's cost; tokenizing every row for the count, then each new
    row again for the chain, was most of what caching cost a load fake (issue 28). The
    same number either way (tests/fakes/test_row_cost_count.py checks it on random rows)."""
    priming = counter.request_priming
    if priming is None or not rows:
        return counter.count_rows(rows)
    table = _row_costs if costs is None else costs
    return sum(table.of(counter, rows)) - priming * (len(rows) - 1)


UNCOUNTED_BLOCKS_OPTION: Final = "uncounted_blocks"
"""``CanonicalRequest.options`` key: by boundary, blocks a row's message carried that are
not rows (Anthropic thinking): part of the cached prefix, never of the count."""


def prefixes(
    counter: TokenCounter,
    request: CanonicalRequest,
    total: int,
    costs: RowCosts | None = None,
    tools: int | None = None,
) -> tuple[Prefix, ...]:
    """Every boundary of ``request``: digest chain and cumulative tokens (capped by
    ``total``, the request's own count, which the last boundary reaches exactly). Blocks
    that are not rows (``UNCOUNTED_BLOCKS_OPTION``) enter the digest at their row's
    boundary, so clearing them is a miss from there on. ``costs``: the row-cost cache;
    ``tools``: the tools' count when the caller has it (else counted again)."""
    rows = request.rows
    if tools is None:
        tools = counter.count_tools(request.tools)
    schemas = tuple((t.name, t.description, repr(t.parameters)) for t in request.tools)
    digest = hash(("tools", schemas))
    out = [Prefix(0, digest, min(tools, total))]
    extra = request.options.get(UNCOUNTED_BLOCKS_OPTION)
    uncounted = extra if isinstance(extra, Mapping) else {}
    # ``is None``, not ``or``: an empty cache is falsy (``__len__``), and ``or`` sent every
    # request of a store with its own (bounded) cache to the process-wide one (issue 28)
    table = _row_costs if costs is None else costs
    running = accumulate(table.of(counter, rows), initial=tools)
    next(running)  # the tools alone: boundary 0, above
    for k, (row, tokens) in enumerate(zip(rows, running, strict=True), start=1):
        blocks = uncounted.get(k) if uncounted else None
        if blocks is None:
            digest = hash((digest, row.role, row.content))
        else:
            digest = hash((digest, row.role, row.content, blocks))
        out.append(Prefix(k, digest, tokens if tokens < total else total))
    last = out[-1]
    out[-1] = Prefix(last.boundary, last.digest, total)
    return tuple(out)
