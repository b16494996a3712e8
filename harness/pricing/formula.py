"""The one pricing formula: what reported usage costs at a model's rates per million tokens.

The run's summary (``harness.pricing.spend``) and the cost observer (``telemetry.cost``)
both price with it, so a dashboard's cost and a summary's cost cannot disagree. It is
stdlib-only, the one module of the pricing room telemetry may import (the architecture
table): the table file's reader needs pydantic and the scenario loader's input contract.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

PER_TOKENS: Final = 1_000_000


class Rates(Protocol):
    """A model's prices per ``PER_TOKENS`` tokens (``harness.pricing.table.ModelPrice``)."""

    @property
    def input(self) -> float: ...
    @property
    def cached_input(self) -> float: ...
    @property
    def write(self) -> float: ...
    @property
    def output(self) -> float: ...


PriceOf = Callable[[str | None], Rates | None]
"""A model name (``None`` when the event has none) to its rates, or ``None``: no price."""


def uncached_input(input_tokens: int, read: int, write: int) -> int:
    """The part of a call's reported input that is neither a cache read nor a cache write:
    the reported input includes both, and a provider that over-reports them never makes
    it negative. The one split the summary (``LoadTally``), the metrics (``trimscope_
    provider_input_tokens_total{cache=uncached}``, which a Locust summary reads) and the
    cost observer all count with."""
    return max(0, input_tokens - read - write)


@dataclass(frozen=True, slots=True)
class Usage:
    """Input tokens split by cache, and output tokens (one call's, or sums over calls)."""

    uncached: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0

    @classmethod
    def reported(cls, input_tokens: int, read: int, write: int, output: int) -> Usage:
        """One call's usage from the provider-reported fields (``uncached_input``)."""
        return cls(uncached_input(input_tokens, read, write), read, write, output)

    def parts(self, price: Rates) -> tuple[float, float, float, float]:
        """Cost of the uncached input, cache reads, cache writes and output, in order."""
        return (
            self.uncached * price.input / PER_TOKENS,
            self.cache_read * price.cached_input / PER_TOKENS,
            self.cache_write * price.write / PER_TOKENS,
            self.output * price.output / PER_TOKENS,
        )

    def cost(self, price: Rates) -> float:
        return sum(self.parts(price))

    def read_discount(self, price: Rates) -> float:
        """What the cache reads cost less than the same tokens sent uncached."""
        return self.cache_read * (price.input - price.cached_input) / PER_TOKENS

    def write_premium(self, price: Rates) -> float:
        """What the cache writes cost more than the same tokens sent uncached."""
        return self.cache_write * (price.write - price.input) / PER_TOKENS

    def saved(self, price: Rates) -> float:
        """What the cache saved against sending every input token uncached (writes that
        cost more than input count against it)."""
        return self.read_discount(price) - self.write_premium(price)

    def saved_and_premium(self, price: Rates) -> tuple[float, float]:
        """``saved`` as two amounts that are never negative, for counters (which only
        grow): a negative read discount (cached dearer than input) is a premium, a
        negative write premium a saving; the first minus the second is ``saved``."""
        discount, premium = self.read_discount(price), self.write_premium(price)
        return max(0.0, discount) + max(0.0, -premium), max(0.0, premium) + max(0.0, -discount)


def lost(tokens: int, price: Rates) -> float:
    """What ``tokens`` of lost cached prefix cost when sent again uncached instead."""
    return tokens * (price.input - price.cached_input) / PER_TOKENS
