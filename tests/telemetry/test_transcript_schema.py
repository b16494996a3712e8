"""The transcript format's published JSON Schema (issue 27): generated from the event
record types, shipped with the package, met by everything the writer writes (every event
kind, the ``interrupted`` mark, a whole library run and a load run), and in agreement with
what ``trimscope report`` accepts."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import StrEnum
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.events import EVENT_KINDS, Event
from harness.report.parse import ReportInputError, parse_record
from harness.telemetry import TranscriptWriter, event_to_record
from harness.telemetry.transcript_schema import SCHEMA_PATH, schema_text, transcript_schema
from tests.telemetry.scripted import every_kind_session
from tests.transcript_schema_check import VALIDATOR, schema_errors, transcripts_under

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_schema_is_the_one_the_record_types_give() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "regenerate: python -m harness.telemetry.transcript_schema"
    )
    assert '"telemetry/transcript.schema.json"' in (ROOT / "setup.py").read_text()


def test_the_schema_is_valid_draft_2020_12_and_names_every_kind_and_field() -> None:
    schema = transcript_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    for kind in EVENT_KINDS:
        properties = schema["$defs"][kind.__name__]["properties"]
        assert set(properties) == {"kind"} | {f.name for f in dataclasses.fields(kind)}


def _values(hint: object) -> st.SearchStrategy[Any]:
    """JSON values of a field's type, as the writer writes them."""
    if isinstance(hint, types.UnionType):
        return st.one_of([_values(option) for option in typing.get_args(hint)])
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return st.sampled_from(list(hint))
    if typing.get_origin(hint) is tuple:
        return st.lists(st.text(max_size=8), max_size=3).map(tuple)
    scalars: dict[object, st.SearchStrategy[Any]] = {
        str: st.text(max_size=12),
        int: st.integers(min_value=-(2**40), max_value=2**40),
        float: st.floats(allow_nan=False, allow_infinity=False),
        bool: st.booleans(),
        type(None): st.none(),
    }
    return scalars[hint]


def _events_of(kind: type[Event]) -> st.SearchStrategy[Event]:
    hints = typing.get_type_hints(kind)
    fields = dataclasses.fields(kind)
    required = {f.name: _values(hints[f.name]) for f in fields if _required(f)}
    optional = {f.name: _values(hints[f.name]) for f in fields if not _required(f)}
    return st.fixed_dictionaries(required, optional=optional).map(lambda kw: kind(**kw))


def _required(field: dataclasses.Field[Any]) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


events = st.one_of([_events_of(kind) for kind in EVENT_KINDS])


@given(events)
def test_every_event_the_writer_can_write_is_a_valid_line(event: Event) -> None:
    VALIDATOR.validate(json.loads(json.dumps(event_to_record(event))))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=4,
)


@given(events, st.data())
def test_the_schema_accepts_a_changed_line_exactly_when_the_report_does(
    event: Event, data: st.DataObject
) -> None:
    """One field changed, removed or added: the schema and the report's reader agree.
    (Floats stay out of the changes: JSON Schema counts ``1.0`` an integer, the report
    does not; docs/reports.md says to write integers without a fraction.)"""
    record = event_to_record(event) | {}
    name = data.draw(st.sampled_from([*record, "surplus"]))
    if data.draw(st.booleans()) and name in record:
        del record[name]
    else:
        record[name] = data.draw(json_values)
    line = json.dumps(record).encode()
    try:
        parse_record(line)
        reported = True
    except ReportInputError:
        reported = False
    assert VALIDATOR.is_valid(json.loads(line)) == reported, record


def test_the_interrupted_mark_is_a_valid_line_and_a_span_is_not(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    for event in every_kind_session():
        writer.on_event(event)
    writer.mark_interrupted("SIGINT")
    writer.close()
    assert schema_errors(path) == []
    assert json.loads(path.read_text().splitlines()[-1])["kind"] == "interrupted"
    span = {"name": "chat", "kind": "SpanKind.CLIENT", "context": {"trace_id": "0x1"}}
    assert not VALIDATOR.is_valid(span)


def test_a_refused_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "refused.txt"  # not *.jsonl: the session's check skips it
    record = event_to_record(every_kind_session()[0])
    good, bad = json.dumps(record), json.dumps(record | {"session_id": 7})
    path.write_text(f"{good}\n{bad}\n")
    (error,) = schema_errors(path)
    assert error.startswith(f"{path}:2: ")


@pytest.mark.integration
def test_every_transcript_of_the_library_and_of_a_load_run_is_valid(tmp_path: Path) -> None:
    library, load = tmp_path / "library", tmp_path / "load"
    runner = CliRunner()
    ran = runner.invoke(app, ["run", str(ROOT / "scenarios"), "-q", "--transcript", str(library)])
    assert ran.exit_code == 0, ran.output
    sweep = ("load", "--quiet", "--sessions", "3", "--turns", "8", "--sweep", "budget=0,1200")
    swept = runner.invoke(app, [*sweep, "--transcript", str(load)])
    assert swept.exit_code in (0, 1), swept.output  # budget=0 may fail turns: still written
    written = [*transcripts_under(library), *transcripts_under(load)]
    assert len(written) == len(list(library.glob("*.jsonl"))) + 2
    assert [e for path in written for e in schema_errors(path)] == []
