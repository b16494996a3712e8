"""Invalid scenario files: every problem names ``file:line: key.path: what was expected,
what was found``, and ``trimscope validate``/``run`` exit with code 2 having run nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.scenarios.loader import ScenarioError, load_all, load_scenario
from tests.scenarios.support import TINY, cli, console_script, scenario, write

EXIT_INVALID = 2

TYPO = scenario(replace=("    model: gpt-test", "    modle: gpt-test"))
WRONG_TYPE = scenario(replace=("provider_calls: 1", "provider_calls: many"))
MISSING = scenario(replace=("title: One question, one answer\n", ""))
DUPLICATE_KEY = scenario(replace=("    model: gpt-test\n", "    model: gpt-test\n    model: b\n"))
BAD_YAML = scenario(replace=("title: One question, one answer", "title: One: two"))
UNION = scenario(replace=('  - user: "hello"', "  - user: 5"))
WRONG_WIRE_OPTION = scenario(  # Anthropic's context editing on an OpenAI route
    replace=(
        "    model: gpt-test\n",
        "    model: gpt-test\n    context_management:\n"
        "      clear_tool_uses: {keep_tool_uses: 1}\n",
    )
)
COMPACT_ON_BUDGET_ELSEWHERE = scenario(  # the compaction endpoint is OpenAI Responses'
    replace=(
        "    model: gpt-test\n",
        "    model: gpt-test\n    context_management: {compact_on_budget: true}\n",
    )
)
COMPACT_ON_BUDGET_NOT_BOOL = scenario(
    replace=(
        "    model: gpt-test\n",
        "    model: gpt-test\n    context_management: {compact_on_budget: 1}\n",
    )
)
BAD_HANDLING = scenario(
    replace=(
        '      default: {text: "ok"}\n',
        '      default: {text: "ok"}\n      provider_side: {handling: drop}\n',
    )
)
UNKNOWN_EDIT = scenario(  # a value ProviderContextEdited.edit can never hold
    replace=(
        '  answers: ["ok"]\n',
        '  answers: ["ok"]\n  events:\n    items:\n'
        "      - {kind: ProviderContextEdited, edit: clear_tools, compaction: compacted}\n",
    )
)
WHEN_ON_DEFAULT = scenario(
    replace=('      default: {text: "ok"}\n', '      default: {text: "ok", when: {user_turn: 1}}\n')
)
EMPTY_WHEN = scenario(
    replace=(
        '      default: {text: "ok"}\n',
        '      default: {text: "ok"}\n      script: [{when: {}, text: "x"}]\n',
    )
)

CASES = {
    "typo": (
        TYPO,
        "7: providers.openai.main.modle: expected one of the keys: kind, model,"
        " context_window, cache_breakpoints, fake, context_management, found unknown key 'modle'"
        " (did you mean 'model'?)",
    ),
    "wrong-type": (
        WRONG_TYPE,
        "15: expect.counts.provider_calls: expected an integer, found 'many'",
    ),
    "missing": (MISSING, "1: title: required key is missing"),
    "duplicate-key": (
        DUPLICATE_KEY,
        "8: providers.openai.main.model: duplicate key (first at line 7)",
    ),
    "bad-yaml": (
        BAD_YAML,
        "2: (yaml): mapping values are not allowed here; a value that contains ': ' must be quoted",
    ),
    "empty": ("", "1: (top level): expected a scenario mapping, the file is empty"),
    "comments-only": (
        "# nothing yet\n",
        "1: (top level): expected a scenario mapping, the file is empty",
    ),
    "not-a-mapping": (
        "- a\n- b\n",
        "1: (top level): expected a scenario mapping, found a list of 2 item(s)",
    ),
    "context-management-of-another-wire": (
        WRONG_WIRE_OPTION,
        "9: providers.openai.main.context_management.clear_tool_uses: expected a provider"
        " of kind anthropic, found kind 'openai'",
    ),
    "compact-on-budget-of-another-wire": (
        COMPACT_ON_BUDGET_ELSEWHERE,
        "8: providers.openai.main.context_management.compact_on_budget: expected a provider"
        " of kind openai-responses, found kind 'openai'",
    ),
    "compact-on-budget-not-a-boolean": (
        COMPACT_ON_BUDGET_NOT_BOOL,
        "8: providers.openai.main.context_management.compact_on_budget: expected true or"
        " false, found 1",
    ),
    "provider-side-handling": (
        BAD_HANDLING,
        "10: providers.openai.main.fake.provider_side.handling: expected one of 'honour',"
        " 'ignore' or 'reject', found 'drop'",
    ),
    "provider-edit-value": (
        UNKNOWN_EDIT,
        "16: expect.events.items[0].edit: expected a ProviderContextEdited.edit:"
        " clear_tool_uses, clear_thinking, compaction, found 'clear_tools'"
        " (did you mean 'clear_tool_uses'?)",
    ),
    "when-on-default": (
        WHEN_ON_DEFAULT,
        "9: providers.openai.main.fake.default.when: expected no when on the default step"
        " (it answers every call no step takes), found a condition",
    ),
    "empty-when": (
        EMPTY_WHEN,
        "10: providers.openai.main.fake.script[0].when: expected at least one of user_turn,"
        " contains, retry, found none",
    ),
    "union": (
        UNION,
        "11: conversation[0].user: expected a string or a mapping with keys text, images,"
        " model, expect_error, found 5",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_load_error_names_file_line_and_key_path(tmp_path: Path, case: str) -> None:
    text, expected = CASES[case]
    path = write(tmp_path, f"{case}.yaml", text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert caught.value.problems == (f"{path}:{expected}",)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_exits_2_and_runs_nothing(tmp_path: Path, case: str, command: str) -> None:
    library = tmp_path / "library"
    write(library, "a-valid.yaml", TINY)
    bad = write(library, f"{case}.yaml", CASES[case][0])
    extra: list[str | Path] = [] if command == "validate" else ["--junit-xml", tmp_path / "j.xml"]
    extra += [] if command == "validate" else ["--transcript", tmp_path / "transcripts"]
    result = cli(command, library, *extra)
    assert result.exit_code == EXIT_INVALID
    assert f"{bad}:{CASES[case][1]}" in result.stderr.splitlines()
    assert "invalid scenario input: 1 problem(s)" in result.stderr
    assert "PASS" not in result.stderr + result.stdout
    assert not (tmp_path / "j.xml").exists()
    assert not (tmp_path / "transcripts").exists()


def test_duplicate_scenario_id_names_both_files(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", TINY)
    second = write(tmp_path, "b.yaml", TINY)
    with pytest.raises(ScenarioError) as caught:
        load_all([tmp_path])
    assert caught.value.problems == (
        f"{second}:1: id: expected an id unique in the library, found 'tiny' again"
        f" (first in {first}:1)",
    )
    result = cli("run", tmp_path)
    assert result.exit_code == EXIT_INVALID
    assert "PASS" not in result.stderr


def test_every_problem_of_every_file_is_listed(tmp_path: Path) -> None:
    write(tmp_path, "typo.yaml", TYPO)
    write(tmp_path, "wrong.yaml", WRONG_TYPE.replace("id: tiny", "id: wrong"))
    with pytest.raises(ScenarioError) as caught:
        load_all([tmp_path])
    assert [p.split(":")[1] for p in caught.value.problems] == ["7", "15"]


def test_no_scenario_files_is_an_input_error(tmp_path: Path) -> None:
    result = cli("validate", tmp_path)
    assert result.exit_code == EXIT_INVALID
    assert "no scenario files found" in result.stderr


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (TYPO, "7: providers.openai.main.modle: expected one of the keys"),
        (WRONG_TYPE, "15: expect.counts.provider_calls: expected an integer, found 'many'"),
    ],
    ids=["typo", "wrong-type"],
)
def test_console_script_reports_typo_and_wrong_type(
    tmp_path: Path, text: str, problem: str
) -> None:
    write(tmp_path / "scenarios", "ok.yaml", TINY)
    write(tmp_path / "scenarios", "bad.yaml", text)
    for command in ("validate", "run"):
        result = console_script(
            [command, "scenarios", "--transcript", "t"][: 2 if command == "validate" else 4],
            tmp_path,
        )
        assert result.exit_code == EXIT_INVALID, result.stderr
        assert f"scenarios/bad.yaml:{problem}" in result.stderr
        assert "PASS" not in result.stderr
        assert not (tmp_path / "t").exists()
