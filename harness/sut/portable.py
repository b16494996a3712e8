"""Which scenarios a protocol runtime can be given, and what it is told for one.

A scenario is *portable* when everything it configures is something the protocol's
``open`` and ``user`` messages can say (``docs/sut-protocol.md``): one provider of a
portable kind (``harness.sut.wires``) with a configured ``context_window``, the fake
behind it (anything: the fake is trimscope's side), a system prompt, tools that return
text, a budget (``runtime.max_context_tokens``), a turn limit
(``runtime.max_history_messages``), and user turns of text (``repeat`` included). Every
other knob is the reference's own and makes the scenario not portable, named in the reason:
another driver, tool mode or classifier, provider-side truncation or context management,
a compact ratio, history pruning, tool-loop or tool-result limits, request options, hooks,
agent identity, routes, model switches, seeds, history clears, senders, images, per-turn
models, cache breakpoints, failing tools or tool images.
"""

from __future__ import annotations

from typing import Final

from harness.scenarios.schema import (
    AgentSpec,
    ConversationStep,
    RequestSpec,
    RuntimeSpec,
    Scenario,
    UserTurn,
    all_steps,
)
from harness.sut.protocol import Open, Provider, ToolOffer
from harness.sut.wires import WIRE_OF_KIND, Feature
from harness.wire.model import WireKind

DEFAULT_MODEL: Final = "fake-model"
"""The model a runtime is told when the scenario names none (the fakes' own default)."""
_DEFAULT_RUNTIME: Final = RuntimeSpec()

_SCENARIO_KNOBS: Final[tuple[tuple[str, object], ...]] = (
    ("driver", "agent"),
    ("tool_mode", "native"),
    ("classifier", "extended"),
    ("provider_truncation", False),
    ("request", RequestSpec()),
    ("agent", AgentSpec()),
    ("hooks", []),
    ("routes", None),
)
_RUNTIME_KNOBS: Final = (
    "context_compact_ratio",
    "history_pruning",
    "max_tool_iterations",
    "max_tool_result_chars",
)


def _step_problem(step: ConversationStep) -> str | None:
    for key in ("switch_model", "seed", "clear_history", "sender"):
        if getattr(step, key) is not None:
            return f"a {key} step"
    turn = step.user
    if isinstance(turn, UserTurn) and (turn.images or turn.model is not None):
        return "a user turn with images or a model"
    return None


def _knob_problem(scenario: Scenario) -> str | None:
    for key, default in _SCENARIO_KNOBS:
        if getattr(scenario, key) != default:
            return f"sets {key} (reference-only)"
    for key in _RUNTIME_KNOBS:
        if getattr(scenario.runtime, key) != getattr(_DEFAULT_RUNTIME, key):
            return f"sets runtime.{key} (reference-only)"
    return None


def _conversation_problem(scenario: Scenario) -> str | None:
    if any(tool.images or tool.fails for tool in scenario.tools):
        return "has a tool with images or one that fails"
    for _, step in all_steps(scenario.conversation, ()):
        problem = _step_problem(step)
        if problem is not None:
            return f"has {problem}"
    return None


def not_portable(scenario: Scenario) -> str | None:
    """Why the scenario cannot be given to a protocol runtime; ``None`` when it can."""
    problem = _knob_problem(scenario) or _conversation_problem(scenario)
    if problem is not None:
        return problem
    if len(scenario.providers) != 1:
        return f"has {len(scenario.providers)} providers (one is portable)"
    spec = next(iter(scenario.providers.values()))
    if spec.kind not in WIRE_OF_KIND:
        return f"provider kind {spec.kind} has quirks beyond its wire"
    if spec.context_window is None:
        return "configures no context_window for the runtime"
    if spec.context_management is not None or spec.cache_breakpoints != "none":
        return "sets provider context_management or cache_breakpoints (reference-only)"
    return None


def wire_of(scenario: Scenario) -> WireKind:
    return WIRE_OF_KIND[next(iter(scenario.providers.values())).kind]


def features_needed(scenario: Scenario) -> list[Feature]:
    """What a runtime must declare in its ``hello`` to be given the scenario."""
    needed: list[Feature] = []
    if scenario.tools:
        needed.append("tools")
    if scenario.system_prompt:
        needed.append("system")
    if scenario.runtime.max_context_tokens is not None:
        needed.append("budget")
    if scenario.runtime.max_history_messages is not None:
        needed.append("turn_limit")
    return needed


def open_message(scenario: Scenario, session: str, base_url: str, api_key: str) -> Open:
    """The ``open`` of a portable scenario's session."""
    spec = next(iter(scenario.providers.values()))
    assert spec.context_window is not None  # not_portable() said so
    return Open(
        session=session,
        provider=Provider(
            wire=WIRE_OF_KIND[spec.kind],
            base_url=base_url,
            api_key=api_key,
            model=spec.model or spec.fake.model or DEFAULT_MODEL,
        ),
        context_window=spec.context_window,
        budget_tokens=scenario.runtime.max_context_tokens,
        turn_limit=scenario.runtime.max_history_messages,
        system=scenario.system_prompt,
        tools=[ToolOffer(name=t.name, description=t.description, parameters=t.parameters)
               for t in scenario.tools],
    )  # fmt: skip
