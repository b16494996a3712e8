"""How big a scenario file may be, and what it may ask a run to do: every bound the loader
enforces before any work starts, each a named default that ``--limit NAME=N`` raises.

A scenario file is input people write by hand or generate; a typo (``repeat: 2000000000``)
or a hostile file (a billion-laughs anchor) must be an input error within seconds and
bounded memory, never a hang or gigabytes. The defaults are far above what the library
uses (its largest file is a few KiB, its longest conversation 300 turns), so only a
mistake or an attack reaches them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from harness.scenarios.fake_spec import StepSpec
from harness.scenarios.fault_rates_spec import fault_rate_problems
from harness.scenarios.schema import ConversationStep, Scenario, all_steps
from harness.scenarios.vocabulary import Loc

DEFAULT_MAX_FILE_BYTES = 1_048_576  # 1 MiB: read at most this much of a file
DEFAULT_MAX_YAML_NODES = 100_000  # nodes once every alias is expanded (billion laughs)
DEFAULT_MAX_DEPTH = 64  # nested mappings and lists
DEFAULT_MAX_TURNS = 10_000  # conversation steps once every repeat is expanded
DEFAULT_MAX_TOOLS = 256  # tools declared, and tool calls in one scripted step
DEFAULT_MAX_TOOL_OUTPUT_CHARS = 1_000_000  # one tool result: len(output) x repeat
DEFAULT_MAX_FAULT_SECONDS = 600.0  # a scripted hang
DEFAULT_MAX_LATENCY_MS = 600_000  # a scripted answer delay
# Not adjustable: every integer of the format fits the reference runtime's 64-bit counters.
MAX_INTEGER = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Limits:
    """The loader's bounds; ``Limits()`` is the documented default set."""

    file_bytes: int = DEFAULT_MAX_FILE_BYTES
    yaml_nodes: int = DEFAULT_MAX_YAML_NODES
    depth: int = DEFAULT_MAX_DEPTH
    turns: int = DEFAULT_MAX_TURNS
    tools: int = DEFAULT_MAX_TOOLS
    tool_output_chars: int = DEFAULT_MAX_TOOL_OUTPUT_CHARS
    fault_seconds: float = DEFAULT_MAX_FAULT_SECONDS
    latency_ms: int = DEFAULT_MAX_LATENCY_MS

    def with_overrides(self, overrides: Mapping[str, Any]) -> Limits:
        """These limits with some replaced (values as ``parse_limit`` returns them)."""
        return replace(self, **overrides)


DEFAULT_LIMITS = Limits()
LIMIT_NAMES = tuple(f.name for f in fields(Limits))


def parse_limit(text: str) -> tuple[str, float]:
    """``NAME=N`` of ``--limit``; raises ``ValueError`` naming what is wrong."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or name not in LIMIT_NAMES:
        raise ValueError(
            f"expected NAME=N with NAME one of {', '.join(LIMIT_NAMES)}, found {text!r}"
        )
    try:
        number = float(value) if name == "fault_seconds" else int(value)
    except ValueError:
        kind = "a number" if name == "fault_seconds" else "an integer"
        raise ValueError(f"{name}: expected {kind}, found {value!r}") from None
    if not (math.isfinite(number) and 0 < number <= MAX_INTEGER):
        raise ValueError(f"{name}: expected a number > 0 and <= {MAX_INTEGER}, found {value!r}")
    return name, number


def hint(name: str) -> str:
    return f"(raise it with --limit {name}=N)"


# --- what a valid scenario asks of a run ------------------------------------------------


def expanded_steps(steps: list[ConversationStep]) -> int:
    """How many steps a conversation runs once every ``repeat`` is expanded (no expansion:
    products of ``times``, so 5000 x 5000 costs nothing to count)."""
    total = 0
    for step in steps:
        if step.repeat is not None:
            total += step.repeat.times * expanded_steps(step.repeat.steps)
        else:
            total += 1
    return total


def _fake_steps(scenario: Scenario) -> Iterator[tuple[Loc, StepSpec]]:
    for ref, provider in scenario.providers.items():
        fake: Loc = ("providers", ref, "fake")
        for index, step in enumerate(provider.fake.script):
            yield (*fake, "script", index), step
        yield (*fake, "default"), provider.fake.default


def _longest_text_argument(scenario: Scenario) -> int:
    """A tool's ``{text}`` is the call's ``text`` argument: the longest one scripted."""
    return max(
        (
            len(str(call.arguments.get("text", "")))
            for _, step in _fake_steps(scenario)
            for call in step.tool_calls
        ),
        default=0,
    )


def step_problems(loc: Loc, step: StepSpec, limits: Limits) -> Iterator[tuple[Loc, str]]:
    if len(step.tool_calls) > limits.tools:
        yield (
            (*loc, "tool_calls"),
            f"expected at most {limits.tools} tool calls {hint('tools')},"
            f" found {len(step.tool_calls)}",
        )
    if step.latency_ms > limits.latency_ms:
        yield (
            (*loc, "latency_ms"),
            f"expected at most {limits.latency_ms} ms {hint('latency_ms')},"
            f" found {step.latency_ms}",
        )
    if step.fault is not None and step.fault.seconds > limits.fault_seconds:
        yield (
            (*loc, "fault", "seconds"),
            f"expected at most {limits.fault_seconds:g} seconds {hint('fault_seconds')},"
            f" found {step.fault.seconds:g}",
        )


def limit_problems(scenario: Scenario, limits: Limits) -> list[tuple[Loc, str]]:
    """What a valid scenario would ask beyond the limits, each at its key path."""
    problems: list[tuple[Loc, str]] = []
    turns = expanded_steps(scenario.conversation)
    if turns > limits.turns:
        # Point at the repeat that multiplies the most (the one a typo usually is).
        repeats = [
            (step.repeat.times * expanded_steps(step.repeat.steps), loc)
            for loc, step in all_steps(scenario.conversation, ("conversation",))
            if step.repeat is not None
        ]
        where: Loc = (
            (*max(repeats, key=lambda r: r[0])[1], "repeat") if repeats else ("conversation",)
        )
        problems.append(
            (
                where,
                f"expected at most {limits.turns} conversation steps once repeats are expanded"
                f" {hint('turns')}, found {turns}",
            )
        )
    if len(scenario.tools) > limits.tools:
        problems.append(
            (
                ("tools",),
                f"expected at most {limits.tools} tools {hint('tools')},"
                f" found {len(scenario.tools)}",
            )
        )
    text = _longest_text_argument(scenario)
    for index, tool in enumerate(scenario.tools):
        once = len(tool.output) + tool.output.count("{text}") * text
        if once * tool.repeat > limits.tool_output_chars:
            problems.append(
                (
                    ("tools", index, "repeat"),
                    f"expected a result of at most {limits.tool_output_chars} characters"
                    f" {hint('tool_output_chars')}, found {tool.repeat} x {once}"
                    f" = {tool.repeat * once}",
                )
            )
    for loc, step in _fake_steps(scenario):
        problems += step_problems(loc, step, limits)
    for ref, provider in scenario.providers.items():
        rates = provider.fake.fault_rates
        at: Loc = ("providers", ref, "fake", "fault_rates")
        problems += fault_rate_problems(at, rates, limits.fault_seconds)
    return problems
