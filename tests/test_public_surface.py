"""Every package states its public surface in ``__all__`` (habit 9), and it resolves."""

from __future__ import annotations

import importlib

import pytest

from harness.providers import ContextWindowExceeded, ProviderError, ProviderProtocolError
from harness.runtime import ContextCapacityExceeded, HarnessError
from harness.scenarios import ExpectationFailed, ScenarioError

PACKAGES = [
    "harness.runtime",
    "harness.events",
    "harness.providers",
    "harness.agent",
    "harness.telemetry",
    "harness.scenarios",
    "fakes",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_declared_unique_and_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported, f"{name} exports nothing"
    assert len(exported) == len(set(exported)), f"{name} lists a name twice"
    missing = [item for item in exported if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


def test_the_exception_tree_has_one_root() -> None:
    """Habit 8: every error trimscope raises on purpose derives from HarnessError."""
    for error in (
        ProviderError,
        ContextWindowExceeded,
        ProviderProtocolError,
        ContextCapacityExceeded,
        ScenarioError,
        ExpectationFailed,
    ):
        assert issubclass(error, HarnessError)
