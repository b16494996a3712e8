"""The committed scenario library and the files generated from it."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import jsonschema
import pytest
import yaml

from harness.providers import PROVIDER_KINDS
from harness.scenarios.environment import FAKE_FOR_KIND
from harness.scenarios.library import (
    INDEX_END,
    INDEX_START,
    rule_index,
    scenarios_by_rule,
    schema_json,
    with_rule_index,
)
from harness.scenarios.loader import LoadedScenario, discover, load_all
from harness.scenarios.rules import RULES
from harness.scenarios.schema import ProviderKind
from tests.scenarios.support import cli, scenario, write

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "scenarios"
README = LIBRARY / "README.md"
SCHEMA = LIBRARY / "schema.json"


@pytest.fixture(scope="module")
def library() -> list[LoadedScenario]:
    return load_all([LIBRARY])


def test_every_rule_has_a_scenario(library: list[LoadedScenario]) -> None:
    uncovered = [rule for rule, items in scenarios_by_rule(library).items() if not items]
    assert uncovered == [], f"rules without a scenario: {uncovered}"


def test_committed_schema_json_is_current() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == schema_json(), (
        "scenarios/schema.json is stale: run"
        " `trimscope scenarios schema --out scenarios/schema.json`"
    )


def test_committed_rule_index_is_current(library: list[LoadedScenario]) -> None:
    text = README.read_text(encoding="utf-8")
    assert text == with_rule_index(text, rule_index(library, LIBRARY), README), (
        "the rule index in scenarios/README.md is stale: run `trimscope scenarios index`"
    )


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_json())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_library_files_validate_against_the_json_schema(
    validator: jsonschema.Draft202012Validator,
) -> None:
    for path in discover([LIBRARY]):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        errors = [e.message for e in validator.iter_errors(data)]
        assert errors == [], f"{path.name}: {errors}"


def test_json_schema_rejects_what_the_loader_rejects(
    validator: jsonschema.Draft202012Validator,
) -> None:
    validator.validate(yaml.safe_load(scenario()))
    for bad in (
        scenario(replace=("    model: gpt-test", "    modle: gpt-test")),
        scenario(replace=('rules: ["4"]', 'rules: ["4.4"]')),
        scenario(replace=("provider_calls: 1", "provider_calls: many")),
        scenario(
            replace=("answers:", "events: {items: [{kind: HistoryTrimmed, drop: 1}]}\n  answers:")
        ),
    ):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(yaml.safe_load(bad))


def test_provider_kinds_are_the_clients_kinds() -> None:
    assert list(typing.get_args(ProviderKind)) == list(PROVIDER_KINDS)
    assert set(PROVIDER_KINDS) == set(FAKE_FOR_KIND)


def test_schema_command_writes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "schema.json"
    assert cli("scenarios", "schema", "--out", out, "--check").exit_code == 1
    assert cli("scenarios", "schema", "--out", out).exit_code == 0
    assert out.read_text(encoding="utf-8") == schema_json()
    assert cli("scenarios", "schema", "--out", out, "--check").exit_code == 0
    assert json.loads(cli("scenarios", "schema").stdout)["title"] == "Scenario"


def test_index_command_rewrites_only_between_the_markers(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", scenario("a"))
    write(tmp_path, "b.yaml", scenario("b", replace=('rules: ["4"]', 'rules: ["4", "3.1"]')))
    readme = write(tmp_path, "README.md", f"# Before\n\n{INDEX_START}\nold\n{INDEX_END}\n\nAfter\n")
    assert cli("scenarios", "index", tmp_path, "--check").exit_code == 1
    assert cli("scenarios", "index", tmp_path).exit_code == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith(f"# Before\n\n{INDEX_START}\n")
    assert text.endswith(f"{INDEX_END}\n\nAfter\n")
    assert (
        "| 4 | a trim keeps the prefix plus the last k whole turns | [a](a.yaml), [b](b.yaml) |"
        in text
    )
    assert f"| 3.1 | {RULES['3.1']} | [b](b.yaml) |" in text
    assert f"| 2.1 | {RULES['2.1']} | **none yet** |" in text
    assert cli("scenarios", "index", tmp_path, "--check").exit_code == 0


def test_index_command_needs_the_markers(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", scenario("a"))
    write(tmp_path, "README.md", "# no markers\n")
    result = cli("scenarios", "index", tmp_path)
    assert result.exit_code == 2
    assert "expected the markers" in result.stderr
