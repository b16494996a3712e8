"""Habit 4: every observer ``match``es every event kind and ends in ``assert_never``.

Read from the source, so a new event kind fails here until each observer handles it (or
lists it as ignored) — the reference's ``_ => {}`` is how its observers missed trims.
"""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

import pytest

from harness.events import EVENT_KINDS
from harness.telemetry import otel, prom, transcript

OBSERVERS: list[tuple[ModuleType, str, str]] = [
    (otel, "OtelObserver", "_dispatch"),
    (prom, "PrometheusObserver", "_dispatch"),
    (transcript, "TranscriptWriter", "on_event"),
]


def _pattern_names(pattern: ast.pattern) -> set[str]:
    if isinstance(pattern, ast.MatchClass) and isinstance(pattern.cls, ast.Name):
        return {pattern.cls.id}
    if isinstance(pattern, ast.MatchOr):
        return set().union(*(_pattern_names(p) for p in pattern.patterns))
    return set()


def _match_of(module: ModuleType, cls: str, method: str) -> ast.Match:
    tree = ast.parse(inspect.getsource(module))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    return next(m for m in ast.walk(item) if isinstance(m, ast.Match))
    raise AssertionError(f"{cls}.{method} has no match statement")


@pytest.mark.parametrize(
    ("module", "cls", "method"), OBSERVERS, ids=[cls for _, cls, _ in OBSERVERS]
)
def test_observer_matches_every_kind_and_ends_in_assert_never(
    module: ModuleType, cls: str, method: str
) -> None:
    match = _match_of(module, cls, method)
    handled = set().union(*(_pattern_names(case.pattern) for case in match.cases[:-1]))
    assert handled == {kind.__name__ for kind in EVENT_KINDS}
    last = match.cases[-1]
    assert isinstance(last.pattern, ast.MatchAs)
    assert last.pattern.pattern is None  # ``case _:``
    (statement,) = last.body
    assert isinstance(statement, ast.Expr)
    assert isinstance(statement.value, ast.Call)
    assert isinstance(statement.value.func, ast.Name)
    assert statement.value.func.id == "assert_never"
