"""``trimscope report`` refuses what is not a transcript, naming it, with exit 2: an empty
file, blank lines, binary garbage, a span file, NaN, JSON nested past any transcript."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from harness.cli import app
from harness.report import ReportInputError
from harness.report.parse import read_file
from tests.report.transcripts import busy_session, lines


def _report(tmp_path: Path, content: bytes) -> tuple[Result, Path, Path]:
    source = tmp_path / "t.jsonl"
    source.write_bytes(content)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(source), "-o", str(out)])
    return result, source, out


@pytest.mark.parametrize(
    "content",
    [b"", b"\n\n  \n\t\n", b"\x00\xff\xfe garbage \x01 with no newline"],
    ids=["empty", "blank-lines", "binary-garbage"],
)
def test_a_file_without_any_event_exits_2_naming_it(tmp_path: Path, content: bytes) -> None:
    result, source, out = _report(tmp_path, content)
    assert result.exit_code == 2, result.output
    assert f"{source}: no transcript event in this file" in result.stderr
    assert not out.exists()


def test_a_span_file_is_named_as_a_span_file(tmp_path: Path) -> None:
    span = {
        "name": "chat m",
        "context": {"trace_id": "0x01", "span_id": "0x02", "trace_state": "[]"},
        "kind": "SpanKind.CLIENT",
        "attributes": {},
    }
    result, source, _ = _report(tmp_path, (json.dumps(span) + "\n").encode())
    assert result.exit_code == 2
    assert f"{source}:1: an OpenTelemetry span (this is a --otel-jsonl span file)" in " ".join(
        result.stderr.split()
    )
    assert "SpanKind" not in result.stderr


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_non_json_number_is_refused_naming_the_line(tmp_path: Path, constant: str) -> None:
    good = lines(busy_session().events)
    bad = re.sub(r'"at": [0-9.]+', f'"at": {constant}', good[0], count=1)
    assert bad != good[0]
    result, source, _ = _report(tmp_path, ("\n".join([*good[:1], bad, *good[1:]]) + "\n").encode())
    assert result.exit_code == 2
    assert f"{source}:2: not JSON: {constant} is not a number JSON allows" in result.stderr


def test_json_nested_far_too_deep_is_refused_not_a_crash(tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    result, source, _ = _report(tmp_path, deep)
    assert result.exit_code == 2, result.output
    assert f"{source}:1: not a transcript line: JSON nested too deeply" in result.stderr


@settings(max_examples=60)
@given(st.binary(max_size=200))
def test_any_bytes_are_an_input_error_or_a_transcript(tmp_path_factory: object, raw: bytes) -> None:
    """Whatever a file holds, reading it either yields events or says why it cannot: never
    another exception (a crash is exit 3, "this is a bug")."""
    folder = Path(str(tmp_path_factory.mktemp("raw")))  # type: ignore[attr-defined]
    path = folder / "t.jsonl"
    path.write_bytes(raw)
    refused: ReportInputError | None = None
    try:
        parsed = read_file(path)
    except ReportInputError as error:
        refused = error
    if refused is not None:
        assert str(refused).startswith(str(path))
    else:
        assert parsed.events or parsed.interruptions
