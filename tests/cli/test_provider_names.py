"""Provider names on the command line: a typo gets a "did you mean", the client kinds of
``conformance`` and ``load`` are one list, and ``fake serve``'s fakes differ from it only
as their help says."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from fakes import PROVIDER_NAMES
from harness.cli import app
from harness.cli.provider_lists import SERVED_BY, WITHOUT_CLIENT
from harness.providers import PROVIDER_KINDS
from harness.scenarios.environment import FAKE_FOR_KIND

BASE = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize(
    "args",
    [
        ["conformance", "--provider", "opneai", *BASE],
        ["load", "--provider", "opneai"],
        ["fake", "serve", "--provider", "opneai", "--model", "m", "--context-window", "9"],
    ],
    ids=["conformance", "load", "fake-serve"],
)
def test_a_typo_gets_did_you_mean(args: list[str]) -> None:
    code, output = _run(*args)
    assert code == 2, output
    assert "'opneai'" in output
    assert "(did you mean 'openai'?)" in output


def test_a_client_kind_given_to_fake_serve_names_its_fake() -> None:
    code, output = _run(
        "fake", "serve", "--provider", "openai-responses", "--model", "m", "--context-window", "9"
    )
    assert code == 2
    assert "'openai-responses' is a client kind; its fake is 'openai'" in output


def test_conformance_and_load_take_the_same_kinds() -> None:
    assert tuple(FAKE_FOR_KIND) == PROVIDER_KINDS


def _help(*command: str) -> str:
    code, output = _run(*command, "--help")
    assert code == 0
    return re.sub(r"[│╭╮╰╯─]", " ", output).replace(" ", "")


def test_the_help_states_how_fakes_and_client_kinds_differ() -> None:
    differences = [*(f"{kind}" for kind in SERVED_BY), *WITHOUT_CLIENT]
    assert set(PROVIDER_NAMES) - set(PROVIDER_KINDS) == set(WITHOUT_CLIENT)
    assert set(PROVIDER_KINDS) - set(PROVIDER_NAMES) == set(SERVED_BY)
    for command in (("fake", "serve"), ("conformance",), ("load",)):
        text = _help(*command)
        for name in differences:
            assert name in text, (command, name)
