"""House rule (issue 26): no module over 400 lines and no function over 60 lines in
``harness/``, ``fakes/`` and ``bench/``: a module that outgrows it holds more than one
concept, a function that does holds steps that want names."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("harness", "fakes", "bench")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
WAITING_FOR_A_BRANCH: dict[str, str] = {}
"""Modules another branch is bringing under the limit; each entry must still be over it
(``test_no_exception_outlives_its_reason``), so the list empties itself once merged."""


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def long_modules(paths: list[Path], root: Path = ROOT) -> list[str]:
    return [
        f"{path.relative_to(root)} {_lines(path)}"
        for path in paths
        if _lines(path) > MAX_MODULE_LINES
    ]


def long_functions(paths: list[Path], root: Path = ROOT) -> list[str]:
    """Every function or method over the limit, decorators included, nested ones too."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or start) - start + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} {lines}")
    return found


def test_no_module_is_over_400_lines() -> None:
    waiting = [f"{name} {_lines(ROOT / name)}" for name in WAITING_FOR_A_BRANCH]
    assert [hit for hit in long_modules(_modules()) if hit not in waiting] == []


def test_no_exception_outlives_its_reason() -> None:
    assert [name for name in WAITING_FOR_A_BRANCH if _lines(ROOT / name) <= MAX_MODULE_LINES] == []


def test_no_function_is_over_60_lines() -> None:
    assert long_functions(_modules()) == []


def test_the_finders_find_a_long_module_and_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(
        f"@staticmethod\ndef long():\n{body}\n\n\nasync def short():\n    pass\n", encoding="utf-8"
    )
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1), encoding="utf-8")
    (tmp_path / "fits.py").write_text("x = 1\n" * MAX_MODULE_LINES, encoding="utf-8")
    paths = sorted(tmp_path.glob("*.py"))
    assert long_modules(paths, tmp_path) == [f"big.py {MAX_MODULE_LINES + 1}"]
    assert long_functions(paths, tmp_path) == [f"long.py:2 long {MAX_FUNCTION_LINES + 2}"]
