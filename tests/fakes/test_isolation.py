"""House rules: ``fakes`` never imports ``harness``; the public surface is explicit."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import fakes

FAKES = Path(fakes.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_module_under_fakes_imports_harness() -> None:
    offenders = {
        str(path.relative_to(FAKES)): sorted(
            n for n in _imported_modules(path) if n == "harness" or n.startswith("harness.")
        )
        for path in FAKES.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) > 10  # the walk did see the package


def test_public_names_are_listed_and_importable() -> None:
    assert sorted(fakes.__all__) == sorted(set(fakes.__all__))
    for name in fakes.__all__:
        assert hasattr(fakes, name), name
    public = {n for n in vars(fakes) if not n.startswith("_")}
    modules = {n for n in public if isinstance(getattr(fakes, n), type(importlib))}
    assert public - modules - set(fakes.__all__) == set()


def test_modules_stay_small() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in FAKES.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 400} == {}
