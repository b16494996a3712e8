"""Scenario files: the schema, the loader (errors name file:line: key.path), the runner
against in-process fakes, the expectations and the reports."""

from harness.scenarios.expect import ExpectationFailed, check, run_counts
from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all, load_scenario
from harness.scenarios.runner import EventRecorder, ScenarioRun, run_scenario
from harness.scenarios.schema import Scenario

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
