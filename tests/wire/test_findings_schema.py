"""The findings contract: ``Finding.to_json()`` validates against
``harness/wire/findings.schema.json``, and the schema names every kind and field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.wire import FINDING_KINDS, Finding

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "harness" / "wire" / "findings.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

counts = st.none() | st.integers(min_value=0, max_value=10**9)
flags = st.none() | st.booleans()
findings = st.builds(
    Finding,
    session=st.text(min_size=1, max_size=40),
    call=st.integers(min_value=1, max_value=10**6),
    kind=st.sampled_from(FINDING_KINDS),
    status=st.none() | st.integers(min_value=100, max_value=599),
    dropped_messages=counts,
    dropped_turns=counts,
    kept_turns=counts,
    tokens_before=counts,
    tokens_after=counts,
    breadcrumb=flags,
    on_turn_boundary=flags,
    cache_loss_tokens=counts,
    shared_prefix_rows=counts,
    detail=st.text(max_size=80),
)


def test_the_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@given(findings)
def test_every_finding_serialises_to_a_valid_contract_object(finding: Finding) -> None:
    VALIDATOR.validate(finding.to_json())


@given(findings)
def test_the_json_object_round_trips_through_json_text(finding: Finding) -> None:
    data = finding.to_json()
    assert json.loads(json.dumps(data)) == data
    assert Finding(**data) == finding  # type: ignore[arg-type]


def test_the_schema_names_every_kind_and_every_field() -> None:
    assert SCHEMA["properties"]["kind"]["enum"] == list(FINDING_KINDS)
    fields = [f.name for f in dataclasses.fields(Finding)]
    assert sorted(SCHEMA["properties"]) == sorted(fields)
    assert SCHEMA["required"] == ["session", "call", "kind", "status"]


@pytest.mark.parametrize(
    "broken",
    [
        {"call": 0},
        {"kind": "truncated"},
        {"status": "200"},
        {"session": ""},
        {"dropped_messages": -1},
        {"breadcrumb": "yes"},
        {"surprise": 1},
    ],
)
def test_the_schema_rejects_objects_outside_the_contract(broken: dict[str, object]) -> None:
    data = Finding(session="s1", call=1, kind="trim", status=200).to_json() | broken
    assert list(VALIDATOR.iter_errors(data)) != []


def test_the_schema_ships_with_the_package() -> None:
    setup = (SCHEMA_PATH.parents[2] / "setup.py").read_text(encoding="utf-8")
    assert '"wire/findings.schema.json"' in setup
