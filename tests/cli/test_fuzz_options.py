"""Generated values for the numeric options: whatever is typed, the command either starts
its work with a value inside the documented bounds or exits 2 naming the option, never a
traceback. Plain decimal integers decide which of the two by the bounds alone."""

from __future__ import annotations

import re
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.cli.bounds import MAX_CONFORMANCE_REQUESTS, MAX_CONTEXT_WINDOW_TOKENS

DECIMAL = re.compile(r"-?[0-9]+")
BOX = str.maketrans("", "", "│╭╮╰╯─")


class Started(Exception):
    """Raised where the command's work would begin."""


def _start(*_: object, **__: object) -> None:
    raise Started


# (the work a command starts, the arguments before the option, the option, low, high)
OPTIONS = [
    ("harness.cli.load.run_load", ["load"], "--sessions", 1, 1_000_000),
    ("harness.cli.load.run_load", ["load"], "--concurrency", 1, 2_000),
    ("harness.cli.load.run_load", ["load"], "--turns", 1, 1_000),
    ("harness.cli.load.run_load", ["load"], "--latency-ms", 0, 60_000),
    ("harness.cli.load.run_load", ["load"], "--context-window", 64, MAX_CONTEXT_WINDOW_TOKENS),
    ("harness.cli.load.run_locust", ["load", "--locust"], "--workers", 1, 64),
    ("harness.cli.fake.serve_forever",
     ["fake", "serve", "--provider", "openai", "--model", "m"], "--context-window",
     1, MAX_CONTEXT_WINDOW_TOKENS),
    ("harness.cli.conformance.run_conformance",
     ["conformance", "--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"],
     "--max-requests", 1, MAX_CONFORMANCE_REQUESTS),
]  # fmt: skip

VALUES = st.one_of(
    st.integers().map(str),
    st.integers(-10, 70_000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(max_size=12),
    st.sampled_from(["0x10", "1e3", " 5", "5 ", "1_000", "+7", "٣", "10.0", "true", "-0"]),
)


@given(index=st.integers(0, len(OPTIONS) - 1), value=VALUES)
def test_a_numeric_option_starts_the_work_in_bounds_or_exits_2_naming_it(
    index: int, value: str
) -> None:
    target, before, option, low, high = OPTIONS[index]
    args = [*before, option, value]
    with mock.patch(target, _start):
        result = CliRunner().invoke(app, args)
    started = isinstance(result.exception, Started)
    if not started:
        assert result.exit_code == 2, (args, result.output, result.exception)
        assert option in "".join(result.output.translate(BOX).split()), result.output
        assert "Traceback" not in result.output
    if DECIMAL.fullmatch(value):
        assert started == (low <= int(value) <= high), (args, result.output)
