"""What a decoder cannot read is a ``WireDecodeError`` that names the place and the
problem, and never any other exception: random bytes, random JSON, valid bodies with a
part replaced by random JSON, and nesting deep enough to exhaust the stack."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import ChatMessage
from harness.wire import WIRE_KINDS, WireDecodeError, WireKind, decode_answer, decode_request
from tests.wire.answers import plans, rendered
from tests.wire.bodies import histories, path_of, render

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
KEYS = st.sampled_from(
    ["content", "role", "tool_calls", "parts", "input", "text", "messages", "type", "function"]
)


def refusal(decode: Callable[[], object]) -> str | None:
    """``None`` when ``decode`` works, else the ``WireDecodeError``'s message (any other
    exception fails the test)."""
    try:
        decode()
    except WireDecodeError as error:
        return str(error)
    return None


def reads_or_refuses(wire: WireKind, body: bytes) -> None:
    """Decoding ``body`` as a request and as an answer either works or is refused, with a
    message."""
    for decode in (
        lambda: decode_request(wire, path_of(wire), body),
        lambda: decode_answer(wire, 200, body, streamed=False),
        lambda: decode_answer(wire, 200, body, streamed=True),
    ):
        assert refusal(decode) != ""


@given(st.binary(max_size=200))
def test_random_bytes_raise_nothing_but_wire_decode_error(body: bytes) -> None:
    for wire in WIRE_KINDS:
        reads_or_refuses(wire, body)


@given(JSON)
def test_random_json_raises_nothing_but_wire_decode_error(value: Any) -> None:
    body = json.dumps(value).encode()
    for wire in WIRE_KINDS:
        reads_or_refuses(wire, body)
        reads_or_refuses(wire, b"data: " + body + b"\n\n")


def _replace_somewhere(value: Any, key: str, replacement: Any, depth: int) -> Any:
    """``value`` with the first ``key`` found at or below ``depth`` levels set to
    ``replacement``."""
    if isinstance(value, dict):
        if key in value and depth <= 0:
            return {**value, key: replacement}
        return {k: _replace_somewhere(v, key, replacement, depth - 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_somewhere(v, key, replacement, depth - 1) for v in value]
    return value


@given(histories(), KEYS, JSON, st.integers(0, 6))
def test_valid_bodies_with_a_part_gone_wrong_raise_nothing_but_wire_decode_error(
    history: list[ChatMessage], key: str, replacement: Any, depth: int
) -> None:
    for wire in WIRE_KINDS:
        body = json.loads(render(wire, history))
        reads_or_refuses(
            wire, json.dumps(_replace_somewhere(body, key, replacement, depth)).encode()
        )


@given(plans(), KEYS, JSON, st.integers(0, 6), st.booleans())
def test_valid_answers_with_a_part_gone_wrong_raise_nothing_but_wire_decode_error(
    plan: Any, key: str, replacement: Any, depth: int, streamed: bool
) -> None:
    for wire in WIRE_KINDS:
        answer = rendered(wire, plan, streamed=streamed)
        lines = answer.body.decode().split("\n")
        changed = [_changed_line(line, key, replacement, depth) for line in lines]
        body = "\n".join(changed).encode()
        decode = functools.partial(decode_answer, wire, 200, body, streamed=streamed)
        assert refusal(decode) != ""


def _changed_line(line: str, key: str, replacement: Any, depth: int) -> str:
    prefix = "data: " if line.startswith("data: ") else ""
    try:
        value = json.loads(line.removeprefix(prefix))
    except ValueError:
        return line
    return prefix + json.dumps(_replace_somewhere(value, key, replacement, depth))


@pytest.mark.parametrize("wire", WIRE_KINDS)
def test_nesting_too_deep_for_the_stack_is_a_wire_decode_error(wire: WireKind) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(WireDecodeError, match="nested too deeply"):
        decode_request(wire, path_of(wire), deep)
    with pytest.raises(WireDecodeError, match="nested too deeply"):
        decode_answer(wire, 200, deep, streamed=False)


@pytest.mark.parametrize("depth", [900, 980, 985, 990, 995, 1000, 1100])
def test_tool_input_near_the_stack_limit_is_read_or_refused_as_too_deep(depth: int) -> None:
    """Around the interpreter's limit the parse may pass and compacting the tool input
    again (the row's ``arguments``) need the few frames more: either way, no other error."""
    deep = '{"a":' * depth + "{}" + "}" * depth
    use = f'{{"type":"tool_use","id":"t","name":"n","input":{deep}}}'
    body = f'{{"max_tokens":1,"messages":[{{"role":"assistant","content":[{use}]}}]}}'
    found = refusal(lambda: decode_request("anthropic", "/v1/messages", body.encode()))
    assert found is None or "nested too deeply" in found


@pytest.mark.parametrize(
    ("wire", "body", "message"),
    [
        ("openai_chat", b"not json", "body: not JSON"),
        ("anthropic", b"[1]", "body: expected object, found list"),
        (
            "openai_chat",
            b'{"messages":[{"role":"user","content":"a"},{"role":"user","content":3}]}',
            "messages[1].content: expected string or list, found int",
        ),
        (
            "anthropic",
            b'{"messages":[{"role":"tool","content":"a"}]}',
            "messages[0].role: unknown role 'tool'",
        ),
        (
            "openai_responses",
            b'{"input":[{"type":"function_call","call_id":"c","name":7}]}',
            "input[0].name: expected string, found int",
        ),
        ("gemini", b'{"contents":[{"role":"user","parts":{}}]}', "contents[0].parts"),
        ("ollama", b'{"messages":[{"role":"user","content":["a"]}]}', "messages[0].content"),
    ],
)
def test_a_refusal_names_where_and_what_was_wrong(
    wire: WireKind, body: bytes, message: str
) -> None:
    with pytest.raises(WireDecodeError) as raised:
        decode_request(wire, path_of(wire), body)
    assert str(raised.value).startswith(message)
