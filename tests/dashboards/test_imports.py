"""The architecture table: ``dashboards`` imports only ``harness.telemetry.names`` of the
harness (plus the Grafana SDK and the standard library)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import dashboards

PACKAGE = Path(dashboards.__file__).resolve().parent
ALLOWED_HARNESS = {"harness.telemetry.names"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_dashboards_import_only_names_of_the_harness(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        if top == "harness":
            assert name in ALLOWED_HARNESS, f"{path.name} imports {name}"
        else:
            assert top in {"dashboards", "grafana_foundation_sdk", "__future__"} or (
                top in sys.stdlib_module_names
            ), f"{path.name} imports {name}"


@pytest.mark.parametrize("module", ["dashboards", "harness.telemetry"])
def test_public_surface_is_explicit(module: str) -> None:
    package = sys.modules[module] if module in sys.modules else __import__(module, fromlist=["_"])
    exported = package.__all__
    assert exported == sorted(exported)
    assert all(hasattr(package, name) for name in exported)
