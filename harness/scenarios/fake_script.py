"""A fake's script file (``trimscope fake serve --script FILE``), read like a scenario file.

The format is a scenario's ``fake.script`` and ``fake.default``, on their own::

    steps:                      # call N answers with steps[N-1] ...
      - {text: "looking", tool_calls: [{name: read_file, arguments: {path: a.txt}}]}
      - fault: {kind: rate_limit, retry_after: 3}
      - {when: {contains: "Summarize"}, text: "summary"}  # ... a when step, its request
    default: {text: "done"}     # ... and every call after the steps with this
    fault_rates: {rate_limit: 0.05, server_error: 0.02, seed: 7}  # faults at a rate

A step is exactly a scenario's fake step (``StepSpec``), so unknown keys, wrong types
and the loader's limits are refused the same way, as ``file:line: key.path: ...``.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import Field, ValidationError, model_validator

import fakes
from harness.scenarios.environment import fake_behaviour
from harness.scenarios.fake_spec import StepSpec, _Strict, refuse_default_when
from harness.scenarios.fault_rates_spec import FaultRatesSpec, fault_rate_problems
from harness.scenarios.limits import DEFAULT_LIMITS, Limits, step_problems
from harness.scenarios.loader import ScenarioError, locate, parse, read_text
from harness.scenarios.problems import dotted, found, validation_problems
from harness.scenarios.vocabulary import Loc


class FakeScriptFile(_Strict):
    """The whole file: the steps in call order, and the step for every later call."""

    steps: list[StepSpec] = Field(default_factory=list)
    default: StepSpec = StepSpec()
    fault_rates: FaultRatesSpec | None = None

    @model_validator(mode="after")
    def _default_answers_any(self) -> FakeScriptFile:
        refuse_default_when(self.default)
        return self


def _problems(path: Path, root: yaml.Node, located: list[tuple[Loc, str]]) -> ScenarioError:
    lines = sorted((locate(root, loc), f"{dotted(loc)}: {what}") for loc, what in located)
    return ScenarioError([f"{path}:{line}: {what}" for line, what in lines])


def load_fake_script(path: Path, limits: Limits = DEFAULT_LIMITS) -> fakes.FakeScript:
    """The script, or ``ScenarioError`` listing every problem of the file."""
    root, data = parse(path, read_text(path, path, limits), limits, what="a script mapping")
    if not isinstance(data, dict):
        raise _problems(path, root, [((), f"expected a script mapping, found {found(data)}")])
    try:
        spec = FakeScriptFile.model_validate(data)
    except ValidationError as exc:
        lines = validation_problems(FakeScriptFile, exc, data, lambda loc: locate(root, loc))
        raise ScenarioError([f"{path}:{line}: {what}" for line, what in lines]) from exc
    beyond = [
        problem
        for loc, step in [
            *((("steps", i), s) for i, s in enumerate(spec.steps)),
            (("default",), spec.default),
        ]
        for problem in step_problems(loc, step, limits)
    ]
    beyond += fault_rate_problems(("fault_rates",), spec.fault_rates, limits.fault_seconds)
    if beyond:
        raise _problems(path, root, beyond)
    return fakes.FakeScript(
        tuple(fake_behaviour(step) for step in spec.steps),
        fake_behaviour(spec.default),
        spec.fault_rates.rates() if spec.fault_rates else None,
    )
