"""A price table: per model, USD (or the file's currency) per million tokens.

The file is YAML (``docs/prices.example.yaml`` is a dated example with its sources)::

    date: 2026-12-01
    currency: USD
    models:
      claude-sonnet-4-5: {input: 3.0, cached_input: 0.3, cache_write: 3.75, output: 15.0,
                          source: "https://..."}

``cache_write`` defaults to ``input`` (providers that do not charge writes apart bill them
as input). Every problem is reported as ``file:line: key.path: expected ..., found ...``
(``harness.cli.prices.load_prices``); the CLI exits 2 before running anything.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# The formula is telemetry's, so the summary and the cost metrics share it.
from harness.telemetry.pricing import PER_TOKENS, Usage, lost

__all__ = ["PER_TOKENS", "ModelPrice", "PriceTable", "Usage", "lost"]

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
