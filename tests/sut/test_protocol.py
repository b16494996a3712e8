"""The SUT protocol's codec: every message round-trips, every other line is a protocol
error naming its line, and the committed JSON Schemas are the models' own."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.sut import protocol as p
from harness.sut.schemas_gen import SCHEMA_DIR
from harness.sut.wires import FEATURES
from harness.wire.model import WIRE_KINDS

texts = st.text(max_size=40)
ids = st.text(min_size=1, max_size=20)
maybe_count = st.none() | st.integers(min_value=0, max_value=10**9)
json_scalars = st.none() | st.booleans() | st.integers(-(10**9), 10**9) | texts
arguments = st.dictionaries(st.text(max_size=10), json_scalars, max_size=4)

provider = st.builds(
    p.Provider, wire=st.sampled_from(WIRE_KINDS), base_url=texts, api_key=texts, model=texts
)
tool_offer = st.builds(p.ToolOffer, name=texts, description=texts, parameters=arguments)
to_runtime = st.one_of(
    st.builds(p.Hello, protocol=st.integers(0, 10)),
    st.builds(
        p.Open,
        session=ids,
        provider=provider,
        context_window=st.integers(1, 10**9),
        budget_tokens=maybe_count,
        turn_limit=maybe_count,
        system=st.none() | texts,
        tools=st.lists(tool_offer, max_size=3),
    ),
    st.builds(p.User, session=ids, text=texts),
    st.builds(p.ToolResult, session=ids, id=texts, content=texts),
    st.builds(p.Close, session=ids),
    st.just(p.Bye()),
)
from_runtime = st.one_of(
    st.builds(
        p.RuntimeHello,
        protocol=st.integers(0, 10),
        name=ids,
        version=texts,
        wires=st.lists(st.sampled_from(WIRE_KINDS), max_size=3),
        features=st.lists(st.sampled_from(FEATURES), max_size=3),
    ),
    st.builds(p.Opened, session=ids),
    st.builds(p.Unsupported, session=ids, reason=texts),
    st.builds(p.ToolCall, session=ids, id=texts, name=texts, arguments=arguments),
    st.builds(p.Answer, session=ids, text=texts),
    st.builds(
        p.TurnError,
        session=ids,
        kind=st.sampled_from(["overflow", "provider", "internal"]),
        message=texts,
    ),
    st.builds(p.Event, session=ids, kind=st.sampled_from(["trim", "compaction", "recovery"])),
    st.builds(p.Log, text=texts),
)


@given(to_runtime)
def test_every_message_to_the_runtime_round_trips_as_one_line(message: p.ToRuntime) -> None:
    line = p.encode(message)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert p.decode_to_runtime(line, 1) == message


@given(from_runtime)
def test_every_message_from_the_runtime_round_trips_as_one_line(message: p.FromRuntime) -> None:
    line = p.encode(message)
    assert line.count(b"\n") == 1
    assert p.decode_from_runtime(line, 1) == message


def _is_message(line: bytes) -> bool:
    try:
        p.decode_from_runtime(line, 1)
    except p.ProtocolError:
        return False
    return True


@given(st.binary(max_size=200), st.integers(1, 10**6))
def test_any_garbage_line_is_a_protocol_error_naming_the_line(line: bytes, number: int) -> None:
    if _is_message(line):  # a rare valid message among the bytes: nothing to judge
        return
    with pytest.raises(p.ProtocolError, match=rf"^line {number}: "):
        p.decode_from_runtime(line, number)


@given(st.dictionaries(st.text(max_size=8), json_scalars, max_size=5), st.integers(1, 1000))
def test_any_json_object_that_is_not_a_message_is_named_with_its_line(
    value: dict[str, Any], number: int
) -> None:
    line = json.dumps(value).encode()
    if _is_message(line):
        return
    with pytest.raises(p.ProtocolError) as caught:
        p.decode_from_runtime(line, number)
    assert str(caught.value).startswith(f"line {number}: ")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"hello there", "not JSON: 'hello there'"),
        (b"[1, 2]", "not a message (no op)"),
        (b'{"op": "answer", "session": "s"}', "answer.text: Field required"),
        (b'{"op": "answer", "session": "s", "text": "x", "extra": 1}', "extra"),
        (b'{"op": "shout", "session": "s"}', "op"),
        (b'{"op": "error", "session": "s", "kind": "oops", "message": ""}', "error.kind"),
    ],
)
def test_a_protocol_error_says_what_is_wrong_with_the_line(line: bytes, says: str) -> None:
    with pytest.raises(p.ProtocolError, match=r"^line 7: ") as caught:
        p.decode_from_runtime(line, 7)
    assert says in str(caught.value)


def test_a_line_over_the_bound_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(p.ProtocolError, match="longer than"):
        p.decode_from_runtime(b'{"op":"log","text":"' + b"x" * p.MAX_LINE_BYTES + b'"}', 2)


def test_the_committed_schemas_are_the_models_own() -> None:
    """Regenerate with ``python -m harness.sut.schemas_gen``."""
    generated = p.schema_files()
    committed = {path.name: path.read_text(encoding="utf-8") for path in SCHEMA_DIR.iterdir()}
    assert committed == generated


@given(st.one_of(to_runtime, from_runtime))
def test_every_encoded_message_validates_against_its_schema(
    message: p.ToRuntime | p.FromRuntime,
) -> None:
    direction = "to-runtime" if isinstance(message, p.TO_RUNTIME) else "from-runtime"
    schema = json.loads((SCHEMA_DIR / f"{direction}-{message.op}.json").read_text())
    jsonschema.validate(json.loads(p.encode(message)), schema)
