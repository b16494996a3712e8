"""A price table: per model, USD (or the file's currency) per million tokens.

The file is YAML (``docs/prices.example.yaml`` is a dated example with its sources)::

    date: 2026-12-01
    currency: USD
    models:
      claude-sonnet-4-5: {input: 3.0, cached_input: 0.3, cache_write: 3.75, output: 15.0,
                          source: "https://..."}

``cache_write`` defaults to ``input`` (providers that do not charge writes apart bill them
as input). Every problem is reported as ``file:line: key.path: expected ..., found ...``
(``harness.pricing.reading.load_prices``); the CLI exits 2 before running anything.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from harness.pricing.formula import PriceOf

Price = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: Price
    cached_input: Price
    output: Price
    cache_write: Price | None = None
    source: str | None = None

    @property
    def write(self) -> float:
        return self.input if self.cache_write is None else self.cache_write


class PriceTable(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    date: dt.date
    currency: str = "USD"
    models: dict[str, ModelPrice] = Field(min_length=1)

    def price(self, model: str) -> ModelPrice | None:
        return self.models.get(model)


def price_lookup(table: PriceTable, price_as: str | None = None) -> PriceOf:
    """The cost observer's lookup: each call's model priced by its own entry, or every
    call as ``price_as`` (``--price-as``: the fakes' model names are not providers')."""

    def price_of(model: str | None) -> ModelPrice | None:
        name = price_as or model
        return table.price(name) if name else None

    return price_of
