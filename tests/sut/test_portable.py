"""What makes a scenario portable, and what a runtime is told for one."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.scenarios.schema import Scenario
from harness.sut.drive import user_texts
from harness.sut.portable import features_needed, not_portable, open_message
from tests.sut.runtimes import SCENARIO


def _scenario(tmp_path: Path, text: str) -> Scenario:
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    return load_all([tmp_path / "s.yaml"])[0].scenario


def test_a_one_provider_scenario_of_turns_and_tools_is_portable(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, SCENARIO.format(id="p"))
    assert not_portable(scenario) is None
    assert features_needed(scenario) == ["tools", "system"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (("rules:", "driver: legacy\nrules:"), "sets driver (reference-only)"),
        (("rules:", "classifier: reference\nrules:"), "sets classifier (reference-only)"),
        (("rules:", "runtime: {context_compact_ratio: 0.5}\nrules:"),
         "sets runtime.context_compact_ratio (reference-only)"),
        (("    context_window: 8000\n", ""), "configures no context_window for the runtime"),
        (("kind: openai", "kind: groq"), "provider kind groq has quirks beyond its wire"),
        (("  - user: next", "  - clear_history: true"), "has a clear_history step"),
        (("  - name: echo", "  - name: echo\n    fails: true"),
         "has a tool with images or one that fails"),
    ],
)  # fmt: skip
def test_a_reference_only_knob_makes_a_scenario_not_portable_naming_it(
    tmp_path: Path, change: tuple[str, str], reason: str
) -> None:
    text = SCENARIO.format(id="p")
    assert change[0] in text
    assert not_portable(_scenario(tmp_path, text.replace(*change))) == reason


def test_the_open_message_says_what_the_scenario_configures(tmp_path: Path) -> None:
    text = SCENARIO.format(id="p").replace("rules:", "runtime: {max_context_tokens: 40}\nrules:")
    opening = open_message(_scenario(tmp_path, text), "p", "http://x/v1", "k")
    assert (opening.provider.wire, opening.provider.model, opening.context_window) == (
        "openai_chat",
        "gpt-test",
        8000,
    )
    assert (opening.budget_tokens, opening.turn_limit, opening.system) == (40, None, "sys")
    assert [t.name for t in opening.tools] == ["echo"]


def test_repeat_steps_expand_as_the_runner_expands_them(tmp_path: Path) -> None:
    text = SCENARIO.format(id="p").replace(
        "  - user: next", "  - repeat:\n      times: 2\n      steps:\n        - user: 'q {i}'"
    )
    assert user_texts(_scenario(tmp_path, text).conversation) == ["look it up", "q 0", "q 1"]


def test_the_library_keeps_portable_scenarios_of_every_portable_wire() -> None:
    portable = [
        i.scenario for i in load_all([scenario_library()]) if not_portable(i.scenario) is None
    ]
    kinds = {next(iter(s.providers.values())).kind for s in portable}
    assert kinds == {"openai", "openai-responses", "anthropic", "gemini", "ollama", "cohere"}
