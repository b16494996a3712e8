"""Shared by the dashboard tests: the committed JSON and the PromQL inside it, the committed
alerting rules, and the Prometheus programs the integration tests need."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from dashboards import DEFAULT_ALERTS, DEFAULT_OUT, PanelQuery, panel_queries

ROOT = Path(__file__).resolve().parents[2]


def committed() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text()) for p in sorted(DEFAULT_OUT.glob("*.json"))}


def all_queries() -> list[PanelQuery]:
    return [q for board in committed().values() for q in panel_queries(board)]


@dataclass(frozen=True, slots=True)
class AlertRule:
    name: str
    expr: str
    rule: dict[str, Any]


def alert_rules(path: Path = DEFAULT_ALERTS) -> list[AlertRule]:
    """Every alerting rule of the committed rule file, in file order."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        AlertRule(str(rule["alert"]), str(rule["expr"]), rule)
        for group in document["groups"]
        for rule in group["rules"]
    ]


def require_program(name: str) -> str:
    """The path of ``name``; skip when it is missing, except under CI (``CI=true``), where
    the test fails: CI must run the Prometheus tests."""
    found = shutil.which(name)
    if found:
        return found
    message = (
        f"`{name}` not found: install Debian's `prometheus` package "
        "(scripts/ensure-system-deps.sh does it when run as root)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must run the Prometheus tests")
    pytest.skip(message)


@pytest.fixture(scope="session")
def boards() -> dict[str, dict[str, Any]]:
    return committed()
