"""The command layer's house rules (issue 26): one exit-code enum, commands registered one
way as module-level functions (function and module sizes: ``tests/test_house_sizes.py``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from harness.cli.lazy import COMMANDS
from harness.exit_codes import ExitCode

ROOT = Path(__file__).resolve().parents[2]
EXIT_CODE_VALUES = range(4)


def test_exit_codes_keep_their_documented_numbers() -> None:
    assert [int(code) for code in ExitCode] == [0, 1, 2, 3]
    assert ExitCode["UNWRITTEN"] is ExitCode.FAILED  # an alias, not a value of its own
    assert (ExitCode.CONFORMS, ExitCode.DOES_NOT_CONFORM, ExitCode.UNUSABLE) == (0, 1, 2)


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _assigned(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """The names an assignment binds, each with its value (``A, B = 0, 1`` gives two)."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return []
    pairs = []
    for target in targets:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            pairs += list(zip(target.elts, value.elts, strict=False))
        else:
            pairs.append((target, value))
    return [(name.id, item) for name, item in pairs if isinstance(name, ast.Name)]


def _exit_constants(path: Path, root: Path = ROOT) -> list[str]:
    """``EXIT_SOMETHING = 2`` (an exit code as a constant of its own) in ``path``."""
    return [
        f"{path.relative_to(root)}:{item.lineno} {name}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for name, item in _assigned(node)
        if name.startswith("EXIT_")
        and isinstance(item, ast.Constant)
        and type(item.value) is int
        and item.value in EXIT_CODE_VALUES
    ]


def test_exit_codes_are_declared_once() -> None:
    assert [hit for path in _modules("harness") for hit in _exit_constants(path)] == []


def test_the_exit_constant_finder_finds_one(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "EXIT_OK, EXIT_FAILED = 0, 1\nEXIT_POLL_S = 0.01\nEXIT_INVALID: int = 2\n",
        encoding="utf-8",
    )
    found = [hit.split()[-1] for hit in _exit_constants(module, tmp_path)]
    assert found == ["EXIT_OK", "EXIT_FAILED", "EXIT_INVALID"]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_commands_are_module_level_functions_that_register_adds(name: str) -> None:
    """One way: ``register`` adds module-level functions; it defines none itself."""
    module = importlib.import_module(COMMANDS[name][0])
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    register = next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "register"
    )
    nested = [
        node.name
        for node in ast.walk(register)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node is not register
    ]
    assert nested == [], f"{name}: register() defines {nested}"
