"""Each loader limit: a file exactly at it loads, one past it is refused at its key path,
and ``--limit NAME=N`` raises it. ``run --scenario-timeout``: a stuck scenario gets the
``TIMEOUT`` verdict and the others still run."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.scenarios.limits import DEFAULT_LIMITS, LIMIT_NAMES, Limits, parse_limit
from harness.scenarios.loader import ScenarioError, load_scenario
from harness.scenarios.suite import DEFAULT_SCENARIO_TIMEOUT_S
from tests.scenarios.malformed import fake, insert, many_tools, nested, sub, tool_calls
from tests.scenarios.support import TINY, cli, scenario, write

EXIT_FAILED, EXIT_INVALID = 1, 2


def _turns(n: int) -> str:
    return sub('  - user: "hello"', f'  - repeat: {{times: {n}, steps: [{{user: "x"}}]}}')


def _output(n: int) -> str:
    return insert(f"tools: [{{name: t, output: ab, repeat: {n}}}]")


# name -> (text with a measure of n, the measure at which the text is exactly at the limit)
AT_LIMIT: dict[str, tuple[Callable[[int], str], int]] = {
    "file_bytes": (lambda n: TINY + "#" * (n - len(TINY) - 1) + "\n", 2000),
    "depth": (nested, 9),  # root, tools, item, parameters and a: then 5 lists = 9 levels
    "turns": (_turns, 40),
    "tools": (many_tools, 12),
    "tool_output_chars": (_output, 50),  # "ab" x 25
    "fault_seconds": (lambda n: fake(f"fault: {{kind: hang, seconds: {n}}}"), 30),
    "latency_ms": (lambda n: fake(f"latency_ms: {n}"), 250),
}
MEASURE_TO_LIMIT: dict[str, Callable[[int], int]] = {
    "file_bytes": lambda n: n,
    "depth": lambda n: n + 4,
    "turns": lambda n: n,
    "tools": lambda n: n,
    "tool_output_chars": lambda n: 2 * n,
    "fault_seconds": lambda n: n,
    "latency_ms": lambda n: n,
}


@pytest.mark.parametrize("name", sorted(AT_LIMIT))
def test_exactly_at_the_limit_loads_one_past_is_refused(tmp_path: Path, name: str) -> None:
    make, measure = AT_LIMIT[name]
    limit = MEASURE_TO_LIMIT[name](measure)
    limits = Limits(**{name: limit})
    path = write(tmp_path, "at.yaml", make(measure))
    load_scenario(path, limits=limits)
    past = write(tmp_path, "past.yaml", make(measure + 1))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(past, limits=limits)
    (problem,) = caught.value.problems
    assert f"(raise it with --limit {name}=N)" in problem
    assert problem.startswith(f"{past}:")


def test_tool_calls_in_one_step_count_against_the_tools_limit(tmp_path: Path) -> None:
    limits = Limits(tools=3)
    load_scenario(write(tmp_path, "at.yaml", tool_calls(3)), limits=limits)
    with pytest.raises(ScenarioError, match=r":9: .*default\.tool_calls: expected at most 3"):
        load_scenario(write(tmp_path, "past.yaml", tool_calls(4)), limits=limits)


def test_yaml_nodes_counts_every_alias_expansion(tmp_path: Path) -> None:
    # One anchored list of 10 strings used 5 times: 5 x 11 nodes instead of 11 + 5.
    uses = ", ".join(["*a"] * 5)
    text = insert(
        f"tools: [{{name: t, parameters: {{a: &a [{', '.join('x' * 10)}], b: [{uses}]}}}}]"
    )
    path = write(tmp_path, "aliases.yaml", text)
    plain = write(tmp_path, "plain.yaml", text.replace(f"[{uses}]", "[]"))
    counted = _smallest_passing(plain)
    assert _smallest_passing(path) == counted + 5 * 11


def _smallest_passing(path: Path) -> int:
    low, high = 1, DEFAULT_LIMITS.yaml_nodes
    while low < high:
        middle = (low + high) // 2
        try:
            load_scenario(path, limits=Limits(yaml_nodes=middle))
            high = middle
        except ScenarioError:
            low = middle + 1
    return low


def test_limit_option_raises_a_limit(tmp_path: Path) -> None:
    path = write(tmp_path, "long-hang.yaml", fake("fault: {kind: hang, seconds: 1000000000}"))
    refused = cli("validate", path)
    assert refused.exit_code == EXIT_INVALID
    assert "fault.seconds: expected at most 600 seconds" in refused.stderr
    assert cli("validate", path, "--limit", "fault_seconds=1e9").exit_code == 0


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("turns", "expected NAME=N with NAME one of"),
        ("nodes=5", "expected NAME=N with NAME one of"),
        ("turns=many", "turns: expected an integer, found 'many'"),
        ("turns=0", "turns: expected a number > 0"),
        ("fault_seconds=nan", "fault_seconds: expected a number > 0"),
        ("turns=1e3", "turns: expected an integer, found '1e3'"),
    ],
)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_bad_limit_option_is_an_input_error(
    tmp_path: Path, option: str, message: str, command: str
) -> None:
    result = cli(command, write(tmp_path, "ok.yaml", TINY), "--limit", option)
    assert result.exit_code == EXIT_INVALID
    assert f"--limit: {message}" in " ".join(result.stderr.split())
    assert "PASS" not in result.stderr


def test_every_limit_has_a_default_and_parses() -> None:
    for name in LIMIT_NAMES:
        assert getattr(DEFAULT_LIMITS, name) > 0
        assert parse_limit(f"{name}=7") == (name, 7)


HANGS = fake("fault: {kind: hang, seconds: 60}").replace("id: tiny", "id: hangs")


def test_scenario_timeout_fails_that_scenario_and_runs_the_others(tmp_path: Path) -> None:
    library = tmp_path / "library"
    write(library, "a-hangs.yaml", HANGS)
    write(library, "b-tiny.yaml", scenario())
    junit, transcripts = tmp_path / "junit.xml", tmp_path / "t"
    result = cli(
        "run",
        library,
        "--scenario-timeout",
        "0.5",
        "--junit-xml",
        junit,
        "--transcript",
        transcripts,
    )
    assert result.exit_code == EXIT_FAILED
    assert "TIMEOUT hangs" in result.stderr
    assert "PASS tiny" in result.stderr
    assert "timeout: still running after 0.5s, cancelled" in result.stdout
    suite = ET.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("errors"), suite.get("failures")) == ("2", "1", "0")
    (error,) = suite.iter("error")
    assert error.get("type") == "timeout"
    assert sorted(p.name for p in transcripts.iterdir()) == ["hangs.jsonl", "tiny.jsonl"]


@pytest.mark.parametrize("value", ["0", "-1", "nan", "soon"])
def test_bad_scenario_timeout_is_an_input_error(tmp_path: Path, value: str) -> None:
    result = cli("run", write(tmp_path, "ok.yaml", TINY), "--scenario-timeout", value)
    assert result.exit_code == EXIT_INVALID
    assert "--scenario-timeout" in result.stderr


def test_the_readmes_state_every_default() -> None:
    root = Path(__file__).resolve().parents[2]
    library = (root / "scenarios" / "README.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| `(\w+)` \| (\d+) \|", library, re.M))
    assert table == {name: str(int(getattr(DEFAULT_LIMITS, name))) for name in LIMIT_NAMES}
    timeout = f"`--scenario-timeout SECONDS` (default {DEFAULT_SCENARIO_TIMEOUT_S:g}"
    assert timeout in library
    assert timeout in " ".join((root / "README.md").read_text(encoding="utf-8").split())
