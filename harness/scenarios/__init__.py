"""Scenario files: the schema, the loader (errors name file:line: key.path), the runner
against in-process fakes, the expectations and the reports.

The names below are imported on first use (PEP 562): ``trimscope validate`` needs the
loader only, and importing the runner would pull in the agent, the provider clients and
the in-process fakes for nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.scenarios.expect import ExpectationFailed, check, run_counts
    from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all, load_scenario
    from harness.scenarios.runner import EventRecorder, ScenarioRun, run_scenario
    from harness.scenarios.schema import Scenario

_HOME = {
    "EventRecorder": "runner",
    "ExpectationFailed": "expect",
    "LoadedScenario": "loader",
    "Scenario": "schema",
    "ScenarioError": "loader",
    "ScenarioRun": "runner",
    "check": "expect",
    "load_all": "loader",
    "load_scenario": "loader",
    "run_counts": "expect",
    "run_scenario": "runner",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


__all__ = [
    "EventRecorder",
    "ExpectationFailed",
    "LoadedScenario",
    "Scenario",
    "ScenarioError",
    "ScenarioRun",
    "check",
    "load_all",
    "load_scenario",
    "run_counts",
    "run_scenario",
]
