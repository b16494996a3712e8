"""Read a price table file (``harness.pricing.table``): YAML, every problem named
``file:line: key.path: expected ..., found ...`` as the scenario loader names them.

The file is read as a scenario file is (``harness.scenarios.loader``): a regular file only,
at most the loader's byte limit, UTF-8, YAML nodes counted and checked, duplicate keys
refused, so a price table has the same input contract as every other file trimscope reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from harness.pricing.table import PriceTable
from harness.runtime import HarnessError
from harness.scenarios.limits import DEFAULT_LIMITS, Limits
from harness.scenarios.loader import ScenarioError, locate, parse, read_text
from harness.scenarios.problems import found, validation_problems


class PricesError(HarnessError):
    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(problems))


def load_prices(path: Path, limits: Limits = DEFAULT_LIMITS) -> PriceTable:
    """The validated table; ``PricesError`` (and nothing else) names each problem."""
    try:
        root, data = parse(path, read_text(path, path, limits), limits, what="a price table")
    except ScenarioError as error:
        raise PricesError(list(error.problems)) from error
    if not isinstance(data, Mapping):
        raise PricesError([f"{path}:1: (top level): expected a mapping, found {found(data)}"])
    try:
        return PriceTable.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(PriceTable, exc, data, lambda loc: locate(root, loc))
        raise PricesError([f"{path}:{line}: {what}" for line, what in problems]) from exc


def read_pricing(path: Path | None, price_as: str | None) -> PriceTable | None:
    """``--prices`` and ``--price-as`` read and checked; ``ValueError`` says what is wrong."""
    if path is None:
        if price_as is not None:
            raise ValueError("--price-as needs --prices: there is no table to price with")
        return None
    try:
        table = load_prices(path)
    except PricesError as error:
        raise ValueError("\n".join(error.problems)) from error
    if price_as is not None and table.price(price_as) is None:
        known = ", ".join(sorted(table.models))
        raise ValueError(f"--price-as {price_as!r} is not in {path}; it has: {known}")
    return table
