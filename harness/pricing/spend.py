"""What a run's prompts cost: cache use, cache loss and, with a price table, money.

Figures come from the provider-reported usage of calls (a ``Spend``: an asyncio run's
``LoadTally``, or a Locust run's aggregated metrics, ``harness.load.registry_spend``):
input split into cache reads, cache writes and the rest, and output. The hit ratio is
reads over all reported input. Cache loss is the sum of ``HistoryTrimmed.cache_loss_tokens``
(see ``harness.agent.cache_loss``). Cost needs a price for every model called: the
model's own entry, or the one ``price_as`` names (the fakes' model names are not
providers'); otherwise it is left out and a note says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from harness.pricing.formula import Usage, lost
from harness.pricing.table import PriceTable
from harness.sketch import Sketch


class Tally(Protocol):
    """What ``Spend.of`` reads from a run's counts (``harness.load.tally.LoadTally``)."""

    @property
    def usage(self) -> Mapping[str, Sequence[int]]: ...
    @property
    def cache_loss(self) -> Mapping[str, int]: ...
    @property
    def request_tokens(self) -> Sketch: ...


@dataclass(frozen=True, slots=True)
class Spend:
    """What a run's calls reported, however it was counted: the input of ``cache_summary``
    and ``cost_summary``, so both modes' sections are computed by the same code."""

    usage: Mapping[str, Usage]
    """Per model: reported input split by cache, and output."""
    cache_loss: Mapping[str, int]
    """``HistoryTrimmed.cache_loss_tokens`` summed per trigger (a trigger whose trims all
    lost 0 is kept, at 0)."""
    request_tokens: Sketch | None
    """The calls' reported input sizes; ``None`` when the run did not keep them (Locust)."""

    @classmethod
    def of(cls, tally: Tally) -> Spend:
        return cls(
            usage={model: Usage(*totals) for model, totals in tally.usage.items()},
            cache_loss=dict(tally.cache_loss),
            request_tokens=tally.request_tokens,
        )


@dataclass(frozen=True, slots=True)
class CacheSummary:
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    uncached_tokens: int
    output_tokens: int
    hit_ratio: float
    cache_loss_tokens: dict[str, int]
    cache_loss_per_session: float
    input_tokens_per_session: float
    request_tokens_p50: float | None
    request_tokens_p95: float | None


@dataclass(frozen=True, slots=True)
class CostSummary:
    currency: str
    prices_date: str
    priced_as: dict[str, str]
    total: float
    per_session: float
    cache_saved: float
    cache_lost: float


def cache_summary(spend: Spend, sessions: int) -> CacheSummary:
    """The cache section. Request-size quantiles are ``None`` when no call reported input
    or when the sizes were not kept (``Spend.request_tokens``)."""
    usages = list(spend.usage.values())
    read = sum(u.cache_read for u in usages)
    write = sum(u.cache_write for u in usages)
    uncached = sum(u.uncached for u in usages)
    total = read + write + uncached
    loss = dict(sorted(spend.cache_loss.items()))
    per = max(1, sessions)
    sizes = spend.request_tokens or Sketch()
    return CacheSummary(
        input_tokens=total,
        cache_read_tokens=read,
        cache_write_tokens=write,
        uncached_tokens=uncached,
        output_tokens=sum(u.output for u in usages),
        hit_ratio=round(read / total, 4) if total else 0.0,
        cache_loss_tokens=loss,
        cache_loss_per_session=round(sum(loss.values()) / per, 2),
        input_tokens_per_session=round(total / per, 2),
        request_tokens_p50=sizes.quantile(0.5),
        request_tokens_p95=sizes.quantile(0.95),
    )


def cost_summary(
    spend: Spend, sessions: int, prices: PriceTable, price_as: str | None = None
) -> tuple[CostSummary | None, str | None]:
    """The run's cost, or ``None`` and a note naming the model without a price."""
    priced_as: dict[str, str] = {}
    total = saved = 0.0
    for model, usage in sorted(spend.usage.items()):
        name = price_as or model
        price = prices.price(name)
        if price is None:
            return None, f"no cost: the price table has no model {name!r} (see --price-as)"
        priced_as[model] = name
        total += usage.cost(price)
        saved += usage.saved(price)
    lost_total = 0.0
    if spend.usage:
        # cache loss is not kept per model: price it at the first model's rates
        first = prices.price(price_as or min(spend.usage))
        assert first is not None
        lost_total = lost(sum(spend.cache_loss.values()), first)
    per = max(1, sessions)
    return (
        CostSummary(
            currency=prices.currency,
            prices_date=prices.date.isoformat(),
            priced_as=priced_as,
            total=round(total, 6),
            per_session=round(total / per, 6),
            cache_saved=round(saved, 6),
            cache_lost=round(lost_total, 6),
        ),
        None,
    )
