"""``pytest --trimscope-sut "CMD"``: the portable battery as pytest items against a
runtime, through the plugin (pytester): the reference passes it whole; a runtime that
drops the system prompt fails ``system_kept`` and nothing else; a wire it does not speak
is skipped with its reason; a runtime that dies fails each item naming it; a command not
found is a usage error before anything runs."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.sut.portable import not_portable

pytest_plugins = ["pytester"]

TRIMSCOPE = Path(sys.executable).with_name("trimscope")
LIBRARY = scenario_library()
OPENAI = "recovery-openai-failed-turn-then-good-turns"
GEMINI = "tools-gemini-parallel-calls-dropped-whole"
NOT_PORTABLE = "legacy-count-trim-logs-only"
NO_SYSTEM_PROMPT = """\
import sys
from harness.sut.adapter import Adapter, Callbacks
from harness.sut.reference import ReferenceRuntime
from harness.sut.wires import FEATURES

runtime = ReferenceRuntime()


async def on_open(session):
    session.open["system"] = None  # the deliberate bug: the system prompt is never sent
    await runtime.on_open(session)


callbacks = Callbacks(on_open, runtime.on_user)
Adapter("no-system", "0", ["openai_chat"], list(FEATURES), callbacks).main()
"""


def _battery_args(*ids: str) -> list[str]:
    args: list[str] = []
    for scenario_id in ids:
        args += ["--trimscope-sut-scenarios", str(LIBRARY / f"{scenario_id}.yaml")]
    return args


@pytest.mark.integration
@pytest.mark.slow
def test_the_reference_passes_every_item_of_the_bundled_battery(
    pytester: pytest.Pytester,
) -> None:
    portable = [i for i in load_all([LIBRARY]) if not_portable(i.scenario) is None]
    result = pytester.runpytest(f"--trimscope-sut={TRIMSCOPE} sut reference", "-v")
    result.assert_outcomes(passed=len(portable))
    result.stdout.fnmatch_lines([f"trimscope-sut::{portable[0].scenario.id} PASSED*"])


@pytest.mark.integration
def test_a_runtime_dropping_the_system_prompt_fails_system_kept_and_skips_other_wires(
    pytester: pytest.Pytester,
) -> None:
    adapter = pytester.makepyfile(no_system=NO_SYSTEM_PROMPT)
    command = shlex.join([sys.executable, str(adapter)])
    args = _battery_args(OPENAI, GEMINI, NOT_PORTABLE)
    result = pytester.runpytest(f"--trimscope-sut={command}", *args, "-rs", "-p", "no:randomly")
    result.assert_outcomes(failed=1, skipped=1)  # the not portable one is not an item
    result.stdout.fnmatch_lines(
        [
            f"scenario {OPENAI} (*): * invariant violation(s)",
            "  system_kept (call 1): system prompt missing or changed",
            "SKIPPED*the runtime does not speak gemini*",
        ]
    )
    failure = result.stdout.str().split("FAILURES", 1)[1].split("short test summary")[0]
    invariants = {line.split()[0] for line in failure.splitlines() if line.startswith("  ")}
    assert invariants == {"system_kept"}


@pytest.mark.integration
def test_a_runtime_that_dies_at_once_fails_each_item_as_a_crash(
    pytester: pytest.Pytester,
) -> None:
    command = shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"])
    result = pytester.runpytest(f"--trimscope-sut={command}", *_battery_args(OPENAI, GEMINI))
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([f"scenario {OPENAI} (*): CRASH: at hello: *exit*3*"])


def test_a_command_not_found_is_a_usage_error_before_anything_runs(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest("--trimscope-sut=no-such-runtime-xyz --flag")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--trimscope-sut 'no-such-runtime-xyz --flag'*not found*"])


def test_an_invalid_battery_file_is_a_usage_error_naming_its_line(
    pytester: pytest.Pytester,
) -> None:
    bad = pytester.makefile(".yaml", bad="id: bad\ntitle: t\nrules: ['4']\nconversatio: []\n")
    command = f"{sys.executable} -c pass"
    result = pytester.runpytest(f"--trimscope-sut={command}", f"--trimscope-sut-scenarios={bad}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bad.yaml:4: conversatio*"])
