"""Read a price table file (``harness.load.prices``): YAML, every problem named
``file:line: key.path: expected ..., found ...`` as the scenario loader names them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness.load.prices import PriceTable
from harness.runtime import HarnessError
from harness.scenarios.loader import locate
from harness.scenarios.problems import duplicate_keys, found, validation_problems, yaml_problem


class PricesError(HarnessError):
    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(problems))


def _parse(path: Path, text: str) -> tuple[yaml.Node, Any]:
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            raise PricesError([f"{path}:1: (top level): expected a price table, the file is empty"])
        duplicates = list(duplicate_keys(root))
        if duplicates:
            loc, line, first = duplicates[0]
            raise PricesError(
                [f"{path}:{line}: {'.'.join(map(str, loc))}: duplicate key (first at line {first})"]
            )
        return root, loader.construct_document(root)
    except yaml.YAMLError as exc:
        line, message = yaml_problem(exc)
        raise PricesError([f"{path}:{line}: (yaml): {message}"]) from exc
    finally:
        loader.dispose()


def load_prices(path: Path) -> PriceTable:
    """The validated table; ``PricesError`` (and nothing else) names each problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PricesError([f"{path}:1: (file): cannot be read: {exc}"]) from exc
    root, data = _parse(path, text)
    if not isinstance(data, Mapping):
        raise PricesError([f"{path}:1: (top level): expected a mapping, found {found(data)}"])
    try:
        return PriceTable.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(PriceTable, exc, data, lambda loc: locate(root, loc))
        raise PricesError([f"{path}:{line}: {what}" for line, what in problems]) from exc
