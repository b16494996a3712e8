"""Shared by the dashboard tests: the committed JSON and the PromQL inside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dashboards import DEFAULT_OUT, PanelQuery, panel_queries

ROOT = Path(__file__).resolve().parents[2]


def committed() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text()) for p in sorted(DEFAULT_OUT.glob("*.json"))}


def all_queries() -> list[PanelQuery]:
    return [q for board in committed().values() for q in panel_queries(board)]


@pytest.fixture(scope="session")
def boards() -> dict[str, dict[str, Any]]:
    return committed()
