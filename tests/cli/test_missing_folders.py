"""Issue 27: an output folder is never created silently. Every output option of every
command, given a path whose folder is missing, exits 2 naming the option and the folder
before any work, and leaves no folder behind (a typo builds no tree). A folder option
(``--transcript``, ``--record``, ``scenarios export TARGET``...) may be created itself,
never its missing parents.

In process like ``tests/cli/test_inputs.py``, whose ``no_work`` fixture replaces each
command's work by a failure; ``matrix`` and ``scenarios export`` are added to it here."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.cli.test_inputs import BOX, ENDPOINT, LOAD, PROXY_OK, RUN, no_work

__all__ = ["no_work"]  # the fixture, used by name

DASHBOARDS = ("dashboards", "build", "--out", "{ok}/json", "--alerts", "{ok}/a.yml",
              "--provisioning", "{ok}/provisioning")  # fmt: skip

LOAD_FILES = (
    "--json",
    "--otel-jsonl",
    "--write-plan",
    "--html",
    "--metrics-out",
    "--wire-findings",
)
# (command before the option, option, whether it names a folder); every output each has.
OUTPUTS: list[tuple[tuple[str, ...], str, bool]] = [
    *[(RUN, o, False) for o in ("--junit-xml", "--otel-jsonl", "--metrics-out", "--json")],
    (RUN, "--transcript", True),
    *[(LOAD, o, False) for o in LOAD_FILES],
    (LOAD, "--transcript", True),
    (ENDPOINT, "--json", False),
    (ENDPOINT, "--markdown", False),
    (("report", "{ok}/t.jsonl"), "-o", False),
    *[(PROXY_OK, o, False) for o in ("--findings-jsonl", "--metrics-out", "--otel-jsonl")],
    (PROXY_OK, "--record", True),
    (DASHBOARDS, "--out", True),
    (DASHBOARDS, "--alerts", False),
    (DASHBOARDS, "--provisioning", True),
    (("scenarios", "schema"), "--out", False),
    (("scenarios", "index", "{ok}/lib"), "--readme", False),
    (("scenarios", "export"), "", True),  # its argument TARGET
    (("matrix",), "--out", False),
]


@pytest.fixture(autouse=True)
def no_matrix_or_export(monkeypatch: pytest.MonkeyPatch) -> None:
    def worked(*_: object, **__: object) -> None:
        pytest.fail("the command started its work: a missing folder was accepted")

    monkeypatch.setattr("harness.sut.matrix.default_entries", worked)
    monkeypatch.setattr("harness.cli.scenarios_cmd.export_library", worked)


@pytest.mark.parametrize("case", OUTPUTS, ids=lambda c: f"{c[0][0]}:{c[1] or 'TARGET'}")
def test_an_output_in_a_missing_folder_exits_2_and_creates_nothing(
    case: tuple[tuple[str, ...], str, bool], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command, option, is_folder = case
    ok = tmp_path / "ok"
    ok.mkdir()
    (ok / "t.jsonl").write_text("")
    (ok / "lib").mkdir()
    monkeypatch.chdir(ok)
    missing = tmp_path / "missing"
    target = missing / ("deeper" if is_folder else "out.file")
    args = [a.replace("{ok}", str(ok)) for a in command]
    args += [str(target)] if not option else [option, str(target)]
    result = CliRunner().invoke(app, args)
    flat = "".join(result.output.translate(BOX).split())
    assert result.exit_code == 2, result.output
    assert "".join(f"{missing}".split()) in flat, result.output
    assert "createitfirst" in flat, result.output
    assert not missing.exists(), "a folder was created"
