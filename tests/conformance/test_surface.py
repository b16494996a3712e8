"""The package's public surface, its imports, and the command's registration."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app

PACKAGE = Path(importlib.import_module("harness.conformance").__file__ or "").parent
ALLOWED = {
    "harness.conformance",
    "harness.providers",
    "harness.agent",
    "harness.runtime",
    "harness.events",
    "harness.atomic",  # stdlib-only: report files written atomically
    "harness.exit_codes",  # stdlib-only: the one ExitCode enum (CONFORMS, DOES_NOT_CONFORM)
    "httpx",
    "rich",
}
"""Providers and the agent (the recovery session) and what they stand on. Never ``fakes``:
the command probes real endpoints; the fakes are only what the tests point it at."""


def test_all_is_declared_unique_and_resolves() -> None:
    module = importlib.import_module("harness.conformance")
    exported = module.__all__
    assert len(exported) == len(set(exported))
    assert [name for name in exported if not hasattr(module, name)] == []


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_imports_stay_inside_the_architecture_row() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in sorted(PACKAGE.glob("*.py")):
        for name in _imports(path):
            allowed = name.split(".")[0] in stdlib or any(
                name == a or name.startswith(a + ".") for a in ALLOWED
            )
            assert allowed, f"{path.name} imports {name}"


def test_modules_stay_small() -> None:
    for path in PACKAGE.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) < 400, path.name


def test_command_is_registered() -> None:
    result = CliRunner().invoke(app, ["conformance", "--help"])
    assert result.exit_code == 0
    for option in ("--provider", "--base-url", "--model", "--api-key-env", "--json"):
        assert option in result.stdout
